/**
 * Interop: work that outlives its session, against the real Claude Code.
 *
 * 1. carry: a session makes tasks and ends; a new session starts in the same project
 *    and is held before its first turn (its list does not exist yet); `tasks carry`
 *    brings the unfinished tasks into the list it will use; its TaskList and TaskGet
 *    show them, and its TaskUpdate completes them under the carried ids.
 * 2. restore: a session's list folder is removed; `tasks lists --all` shows it gone;
 *    `tasks restore` brings it back from the transcript; an agent on that list reads it,
 *    and its next TaskCreate gets an id above every id the session had used.
 * 3. doctor: a session run with the task tools off (its model is one the gate leaves
 *    out, and no launch option turns them on), and one run with CLAUDE_CODE_ENABLE_TASKS
 *    set to 0 in the project's settings: `tasks doctor` names each cause.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAsync, tempConfig } from '../helpers/cli.js';
import { runAgent } from './agent.js';
import type { Turn } from './mock-model.js';

const CREATE = (subject: string): Turn => [{ name: 'TaskCreate', input: { subject, description: `${subject}, from the agent` } }];

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

async function waitFor<T>(what: string, fn: () => T | undefined, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The live-session file Claude Code keeps for the session running in `cwd`. */
function liveSession(config: string, cwd: string): { pid: number; sessionId: string } | undefined {
  const dir = path.join(config, 'sessions');
  for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    if (!name.endsWith('.json')) continue;
    const value = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as { pid: number; sessionId: string; cwd: string };
    if (value.cwd === cwd) return value;
  }
  return undefined;
}

function setup() {
  const config = tempConfig();
  const home = path.join(config, 'home');
  const dir = (rel: string) => {
    const d = path.join(home, rel);
    fs.mkdirSync(d, { recursive: true });
    return d;
  };
  const tasks = (cwd: string, args: string[], env: Record<string, string | undefined> = {}) => runAsync(config, args, { cwd, env });
  return { config, home, dir, tasks };
}

