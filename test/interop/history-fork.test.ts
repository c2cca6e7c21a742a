/**
 * Interop: each change counted once, in the list it happened in. A real Claude Code
 * session works in its list; `--resume` continues it (same session, same list, same
 * transcript); `--resume --fork-session` starts a new session whose transcript begins
 * with copies of its parent's entries and whose list is its own. `tasks log` of each
 * list shows every change made there exactly once, and none made elsewhere.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAsync, tempConfig } from '../helpers/cli.js';
import { runAgent } from './agent.js';
import type { Turn } from './mock-model.js';

const create = (subject: string): Turn => [{ name: 'TaskCreate', input: { subject, description: `${subject} (agent)` } }];
const update = (input: Record<string, unknown>): Turn => [{ name: 'TaskUpdate', input }];
type Event = { task: string; op: string; source: string; who: { session: string | null }; changes: Record<string, { new?: unknown }> };

describe('the real Claude Code resumed and forked: each change once, where it happened', () => {
  it('log of the parent list counts its run and its resumed run; log of the fork counts only the fork', async () => {
    const config = tempConfig();
    const project = path.join(config, 'home', 'work', 'app');
    fs.mkdirSync(project, { recursive: true });
    const log = async (list: string) => {
      const r = await runAsync(config, ['-l', list, 'log', '--json'], { cwd: project, env: { USER: 'carol' } });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as Event[];
    };
    const first = await runAgent({
      configDir: config,
      listId: undefined,
      cwd: project,
      prompt: 'plan the release',
      turns: [create('Plan'), create('Build'), update({ taskId: '1', status: 'in_progress', owner: 'agent-a' })],
    });
    const parent = first.stream.sessionId as string;
    // Resumed: the same session, its list and its transcript go on.
    const resumed = await runAgent({
      configDir: config,
      listId: undefined,
      cwd: project,
      args: ['--resume', parent],
      turns: [update({ taskId: '1', status: 'completed' }), create('Ship')],
    });
    expect(resumed.stream.sessionId).toBe(parent);
    // Forked: a new session and list, its transcript starting with copies of the parent's entries.
    const forked = await runAgent({
      configDir: config,
      listId: undefined,
      cwd: project,
      args: ['--resume', parent, '--fork-session'],
      turns: [create('Fork work'), update({ taskId: '1', status: 'in_progress' })],
    });
    const fork = forked.stream.sessionId as string;
    expect(fork).not.toBe(parent);
    const forkTranscript = path.join(config, 'projects', project.replace(/[^a-zA-Z0-9]/g, '-'), `${fork}.jsonl`);
    // What the fork's transcript holds (docs/task-store.md section 14): the parent's entries, copied.
    const copied = fs
      .readFileSync(forkTranscript, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((e) => e.type === 'assistant' && typeof e.requestSessionId === 'string');
    expect(copied.length).toBeGreaterThan(0);
    expect(copied.every((e) => e.sessionId === fork && e.requestSessionId === parent)).toBe(true);

    const parentLog = await log(parent);
    expect(parentLog.map((e) => `${e.op} #${e.task} ${e.source}`)).toEqual([
      'create #1 transcript',
      'create #2 transcript',
      'update #1 transcript',
      'update #1 transcript',
      'create #3 transcript',
    ]);
    expect(parentLog.every((e) => e.who.session === parent)).toBe(true);
    const forkLog = await log(fork);
    expect(forkLog.map((e) => `${e.op} #${e.task} ${e.source}`)).toEqual(['create #1 transcript', 'update #1 transcript']);
    expect(forkLog.every((e) => e.who.session === fork)).toBe(true);
    expect(forkLog[0]?.changes.subject?.new).toBe('Fork work');
    const text = await runAsync(config, ['-l', fork, 'log'], { cwd: project, env: { USER: 'carol' } });
    expect(text.stderr).toMatch(/changes? in entries a forked session copied from its parent: counted in the parent's list, not here/);
  });
});
