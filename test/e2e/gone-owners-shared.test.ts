/**
 * Gone owners where other sessions live: on a list shared by several sessions, an owner
 * whose every session is over is gone while its siblings work on (their own work is never
 * taken); a live session in the same folder that cannot see the list stands in no one's way.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readJson, run, tempConfig, writeTask } from '../helpers/cli.js';
import { writeClearedTranscript, writeLiveSession, writeTranscript } from '../helpers/session-files.mjs';
import { type Call, writeTaskTranscript } from '../helpers/task-transcript.js';

const CRASHED = 'c1a55e00-1111-4111-8111-000000000001';
const LIVE = 'c1a55e00-2222-4222-8222-000000000002';
const A = '2d483082-5eaa-461a-bfdf-3e104fbfeff7';
const B = '7baec0ff-1111-4a4a-8b8b-000000000002';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

function liveProcess(): number {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  children.push(child);
  return child.pid as number;
}

/** The pid of a process that has exited: a live-session file naming it is left from a crash. */
function deadPid(): number {
  const r = spawnSync('sh', ['-c', 'echo $$']);
  return Number(r.stdout.toString().trim());
}

const task = (id: string, owner: string) => ({
  id,
  subject: `Task ${id}`,
  description: '',
  status: 'in_progress',
  owner,
  blocks: [],
  blockedBy: [],
});

/**
 * One session's transcript of a shared list: it creates its task and claims it as
 * `owner` (entries one second apart from `start`); the task file is stamped as its claim wrote it.
 */
function agentOn(
  config: string,
  dir: string,
  o: { sessionId: string; cwd: string; start: number; id: string; owner: string; ended: boolean; also?: Call[] },
) {
  const calls: Call[] = [
    { create: { id: o.id, subject: `Task ${o.id}` } },
    { update: { taskId: o.id, status: 'in_progress', owner: o.owner } },
    ...(o.also ?? []),
  ];
  writeTaskTranscript(config, { sessionId: o.sessionId, cwd: o.cwd, start: o.start, calls, ended: o.ended });
  writeTask(dir, task(o.id, o.owner));
  // The claim's call is the 4th entry (start + 3 s), its result the 5th.
  const at = (o.start + 3_500) / 1000;
  fs.utimesSync(path.join(dir, `${o.id}.json`), at, at);
}

function sharedWorld(opts: { liveAlsoClaims?: boolean; liveTakesOver?: boolean } = {}) {
  const config = tempConfig();
  const home = path.join(config, 'home');
  const cwd = path.join(home, 'ci');
  fs.mkdirSync(cwd, { recursive: true });
  const dir = path.join(config, 'tasks', 'nightly');
  fs.mkdirSync(dir, { recursive: true });
  const start = Date.now() - 20 * 60_000;
  agentOn(config, dir, { sessionId: CRASHED, cwd, start, id: '1', owner: 'worker-c', ended: false });
  writeLiveSession(config, { pid: deadPid(), sessionId: CRASHED, cwd, start, procStartTicks: '1' });
  const also: Call[] = opts.liveAlsoClaims
    ? [{ update: { taskId: '3', owner: 'worker-c' } }]
    : opts.liveTakesOver
      ? [{ update: { taskId: '1', status: 'in_progress' } }]
      : [];
  agentOn(config, dir, { sessionId: LIVE, cwd, start: start + 60_000, id: '2', owner: 'worker-l', ended: false, also });
  if (opts.liveAlsoClaims) {
    writeTask(dir, task('3', 'worker-c'));
    const at = (start + 60_000 + 5_500) / 1000;
    fs.utimesSync(path.join(dir, '3.json'), at, at);
  }
  if (opts.liveTakesOver) {
    // The live session's start of #1 wrote it last.
    const at = (start + 60_000 + 5_500) / 1000;
    fs.utimesSync(path.join(dir, '1.json'), at, at);
  }
  writeLiveSession(config, { pid: liveProcess(), sessionId: LIVE, cwd, start: start + 60_000 });
  const env = { HOME: home, CLAUDE_CODE_TASK_LIST_ID: undefined };
  return { config, cwd, dir, env };
}