describe('the real Claude Code: when the session changes', () => {
  it('carry: a new session in the same project sees the unfinished tasks of the one before, and completes them', async () => {
    const { config, dir, tasks } = setup();
    const proj = dir('work/app');
    const first = await runAgent({
      configDir: config,
      listId: undefined,
      cwd: proj,
      prompt: 'plan the release',
      turns: [
        CREATE('Write the plan'),
        CREATE('Build the release'),
        CREATE('Publish the notes'),
        [
          { name: 'TaskUpdate', input: { taskId: '3', addBlockedBy: ['2'] } },
          { name: 'TaskUpdate', input: { taskId: '1', status: 'completed' } },
        ],
        [{ name: 'TaskUpdate', input: { taskId: '2', status: 'in_progress', owner: 'main' } }],
      ],
    });
    const old = first.stream.sessionId as string;
    expect(fs.existsSync(path.join(config, 'tasks', old, '3.json'))).toBe(true);

    // A new session in the project, held before its first turn: live, and no list yet. It
    // starts a while after the first ended, as a person's next session does: one begun
    // within seconds of a session in the same folder could be that session's /clear.
    await new Promise((r) => setTimeout(r, 6_000));
    const hold = gate();
    const secondRun = runAgent({
      configDir: config,
      listId: undefined,
      cwd: proj,
      prompt: 'finish the release',
      turns: [
        [{ name: 'TaskList', input: {} }],
        [{ name: 'TaskGet', input: { taskId: '2' } }],
        [
          { name: 'TaskUpdate', input: { taskId: '1', status: 'completed' } },
          { name: 'TaskUpdate', input: { taskId: '2', status: 'completed' } },
        ],
      ],
      beforeTurn: (i) => (i === 0 ? hold.wait() : undefined),
    });
    await hold.arrived;
    const live = await waitFor('the new session', () => {
      const s = liveSession(config, proj);
      return s !== undefined && s.sessionId !== old ? s : undefined;
    });
    expect(fs.existsSync(path.join(config, 'tasks', live.sessionId))).toBe(false);

    const dry = await tasks(proj, ['carry', '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    const r = await tasks(proj, ['carry', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      target: string;
      from: Array<{ list: string; why: string; ids: Record<string, string>; carried: Array<{ id: string; ownerCleared?: string }> }>;
    };
    // The dry run said the same, but for the times of files it did not write.
    const { dryRun, ...planned } = JSON.parse(dry.stdout) as Record<string, unknown>;
    expect(dryRun).toBe(true);
    expect(planned).toEqual({ ...out, created: (out as unknown as { created: object[] }).created.map((t) => ({ ...t, updatedAt: null })) });
    expect(out.target).toBe(live.sessionId);
    expect(out.from).toMatchObject([{ list: old, why: 'ended', ids: { '2': '1', '3': '2' } }]);
    expect(out.from[0]?.carried.find((c) => c.id === '2')?.ownerCleared).toBe('main');

    hold.open();
    const second = await secondRun;
    // What the new session's agent was told: its TaskList shows the carried work, with the
    // dependency between the two; TaskGet shows the task; its updates of the carried ids succeed.
    const [list, get, done1, done2] = second.stream.calls;
    expect(list?.text).toMatch(/#1 \[pending\] Build the release\n#2 \[pending\] Publish the notes \[blocked by #1\]/);
    expect(get?.text).toMatch(/^Task #2: Publish the notes\n/);
    expect(done1?.text).toMatch(/^Updated task #1 status/);
    expect(done2?.text).toMatch(/^Updated task #2 status/);
    const files = ['1', '2'].map(
      (id) => JSON.parse(fs.readFileSync(path.join(config, 'tasks', live.sessionId, `${id}.json`), 'utf8')) as { status: string },
    );
    expect(files.map((t) => t.status)).toEqual(['completed', 'completed']);
    // The old list: its tasks marked, none lost.
    const marks = ['1', '2', '3'].map(
      (id) =>
        (JSON.parse(fs.readFileSync(path.join(config, 'tasks', old, `${id}.json`), 'utf8')) as { metadata?: { carriedTo?: unknown } })
          .metadata?.carriedTo,
    );
    expect(marks).toEqual([undefined, { list: live.sessionId, id: '1' }, { list: live.sessionId, id: '2' }]);

    // The agent has worked on the carried tasks since: undoing the carry would take its
    // work back, so it is refused whole, naming what the agent changed; neither list moves.
    const snapshot = () =>
      [old, live.sessionId].map((l) =>
        fs
          .readdirSync(path.join(config, 'tasks', l))
          .filter((n) => n.endsWith('.json'))
          .sort()
          .map((n) => fs.readFileSync(path.join(config, 'tasks', l, n), 'utf8')),
      );
    const before = snapshot();
    const undo = await tasks(proj, ['-l', live.sessionId, 'undo']);
    expect(undo.code, undo.stderr).toBe(4);
    expect(undo.stderr).toMatch(
      /^error: cannot undo carry by .*: #2 was changed since it was created.*#1 was changed since it was created/,
    );
    expect(snapshot()).toEqual(before);
  });

  it('restore: a removed list comes back from its transcript, and an agent reads it', async () => {
    const { config, home, dir, tasks } = setup();
    const proj = dir('work/lib');
    const run = await runAgent({
      configDir: config,
      listId: undefined,
      cwd: proj,
      prompt: 'tidy the library',
      turns: [
        CREATE('Remove dead code'),
        CREATE('Rename the module'),
        CREATE('A mistake'),
        [
          { name: 'TaskUpdate', input: { taskId: '1', status: 'completed' } },
          { name: 'TaskUpdate', input: { taskId: '3', status: 'deleted' } },
        ],
      ],
    });
    const session = run.stream.sessionId as string;
    fs.rmSync(path.join(config, 'tasks', session), { recursive: true });

    const gone = await tasks(home, ['lists', '--all', '--json']);
    expect(gone.code, gone.stderr).toBe(0);
    expect(JSON.parse(gone.stdout)).toMatchObject([
      { id: session, kind: 'gone', counts: { total: 2, completed: 1, inProgress: 0, pending: 1 }, cwd: proj },
    ]);
    const restored = await tasks(home, ['restore', '--session', session, '--json']);
    expect(restored.code, restored.stderr).toBe(0);
    expect(JSON.parse(restored.stdout)).toMatchObject({ ids: { '1': '1', '2': '2' }, mark: { before: '0', after: '3' } });

    // An agent on that list (the variable names it) reads what was restored, and creates past it.
    const reader = await runAgent({
      configDir: config,
      listId: session,
      cwd: proj,
      turns: [[{ name: 'TaskList', input: {} }], [{ name: 'TaskGet', input: { taskId: '2' } }], CREATE('After the restore')],
    });
    const [list, get, create] = reader.stream.calls;
    expect(list?.text).toMatch(/#1 \[completed\] Remove dead code\n#2 \[pending\] Rename the module/);
    expect(get?.text).toMatch(/^Task #2: Rename the module\n/);
    // #3 was the deleted one: never handed out again.
    expect(create?.text).toMatch(/^Task #4 created successfully/);
  });

  it('doctor: names the cause for a session run with the task tools off, and for one in TodoWrite mode', async () => {
    const { config, dir, tasks } = setup();
    const off = dir('work/off');
    // No task tool allowed: the default model is one the gate leaves out, so the tools are off.
    const plain = await runAgent({
      configDir: config,
      listId: undefined,
      cwd: off,
      prompt: 'just answer',
      turns: [],
      allowedTools: 'Read',
    });
    const offSession = plain.stream.sessionId as string;
    const r = await tasks(off, ['doctor', '--json']);
    expect(r.code, r.stderr).toBe(4);
    expect((JSON.parse(r.stdout) as { findings: Array<{ code: string; session?: string; message: string }> }).findings).toEqual([
      expect.objectContaining({
        code: 'task_tools_off',
        session: offSession,
        message: expect.stringMatching(/claude-opus-5-5 is not among/),
      }),
    ]);

    const todo = dir('work/todo');
    fs.mkdirSync(path.join(todo, '.claude'));
    fs.writeFileSync(path.join(todo, '.claude', 'settings.json'), JSON.stringify({ env: { CLAUDE_CODE_ENABLE_TASKS: '0' } }));
    const todoRun = await runAgent({
      configDir: config,
      listId: undefined,
      cwd: todo,
      prompt: 'plan with todos',
      turns: [[{ name: 'TodoWrite', input: { todos: [{ content: 'First', status: 'pending', activeForm: 'Doing the first' }] } }]],
    });
    const t = await tasks(todo, ['doctor', '--json']);
    expect(t.code, t.stderr).toBe(4);
    expect((JSON.parse(t.stdout) as { findings: Array<{ code: string; session?: string; file?: string }> }).findings).toEqual([
      expect.objectContaining({
        code: 'todowrite_mode',
        session: todoRun.stream.sessionId,
        file: path.join(todo, '.claude', 'settings.json'),
      }),
    ]);
  });
});
