/**
 * `tasks use` moving a running session, as `tasks cost` and `tasks get` count it: the move
 * `tasks use` records splits the session's messages as it splits its changes in `tasks
 * log` (session-move.test.ts). Before the move, the old list's; after it, the new one's:
 * each list's cost adds up to the cost of both, and each `#1` has its own tokens only.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run, tempConfig } from '../helpers/cli.js';
import { CostTranscript, writeTaskFile } from '../helpers/cost-transcript.js';
import { writeLiveSession } from '../helpers/session-files.mjs';

const S = '5e551011-cccc-4bbb-8ccc-000000000002';
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

interface Report {
  tasks: Array<{ list: string; id: string; subject: string | null; messages: number; tokens: { input: number; output: number } }>;
  lists: Array<{ list: string; messages: number; tokens: { input: number; output: number } }>;
  unattributed: { messages: number; tokens: { input: number; output: number } };
  total: { messages: number; tokens: { input: number; output: number } };
}

function stamp(file: string, ms: number) {
  fs.utimesSync(file, ms / 1000, ms / 1000);
}

/**
 * A session on its own list makes #1 "Old A" and works on it (input tokens); `tasks use
 * web-sprint` moves it; it then thinks (a message before any task call), makes #1 "Sprint
 * A" of web-sprint and works on it (output tokens). Returns the world and the move's time.
 * `late`: Old A's completion comes 300 ms after the move, before Claude Code read the
 * changed settings (it does about a second after), so it went to the old list; the
 * session's work in web-sprint a second later. `back`: the binding cleared once it ended
 * (nothing moved: no session ran), the session is resumed and makes #2 "Back home" in its
 * own list (input tokens in the 100,000s).
 */
function movedSession(
  o: { claims?: boolean; deleted?: boolean; unrecorded?: boolean; ago?: number; oldDeleted?: boolean; late?: boolean; back?: boolean } = {},
) {
  const config = tempConfig();
  const home = path.join(config, 'home');
  const proj = path.join(home, 'work', 'web');
  fs.mkdirSync(proj, { recursive: true });
  const start = Date.now() - (o.ago ?? 120_000);
  const before = new CostTranscript(S, proj).prompt(start, 'follow the plan');
  before.create(start + 1_000, { id: '1', subject: 'Old A' }, start + 1_100, { input: 1 });
  before.write(config);
  writeTaskFile(config, S, { id: '1', subject: 'Old A' });
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  children.push(child);
  writeLiveSession(config, { pid: child.pid as number, sessionId: S, cwd: proj, status: 'idle', start });
  const env = { HOME: home };
  if (o.claims) {
    const made = run(config, ['-l', 'web-sprint', 'create', 'Sprint A'], { cwd: proj, env });
    expect(made.code, made.stderr).toBe(0);
  }
  const used = run(config, ['use', 'web-sprint'], { cwd: proj, env });
  expect(used.code, used.stderr).toBe(0);
  const movesFile = path.join(config, 'tasks', '.tasks-session-moves.jsonl');
  const move = Date.parse((JSON.parse(fs.readFileSync(movesFile, 'utf8').trim()) as { at: string }).at);
  // No record of it: as a session resumed under another list, where its writes alone tell.
  if (o.unrecorded) fs.rmSync(movesFile);

  const t = new CostTranscript(S, proj).prompt(start, 'follow the plan');
  const d = o.late ? 1_000 : 0;
  // Its work before the move, in the seconds before it: Old A's last change a moment before Sprint A's.
  t.create(move - 4_000, { id: '1', subject: 'Old A' }, move - 3_900, { input: 1 });
  t.update(move - 3_000, { taskId: '1', status: 'in_progress' }, move - 2_900, { input: 10 });
  t.message(move - 2_000, { input: 100 });
  const done = o.late ? move + 300 : move - 1_000;
  t.update(done, { taskId: '1', status: 'completed' }, done + 100, { input: 1000 });
  if (o.oldDeleted) t.update(done + 200, { taskId: '1', status: 'deleted' }, done + 300);
  // Moved: its next turn is the new list's.
  t.prompt(move + d + 50, 'now the sprint');
  t.message(move + d + 100, { output: 7 });
  if (o.claims) t.message(move + d + 200, { output: 20 });
  else t.create(move + d + 200, { id: '1', subject: 'Sprint A' }, move + d + 250, { output: 20 });
  t.update(move + d + 300, { taskId: '1', status: 'in_progress' }, move + d + 350, { output: 300 });
  t.message(move + d + 400, { output: 4000 });
  t.update(move + d + 500, { taskId: '1', status: 'completed', owner: 'sprinter' }, move + d + 550, { output: 50000 });
  if (o.back) {
    t.prompt(move + d + 2_000, 'back home');
    t.create(move + d + 2_100, { id: '2', subject: 'Back home' }, move + d + 2_150, { input: 100_000 });
    t.update(move + d + 2_200, { taskId: '2', status: 'in_progress' }, move + d + 2_250, { input: 200_000 });
    t.update(move + d + 2_300, { taskId: '2', status: 'completed' }, move + d + 2_350, { input: 400_000 });
  }
  const file = t.write(config);
  writeTaskFile(config, S, { id: '1', subject: 'Old A', status: 'completed' });
  writeTaskFile(config, 'web-sprint', { id: '1', subject: 'Sprint A', status: 'completed', owner: 'sprinter' });
  stamp(path.join(config, 'tasks', S, '1.json'), done + 100);
  if (o.oldDeleted) fs.rmSync(path.join(config, 'tasks', S, '1.json'));
  stamp(path.join(config, 'tasks', 'web-sprint', '1.json'), move + d + 550);
  // Every entry in the past, the transcript last written a moment after its last entry.
  if (o.back) {
    writeTaskFile(config, S, { id: '2', subject: 'Back home', status: 'completed' });
    stamp(path.join(config, 'tasks', S, '2.json'), move + d + 2_350);
  }
  while (Date.now() < move + d + (o.back ? 3_000 : 1_500)) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  stamp(file, move + d + (o.back ? 2_400 : 600));
  if (o.deleted) {
    const gone = run(config, ['-l', 'web-sprint', 'delete', '1'], { cwd: proj, env });
    expect(gone.code, gone.stderr).toBe(0);
  }
  return { config, proj, env, move, transcript: file };
}

