/**
 * Interop: the real Claude Code killed (SIGKILL) the moment its TaskUpdate has run, as
 * its next request goes out: its transcript may not yet hold that call (it writes behind
 * its turns; seen on 2.1.328 and 2.1.332). `log` and `get` then lay the change on the
 * crashed session (`crashed-agent`), never on a hand; recorded, it is the session's own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempConfig } from '../helpers/cli.js';
import { runAgent } from './agent.js';
import { waitFor } from './session-world.js';

interface Event {
  op: string;
  task: string | null;
  cause?: string;
  who: { kind: string; session: string | null };
  changes: Record<string, unknown>;
}

/** Does any transcript of this config folder hold this text yet? */
function transcriptsHold(config: string, text: string): boolean {
  const projects = path.join(config, 'projects');
  if (!fs.existsSync(projects)) return false;
  return fs
    .readdirSync(projects)
    .flatMap((folder) => fs.readdirSync(path.join(projects, folder)).map((f) => path.join(projects, folder, f)))
    .some((f) => f.endsWith('.jsonl') && fs.readFileSync(f, 'utf8').includes(text));
}

/** An agent on list k that makes #1, starts it, and is killed the moment that TaskUpdate has run. */
function killedAfterStart(config: string) {
  return runAgent({
    configDir: config,
    listId: 'k',
    turns: [
      [{ name: 'TaskCreate', input: { subject: 'Risky', description: 'r' } }],
      [{ name: 'TaskUpdate', input: { taskId: '1', status: 'in_progress', owner: 'k' } }],
      [{ name: 'TaskList', input: {} }],
    ],
    // Its transcript known (it holds the create's result) before the update is made.
    beforeTurn: async (i) => {
      if (i === 1)
        await waitFor(
          "the create's result in its transcript",
          () => transcriptsHold(config, '"toolUseResult":{"task":{"id":"1"') || undefined,
        );
    },
    killAtTurn: 2,
    killDelayMs: 0,
  });
}

/** #1's changes as log --json gives them: the create, then the start (recorded, or told as the crashed session's). */
function startedBy(config: string, session: string): Event[] {
  const log = run(config, ['-l', 'k', 'log', '--json']);
  expect(log.code, log.stderr).toBe(0);
  const events = (JSON.parse(log.stdout) as Event[]).filter((e) => e.task === '1');
  expect(events[0]).toMatchObject({ op: 'create', who: { kind: 'agent', session } });
  const started = events[1];
  if (started?.op === 'unrecorded') expect(started).toMatchObject({ cause: 'crashed-agent', who: { kind: 'unknown', session } });
  else expect(started).toMatchObject({ op: 'update', who: { kind: 'agent', session } });
  return events;
}

describe('the real Claude Code killed just after a TaskUpdate', () => {
  it('its change is told as its own, recorded or not, never as a hand edit', async () => {
    const config = tempConfig();
    const run1 = await killedAfterStart(config);
    const session = run1.stream.sessionId as string;
    const task = JSON.parse(fs.readFileSync(path.join(config, 'tasks', 'k', '1.json'), 'utf8'));
    expect(task).toMatchObject({ status: 'in_progress', owner: 'k' });

    expect(startedBy(config, session)).toHaveLength(2);

    const text = run(config, ['-l', 'k', 'log']);
    expect(text.stdout).not.toContain('hand edit');
    const get = run(config, ['-l', 'k', 'get', '1']);
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).not.toContain('hand edit');
  });

  it("resumed after the crash, it goes on to other work: the lost start is still its crashed run's, never a hand edit", async () => {
    const config = tempConfig();
    const session = (await killedAfterStart(config)).stream.sessionId as string;
    await runAgent({
      configDir: config,
      listId: 'k',
      args: ['--resume', session],
      turns: [[{ name: 'TaskCreate', input: { subject: 'Next', description: 'n' } }]],
    });
    expect(startedBy(config, session)).toHaveLength(2);
    const log = JSON.parse(run(config, ['-l', 'k', 'log', '--json']).stdout) as Event[];
    expect(log.filter((e) => e.task === '2')).toMatchObject([{ op: 'create', who: { kind: 'agent', session } }]);
    expect(run(config, ['-l', 'k', 'log']).stdout).not.toContain('hand edit');
    expect(run(config, ['-l', 'k', 'get', '1']).stdout).not.toContain('hand edit');
  });
});
