/**
 * Interop: lists named by the real Claude Code's sessions. Sessions run in two projects
 * (no CLAUDE_CODE_TASK_LIST_ID: each writes to tasks/<its session UUID>/); in each
 * project `tasks list` takes that session's list and says why; `tasks lists` tells them
 * apart by project and prompt; a session held mid-run is live, then ended once it exits;
 * a session killed with SIGKILL is crashed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { shortIds } from '../../src/core/lists/short-ids.js';
import { runAsync, stderrText, tempConfig } from '../helpers/cli.js';
import { runAgent } from './agent.js';
import type { Turn } from './mock-model.js';

/** A session's list as tasks shows it alone: eight characters, more when those could not be read back as a session's. */
const shown = (id: string) => shortIds([id]).get(id) ?? id;

const CREATE = (subject: string): Turn => [{ name: 'TaskCreate', input: { subject, description: `${subject}, from the agent` } }];

interface Row {
  id: string;
  shortId: string;
  sessionId: string | null;
  state: string | null;
  activity: string | null;
  pid: number | null;
  cwd: string | null;
  prompt: string | null;
  counts: { total: number };
}

/** A gate the mock model waits on before a turn: the session stays alive (busy) meanwhile. */
function gate() {
  let open!: () => void;
  let reached!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const arrived = new Promise<void>((r) => (reached = r));
  return {
    open,
    arrived,
    wait: async () => {
      reached();
      await opened;
    },
  };
}

/** The live-session file Claude Code keeps for the session running in `cwd`. */
function liveFile(config: string, cwd: string): { pid: number; sessionId: string } | undefined {
  const dir = path.join(config, 'sessions');
  for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    if (!name.endsWith('.json')) continue;
    const value = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as { pid: number; sessionId: string; cwd: string };
    if (value.cwd === cwd) return value;
  }
  return undefined;
}