describe('tasks use moves a running session: its cost', () => {
  it.each([
    ['makes its task there', false, false, false],
    ['takes a task made there before', true, false, false],
    ['makes its task there, deleted since', false, true, false],
    ['completes its old task before Claude Code read the change, then makes its task there', false, false, true],
  ])(
    "splits the session's messages at the recorded move (it %s): each list its own side, the two adding up to --all",
    (_how, claims, deleted, late) => {
      const { config, proj, env } = movedSession({ claims, deleted, late });
      const cost = (args: string[]) => {
        const r = run(config, ['cost', '--json', ...args], { cwd: proj, env });
        expect(r.code, r.stderr).toBe(0);
        return JSON.parse(r.stdout) as Report;
      };
      const old = cost(['-l', S]);
      const sprint = cost(['-l', 'web-sprint']);
      const all = cost(['--all']);
      const tok = (u: { tokens: { input: number; output: number } } | undefined) =>
        u === undefined ? undefined : { input: u.tokens.input, output: u.tokens.output };
      const task = (r: Report, list: string) => tok(r.tasks.find((x) => x.list === list && x.id === '1'));
      // Old A: its in-progress turns before the move (the update that set it in progress is before its spell).
      expect(task(old, S)).toEqual({ input: 1100, output: 0 });
      expect(task(sprint, 'web-sprint')).toEqual({ input: 0, output: 54000 });
      expect(task(all, S)).toEqual({ input: 1100, output: 0 });
      expect(task(all, 'web-sprint')).toEqual({ input: 0, output: 54000 });
      // The old list: the turns before the move only; the new one: those after it, the thinking before its first call too.
      expect(tok(old.total)).toEqual({ input: 1111, output: 0 });
      expect(tok(sprint.total)).toEqual({ input: 0, output: 54327 });
      expect(old.total.messages + sprint.total.messages).toBe(all.total.messages);
      expect(tok(all.total)).toEqual({ input: 1111, output: 54327 });
      expect(tok(all.lists.find((l) => l.list === S))).toEqual(tok(old.total));
      expect(tok(all.lists.find((l) => l.list === 'web-sprint'))).toEqual(tok(sprint.total));
    },
  );
});