describe('a shared list, one of whose sessions crashed while another works on', () => {
  it("the crashed session's owner is gone: release --gone gives its task back, not the live one's", () => {
    const w = sharedWorld();
    const opts = { cwd: w.cwd, env: w.env };
    const dry = run(w.config, ['-l', 'nightly', 'release', '--gone', '--dry-run'], opts);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe('Would release task #1 from worker-c (in_progress -> pending; session c1a55e00 crashed): Task 1\n');
    expect(dry.stderr).toBe('');
    const released = run(w.config, ['-l', 'nightly', 'release', '--gone', '--json'], opts);
    expect(released.code, released.stderr).toBe(0);
    expect((JSON.parse(released.stdout) as Array<{ id: string; released: boolean }>).map((r) => [r.id, r.released])).toEqual([['1', true]]);
    expect(readJson(path.join(w.dir, '1.json'))).toMatchObject({ status: 'pending' });
    expect(readJson(path.join(w.dir, '1.json'))).not.toHaveProperty('owner');
    expect(readJson(path.join(w.dir, '2.json'))).toMatchObject({ owner: 'worker-l', status: 'in_progress' });
  });

  it('an owner a live session also set is not gone: nothing is released', () => {
    const w = sharedWorld({ liveAlsoClaims: true });
    const r = run(w.config, ['-l', 'nightly', 'release', '--gone'], { cwd: w.cwd, env: w.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/nothing released/);
    expect(readJson(path.join(w.dir, '1.json'))).toMatchObject({ owner: 'worker-c', status: 'in_progress' });
  });

  it('a task a live session took up since is its work, whoever its owner: nothing is released', () => {
    const w = sharedWorld({ liveTakesOver: true });
    const r = run(w.config, ['-l', 'nightly', 'release', '--gone', '--dry-run'], { cwd: w.cwd, env: w.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/nothing released/);
  });
});

describe('a live session in the same folder that cannot see the list', () => {
  it("stands in no one's way: the hint of tasks list and release --gone agree", () => {
    const config = tempConfig();
    const home = path.join(config, 'home');
    const proj = path.join(home, 'work', 'web');
    fs.mkdirSync(proj, { recursive: true });
    const started = Date.now() - 60 * 60_000;
    writeTranscript(config, { sessionId: A, cwd: proj, prompt: 'the old branch', start: started, end: started + 10 * 60_000 });
    const dir = path.join(config, 'tasks', A);
    fs.mkdirSync(dir, { recursive: true });
    writeTask(dir, task('1', 'worker-1'));
    // Another session, started later in the same folder, on its own list.
    writeTranscript(config, { sessionId: B, cwd: proj, prompt: 'another branch', start: Date.now() - 5 * 60_000, end: Date.now() - 1000 });
    writeTask(path.join(config, 'tasks', B), task('1', 'worker-b'));
    writeLiveSession(config, { pid: liveProcess(), sessionId: B, cwd: proj, start: Date.now() - 5 * 60_000 });
    const env = { HOME: home };
    const list = run(config, ['-l', A, 'list'], { cwd: proj, env });
    expect(list.stderr).toContain('release --gone gives them back');
    const r = run(config, ['-l', A, 'release', '--gone'], { cwd: proj, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Released task #1 from worker-1 (in_progress -> pending): Task 1\n');
    expect(readJson(path.join(config, 'tasks', B, '1.json'))).toMatchObject({ owner: 'worker-b' });
  });
});

describe('why an owner is gone, as the dry run says it: the end its transcripts show', () => {
  /**
   * A session that ended in a folder where a Claude Code process (started before it) now
   * runs another session: a live-session file is needed, and its process must run, so
   * the built binary is run (its process probe reads /proc).
   */
  function endedBeforeLive(opts: { cleared: boolean }) {
    const config = tempConfig();
    const home = path.join(config, 'home');
    const proj = path.join(home, 'work', 'web');
    fs.mkdirSync(proj, { recursive: true });
    const started = Date.now() - 60 * 60_000;
    writeTranscript(config, { sessionId: A, cwd: proj, prompt: 'the old branch', start: started + 60_000, end: started + 10 * 60_000 });
    const dir = path.join(config, 'tasks', A);
    writeTask(dir, task('1', 'worker-1'));
    writeTask(dir, { ...task('2', 'worker-1'), status: 'pending' });
    if (opts.cleared) writeClearedTranscript(config, { sessionId: B, cwd: proj, at: started + 10 * 60_000 + 500, firstSession: A });
    else writeTranscript(config, { sessionId: B, cwd: proj, prompt: 'a new prompt', start: started + 20 * 60_000, end: Date.now() - 1000 });
    writeLiveSession(config, { pid: liveProcess(), sessionId: B, cwd: proj, status: 'idle', start: started });
    const tasks = (...args: string[]) => run(config, ['-l', A, ...args], { cwd: proj, env: { HOME: home } });
    return { tasks };
  }

  it('a session that ended before the live one began, with no /clear in its transcripts: "ended", never "was cleared"', () => {
    const { tasks } = endedBeforeLive({ cleared: false });
    const dry = tasks('release', '--gone', '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    // What the real run would say of each task, and why.
    expect(dry.stdout).toBe(
      [
        'Would release task #1 from worker-1 (in_progress -> pending; session 2d483082 ended): Task 1',
        'Would release task #2 from worker-1 (session 2d483082 ended): Task 2',
        '',
      ].join('\n'),
    );
    expect(tasks('list').stderr).toContain('owned by agents whose session 2d483082 ended:');
    const real = tasks('release', '--gone');
    expect(real.code, real.stderr).toBe(0);
    expect(real.stdout).toBe(
      ['Released task #1 from worker-1 (in_progress -> pending): Task 1', 'Released task #2 from worker-1: Task 2', ''].join('\n'),
    );
  });

  it('a session /clear replaced, as the transcript after it shows: "was cleared"', () => {
    const { tasks } = endedBeforeLive({ cleared: true });
    const dry = tasks('release', '--gone', '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^Would release task #1 from worker-1 \(in_progress -> pending; session 2d483082 was cleared\): Task 1\n/);
  });
});