async function waitFor<T>(what: string, fn: () => T | undefined, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the real Claude Code: whose list is it', () => {
  it('two projects, live then ended, and a crash', async () => {
    const config = tempConfig();
    const home = path.join(config, 'home');
    const projA = path.join(home, 'work', 'alpha');
    const projB = path.join(home, 'work', 'beta');
    const projC = path.join(home, 'work', 'gamma');
    for (const d of [projA, projB, projC]) fs.mkdirSync(d, { recursive: true });
    const tasks = (cwd: string, args: string[]) => runAsync(config, args, { cwd });
    const lists = async () => JSON.parse((await tasks(home, ['lists', '--json'])).stdout) as Row[];

    // A holds before its last turn (alive, busy); B runs to the end meanwhile.
    const holdA = gate();
    const runA = runAgent({
      configDir: config,
      listId: undefined,
      cwd: projA,
      prompt: 'fix the login bug',
      turns: [CREATE('Reproduce the bug'), CREATE('Fix the session check'), [{ name: 'TaskList', input: {} }]],
      beforeTurn: (i) => (i === 2 ? holdA.wait() : undefined),
    });
    await holdA.arrived;
    const runB = await runAgent({
      configDir: config,
      listId: undefined,
      cwd: projB,
      prompt: 'write the release notes',
      turns: [CREATE('Draft the notes')],
    });
    const sessionA = (await waitFor('A live file', () => liveFile(config, projA))).sessionId;
    const sessionB = runB.stream.sessionId as string;
    expect(fs.existsSync(path.join(config, 'tasks', sessionA, '2.json'))).toBe(true);
    expect(fs.existsSync(path.join(config, 'tasks', sessionB, '1.json'))).toBe(true);

    // In each project, its session's list, and stderr says why.
    const inA = await tasks(projA, ['list', '--json']);
    expect(inA.code, inA.stderr).toBe(0);
    expect((JSON.parse(inA.stdout) as Array<{ subject: string }>).map((t) => t.subject)).toEqual([
      'Reproduce the bug',
      'Fix the session check',
    ]);
    expect(stderrText(inA.stderr)).toBe(`using list ${shown(sessionA)} (live session "fix the login bug", ~/work/alpha)\n`);
    const inB = await tasks(projB, ['list', '--json']);
    expect((JSON.parse(inB.stdout) as Array<{ subject: string }>).map((t) => t.subject)).toEqual(['Draft the notes']);
    expect(stderrText(inB.stderr)).toMatch(
      new RegExp(`^using list ${shown(sessionB)} \\(ended session "write the release notes", ~/work/beta, active \\d+s ago\\)\\n$`),
    );
    // A change in a project goes to its session's list without --list.
    expect(await tasks(projB, ['create', 'Added by hand'])).toMatchObject({ code: 0, stdout: '2\n' });

    // lists: both, told apart by project and prompt; A live and busy.
    const live = await lists();
    const byId = Object.fromEntries(live.map((l) => [l.id, l]));
    expect(byId[sessionA]).toMatchObject({
      sessionId: sessionA,
      state: 'live',
      activity: 'busy',
      cwd: projA,
      prompt: 'fix the login bug',
      counts: { total: 2 },
    });
    expect(byId[sessionA]!.pid).toEqual(expect.any(Number));
    expect(byId[sessionB]).toMatchObject({
      sessionId: sessionB,
      state: 'ended',
      pid: null,
      cwd: projB,
      prompt: 'write the release notes',
      counts: { total: 2 },
    });
    // Piped: the session's state, working directory, branch, id and prompt close each line.
    const piped = (await runAsync(config, ['lists'], { cwd: home })).stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(piped.find((f) => f[0] === sessionA)!.slice(8)).toEqual([
      'live',
      projA,
      expect.any(String),
      sessionA,
      'fix the login bug',
      'tasks',
      '-',
      '-',
    ]);
    expect(piped.find((f) => f[0] === sessionB)!.slice(8)).toEqual([
      'ended',
      projB,
      expect.any(String),
      sessionB,
      'write the release notes',
      'tasks',
      '-',
      '-',
    ]);

    // A exits: ended.
    holdA.open();
    await runA;
    expect((await lists()).find((l) => l.id === sessionA)).toMatchObject({ state: 'ended', pid: null });

    // C is killed with SIGKILL while held: its live file outlives it, so it is crashed.
    const holdC = gate();
    const runC = runAgent({
      configDir: config,
      listId: undefined,
      cwd: projC,
      prompt: 'refactor the database layer',
      turns: [CREATE('Split the repository'), [{ name: 'TaskList', input: {} }]],
      beforeTurn: (i) => (i === 1 ? holdC.wait() : undefined),
    }).catch((err: unknown) => err);
    await holdC.arrived;
    const c = await waitFor('C live file', () => liveFile(config, projC));
    // Claude Code writes its transcript a moment after the turn: killed before, it leaves none.
    const transcriptC = path.join(config, 'projects', projC.replace(/[^a-zA-Z0-9]/g, '-'), `${c.sessionId}.jsonl`);
    await waitFor('C transcript with its prompt', () =>
      fs.existsSync(transcriptC) && fs.readFileSync(transcriptC, 'utf8').includes('refactor the database layer') ? true : undefined,
    );
    expect((await lists()).find((l) => l.id === c.sessionId)).toMatchObject({ state: 'live', pid: c.pid });
    process.kill(c.pid, 'SIGKILL');
    holdC.open();
    expect(String(await runC)).toMatch(/agent run failed/);
    const crashed = (await lists()).find((l) => l.id === c.sessionId);
    expect(crashed).toMatchObject({ state: 'crashed', pid: c.pid, cwd: projC, prompt: 'refactor the database layer' });
    const inC = await tasks(projC, ['list']);
    expect(inC.stderr).toMatch(
      new RegExp(`^using list ${shown(c.sessionId)} \\(crashed session "refactor the database layer", ~/work/gamma`),
    );
  });
});
