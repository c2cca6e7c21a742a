/**
 * The board's Release gone work is judged with the sessions as they are at the click, not
 * as the board last read them. On a list two jobs share, the one killed holding #1 (in
 * progress, no owner) is gone; the other, live, takes #1 up in the middle of a turn (its
 * TaskUpdate setting #1 in progress again, which Claude Code answers without writing the
 * file), which changes no live-session file either. `release --gone` then leaves #1 (a
 * live session took it up since); the board, whose sessions were read before that call,
 * must leave it too.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type BoardRun, postAction, request, startBoard } from '../helpers/board.js';
import { run, snapshotDir, tempConfig } from '../helpers/cli.js';
import { procStart, writeLiveSession } from '../helpers/session-files.mjs';
import { type Call, writeTaskTranscript } from '../helpers/task-transcript.js';

const PERSON = { USER: 'carol', LOGNAME: 'carol' };
const KILLED = '1a2b3c4d-1111-4a4a-8b8b-000000000001';
const LIVE = '5e6f7a8b-2222-4a4a-8b8b-000000000002';

const children: ChildProcess[] = [];
let board: BoardRun | undefined;
afterEach(async () => {
  await board?.stop();
  board = undefined;
});
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

function world() {
  const config = tempConfig();
  const job = (n: number) => {
    const d = path.join(config, 'home', 'ci', `job-${n}`);
    fs.mkdirSync(d, { recursive: true });
    return d;
  };
  const [job1, job2] = [job(1), job(2)];
  const dir = path.join(config, 'tasks', 'ci');
  fs.mkdirSync(dir, { recursive: true });
  const at = Date.now() - 5 * 60_000;
  const write = (id: string, subject: string, t: number, extra: Record<string, unknown> = {}) => {
    const file = path.join(dir, `${id}.json`);
    fs.writeFileSync(
      file,
      JSON.stringify({ id, subject, description: '', status: 'in_progress', blocks: [], blockedBy: [], ...extra }, null, 2),
    );
    fs.utimesSync(file, t / 1000, t / 1000);
  };
  // Job 1 made #1 and started it, then was killed (its live-session file names a dead pid).
  writeTaskTranscript(config, {
    sessionId: KILLED,
    cwd: job1,
    start: at - 1000,
    ended: false,
    calls: [
      { create: { id: '1', subject: 'Build' }, time: at },
      { update: { taskId: '1', status: 'in_progress' }, time: at + 1000 },
    ],
  });
  write('1', 'Build', at + 1005);
  const dead = Number(spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim());
  writeLiveSession(config, { pid: dead, sessionId: KILLED, cwd: job1, status: 'busy', start: at - 2000, procStartTicks: '1' });
  // Job 2, live and busy on the same list (its process names it), made #2 and started it.
  const job2Calls: Call[] = [
    { create: { id: '2', subject: 'Test' }, time: at + 2000 },
    { update: { taskId: '2', status: 'in_progress' }, time: at + 3000 },
  ];
  writeTaskTranscript(config, { sessionId: LIVE, cwd: job2, start: at + 1500, ended: false, calls: job2Calls });
  write('2', 'Test', at + 3005);
  const agent = spawn('sleep', ['600'], {
    argv0: 'claude',
    cwd: job2,
    stdio: 'ignore',
    env: { ...process.env, CLAUDE_CODE_TASK_LIST_ID: 'ci', CLAUDE_CONFIG_DIR: config },
  });
  children.push(agent);
  writeLiveSession(config, {
    pid: agent.pid as number,
    sessionId: LIVE,
    cwd: job2,
    status: 'busy',
    start: at + 1000,
    procStartTicks: procStart(agent.pid as number),
  });
  /** Job 2 takes #1 up in its turn: its TaskUpdate, recorded in its transcript; neither #1 nor a live-session file changes. */
  const takeUp = () => {
    const now = Date.now();
    writeTaskTranscript(config, {
      sessionId: LIVE,
      cwd: job2,
      start: at + 1500,
      ended: false,
      calls: [...job2Calls, { update: { taskId: '1', status: 'in_progress' }, time: now - 2000 }],
    });
  };
  return { config, dir, job2, takeUp };
}

describe("the board's Release gone work: the sessions as they are at the click", () => {
  it("a live session's take-up of #1 since the board read the sessions: nothing released, as release --gone leaves it", async () => {
    const w = world();
    const offered = run(w.config, ['-l', 'ci', 'release', '--gone', '--dry-run'], { env: PERSON });
    expect(offered.stdout).toMatch(/^Would put task #1 back to pending/);
    board = await startBoard(w.config, [], PERSON);
    const preview = await request(board.port, `/${board.token}/api/gone?list=ci`);
    expect((JSON.parse(preview.body) as { targets: Array<{ id: string }> }).targets.map((t) => t.id)).toEqual(['1']);
    w.takeUp();
    expect(run(w.config, ['-l', 'ci', 'release', '--gone', '--dry-run'], { env: PERSON }).stdout).toBe('');
    const before = snapshotDir(w.dir);
    const r = await postAction(board, { action: 'release-gone', list: 'ci', ids: ['1'], force: false });
    expect(r.status, r.body).toBe(409);
    expect(snapshotDir(w.dir)).toEqual(before);
  });
});