describe("tasks get on a moved session's task", () => {
  it.each([
    ['recorded by tasks use', false, false],
    ['not recorded (the session resumed under the other list)', true, false],
    ['recorded by tasks use, the old task completed before Claude Code read the change', false, true],
  ])('says the Work and last change that cost and log say (the move %s)', (_how, unrecorded, late) => {
    const world = movedSession({ unrecorded, late });
    const { config, proj } = world;
    // A minute on: what the runs read of the transcripts is settled, and kept for a quick look.
    const env = { ...world.env, TASKS_NOW: String(world.move + 60_000) };
    const json = (args: string[]) => {
      const r = run(config, args, { cwd: proj, env });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as unknown;
    };
    const old = json(['-l', S, 'cost', '--json']) as Report;
    const sprint = json(['-l', 'web-sprint', 'cost', '--json']) as Report;
    const oldLog = (json(['-l', S, 'log', '1', '--json']) as Array<{ at: string; op: string }>).map((e) => e.op);
    const row = (r: Report, list: string) => r.tasks.find((x) => x.list === list && x.id === '1');
    expect(row(old, S)?.messages).toBe(2);
    expect(row(sprint, 'web-sprint')?.messages).toBe(2);
    expect(oldLog).toEqual(['create', 'update', 'update']);
    const get = (list: string) => {
      const r = run(config, ['-l', list, 'get', '1'], { cwd: proj, env });
      expect(r.code, r.stderr).toBe(0);
      return r.stdout;
    };
    const gotOld = get(S);
    // 1,100 tokens in 2 messages, not Sprint A's too; its last change Old A's own, not Sprint A's (1.45 s after it).
    expect(gotOld).toMatch(/Work: .*1\.1k tokens \(2 messages/);
    expect(gotOld).toMatch(/last changed .* ago by agent of session 5e551011: status → completed\n/);
    const gotSprint = get('web-sprint');
    expect(gotSprint).toMatch(/Work: .*54k tokens \(2 messages/);
    expect(gotSprint).toMatch(/last changed .* ago by agent of session 5e551011: .*sprinter/);
  });
});

describe("tasks cost names a moved session's deleted task", () => {
  it("by its own list's record: Old A, deleted before the move, not the other list's #1 made after it", () => {
    const { config, proj, env } = movedSession({ oldDeleted: true });
    for (const args of [['-l', S], ['--all']]) {
      const r = run(config, ['cost', '--json', ...args], { cwd: proj, env });
      expect(r.code, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout) as Report & { tasks: Array<{ deleted: boolean }> };
      const old = report.tasks.find((t) => t.list === S && t.id === '1');
      expect(old).toMatchObject({ subject: 'Old A', deleted: true, messages: 2 });
      if (args[0] === '--all') expect(report.tasks.find((t) => t.list === 'web-sprint' && t.id === '1')?.subject).toBe('Sprint A');
    }
  });
});

describe('a moved session resumed on its own list once the binding is cleared', () => {
  it("its later changes and messages are its own list's again: log, cost and the lists adding up to --all", () => {
    const { config, proj, env } = movedSession({ back: true });
    const json = (args: string[]) => {
      const r = run(config, [...args, '--json'], { cwd: proj, env });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as unknown;
    };
    const ops = (list: string) => (json(['-l', list, 'log']) as Array<{ op: string; task: string }>).map((e) => `${e.op} #${e.task}`);
    expect(ops(S)).toEqual(['create #1', 'update #1', 'update #1', 'create #2', 'update #2', 'update #2']);
    expect(ops('web-sprint')).toEqual(['create #1', 'update #1', 'update #1']);
    const old = json(['-l', S, 'cost']) as Report;
    const sprint = json(['-l', 'web-sprint', 'cost']) as Report;
    const all = json(['cost', '--all']) as Report;
    expect(old.tasks.find((t) => t.id === '2')?.tokens.input).toBe(400_000);
    expect(old.total.tokens).toMatchObject({ input: 701_111, output: 0 });
    expect(sprint.total.tokens).toMatchObject({ input: 0, output: 54_327 });
    expect(all.total.tokens).toMatchObject({ input: 701_111, output: 54_327 });
    expect(old.total.messages + sprint.total.messages).toBe(all.total.messages);
  });
});

describe('a session moved to a list that has no folder yet', () => {
  /**
   * A session on its own list makes #1 "Old A"; `tasks use shared-x` moves it to a list
   * no task was made in yet, where it thinks and talks but makes no task call: shared-x's
   * unattributed work, though its folder does not exist.
   */
  function movedToNothing() {
    const config = tempConfig();
    const home = path.join(config, 'home');
    const proj = path.join(home, 'work', 'web');
    fs.mkdirSync(proj, { recursive: true });
    const start = Date.now() - 120_000;
    const child = spawn('sleep', ['600'], { stdio: 'ignore' });
    children.push(child);
    writeLiveSession(config, { pid: child.pid as number, sessionId: S, cwd: proj, status: 'idle', start });
    const before = new CostTranscript(S, proj).prompt(start, 'follow the plan');
    before.create(start + 1_000, { id: '1', subject: 'Old A' }, start + 1_100, { input: 1 });
    before.write(config);
    writeTaskFile(config, S, { id: '1', subject: 'Old A' });
    const env = { HOME: home };
    const used = run(config, ['use', 'shared-x'], { cwd: proj, env });
    expect(used.code, used.stderr).toBe(0);
    const movesFile = path.join(config, 'tasks', '.tasks-session-moves.jsonl');
    const move = Date.parse((JSON.parse(fs.readFileSync(movesFile, 'utf8').trim()) as { at: string }).at);
    const t = new CostTranscript(S, proj).prompt(start, 'follow the plan');
    t.create(move - 4_000, { id: '1', subject: 'Old A' }, move - 3_900, { input: 1 });
    t.update(move - 3_000, { taskId: '1', status: 'in_progress' }, move - 2_900, { input: 10 });
    t.message(move - 2_000, { input: 100, output: 30 });
    t.prompt(move + 50, 'now the shared work');
    t.message(move + 100, { input: 20, output: 10 });
    t.message(move + 200, { output: 1_000 });
    const file = t.write(config);
    stamp(path.join(config, 'tasks', S, '1.json'), move - 2_900);
    while (Date.now() < move + 1_000) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    stamp(file, move + 300);
    return { config, proj, env };
  }

  it("counts its work there in cost --all and in the list's own cost (0 tasks, all unattributed), each message once", () => {
    const { config, proj, env } = movedToNothing();
    const cost = (args: string[], cwd = proj) => {
      const r = run(config, ['cost', '--json', ...args], { cwd, env });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as Report;
    };
    const tok = (u: { tokens: { input: number; output: number } } | undefined) =>
      u === undefined ? undefined : { input: u.tokens.input, output: u.tokens.output };
    const all = cost(['--all']);
    expect(tok(all.total)).toEqual({ input: 131, output: 1_040 });
    expect(all.total.messages).toBe(5);
    expect(tok(all.lists.find((l) => l.list === 'shared-x'))).toEqual({ input: 20, output: 1_010 });
    expect(tok(all.lists.find((l) => l.list === S))).toEqual({ input: 111, output: 30 });
    // Named from anywhere, the list the project is bound to: no tasks, its work unattributed.
    const shared = cost(['-l', 'shared-x'], config);
    expect(shared.tasks).toEqual([]);
    expect(tok(shared.unattributed)).toEqual({ input: 20, output: 1_010 });
    expect(shared.total.messages).toBe(2);
    const old = cost(['-l', S]);
    expect(old.total.messages + shared.total.messages).toBe(all.total.messages);
    // Plain cost in the bound project: the same list.
    expect(tok(cost([]).unattributed)).toEqual({ input: 20, output: 1_010 });
    // Any read names it so: empty before its first task.
    const listed = run(config, ['-l', 'shared-x', 'list', '--json'], { cwd: config, env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([]);
  });

  it('says why a list a session was moved to has no tasks: a note, not a silent empty list', () => {
    const { config, env } = movedToNothing();
    for (const args of [['list'], ['cost']]) {
      const r = run(config, ['-l', 'shared-x', ...args], { cwd: config, env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr, args.join(' ')).toMatch(/list "shared-x" has no tasks yet: a session was moved to it \(tasks use\)/);
    }
    // A script reads it by its code; stdout keeps to the answer.
    const json = run(config, ['-l', 'shared-x', 'list', '--json'], { cwd: config, env });
    expect(JSON.parse(json.stdout)).toEqual([]);
    expect(json.stderr).toMatch(/"code":"list_not_made_yet"/);
  });

  it('still says a list nobody bound or moved to does not exist (exit 3)', () => {
    const { config, proj, env } = movedToNothing();
    const r = run(config, ['-l', 'shared-y', 'cost'], { cwd: proj, env });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/shared-y/);
  });
});

describe('a fork of a moved session, on the list it moved to', () => {
  it("log's fork note counts as this list's only the copied changes its parent made on this list", () => {
    const { config, proj, env, move, transcript } = movedSession();
    const F = '5e551011-cccc-4bbb-8ccc-0000000000f0';
    // The fork's transcript: copies of every entry of its parent's, then its own work on the bound list.
    const copies = fs
      .readFileSync(transcript, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => {
        const e = JSON.parse(l) as Record<string, unknown>;
        return JSON.stringify({ ...e, sessionId: F, ...(e.type === 'assistant' ? { requestSessionId: S } : {}) });
      });
    const own = new CostTranscript(F, proj)
      .prompt(move + 5_000, 'fork on')
      .create(move + 5_100, { id: '2', subject: 'Fork work' }, move + 5_150);
    const file = path.join(path.dirname(transcript), `${F}.jsonl`);
    fs.writeFileSync(file, `${[...copies, ...own.lines()].join('\n')}\n`);
    writeTaskFile(config, 'web-sprint', { id: '2', subject: 'Fork work' });
    stamp(path.join(config, 'tasks', 'web-sprint', '2.json'), move + 5_150);
    stamp(file, move + 5_200);
    const r = run(config, ['-l', 'web-sprint', 'log'], { cwd: proj, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Fork work/);
    // Of the 6 copied changes, the parent made 3 on its own list before the move, 3 here after it.
    expect(r.stderr).toContain(
      "3 changes in entries a forked session copied from its parent, which shares this list: counted once, as the parent's",
    );
    expect(r.stderr).toContain("3 changes in entries a forked session copied from its parent: counted in the parent's list, not here");
  });
});

describe("tasks restore of a moved session's old list, gone since", () => {
  it('brings back its task as its last call left it, a call made before Claude Code read the changed settings too', () => {
    // Old A completed 300 ms after the move, before Claude Code read the change: on the old list.
    const { config, proj, env } = movedSession({ late: true });
    fs.rmSync(path.join(config, 'tasks', S), { recursive: true });
    const r = run(config, ['-l', S, 'restore', '--json'], { cwd: proj, env });
    expect(r.code, r.stderr).toBe(0);
    const file = JSON.parse(fs.readFileSync(path.join(config, 'tasks', S, '1.json'), 'utf8')) as { subject: string; status: string };
    expect(file).toMatchObject({ subject: 'Old A', status: 'completed' });
    // Nothing of the new list's: its #1 is Sprint A, which stays there alone.
    expect(fs.readdirSync(path.join(config, 'tasks', S)).filter((f) => /^\d+\.json$/.test(f))).toEqual(['1.json']);
  });
});

describe('tasks restore of the list a session moved to, gone since', () => {
  it("brings back only the session's work after the move: not its old task's last call, made before Claude Code read the change", () => {
    const { config, proj, env } = movedSession({ late: true });
    fs.rmSync(path.join(config, 'tasks', 'web-sprint'), { recursive: true });
    const r = run(config, ['-l', 'web-sprint', 'restore', '--json'], { cwd: proj, env });
    expect(r.code, r.stderr).toBe(0);
    const dir = path.join(config, 'tasks', 'web-sprint');
    expect(fs.readdirSync(dir).filter((f) => /^\d+\.json$/.test(f))).toEqual(['1.json']);
    const file = JSON.parse(fs.readFileSync(path.join(dir, '1.json'), 'utf8')) as { subject: string; status: string; owner?: string };
    expect(file).toMatchObject({ subject: 'Sprint A', status: 'completed', owner: 'sprinter' });
    expect(r.stderr).not.toContain('"warning"');
  });
});
