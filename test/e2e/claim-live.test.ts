/**
 * `tasks claim <id>` of a task in progress with no owner: Claude Code's rule would let it
 * be taken, but while a live session is on the list it is most likely that session's
 * work (a main agent starts its work without naming itself owner), so it is refused
 * (exit 4) unless --force. Through the built binary, with a real process holding the
 * live-session file.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type BoardRun, postAction, startBoard } from '../helpers/board.js';
import { readJson, run, snapshotDir, stderrError, tempConfig, writeTask } from '../helpers/cli.js';
import { contractProblems } from '../helpers/json-contract.js';
import { writeLiveSession } from '../helpers/session-files.mjs';

const S = '5e6f7a8b-1111-4a4a-8b8b-000000000001';

const children: ChildProcess[] = [];
const boards: BoardRun[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  for (const b of boards) b.child.kill('SIGKILL');
});

function liveProcess(): ChildProcess {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  children.push(child);
  return child;
}

const task = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  subject: `task ${id}`,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

/** The session S's own list: #1 and #2 in progress with no owner, #3 pending, #4 in progress by worker-1; S live. */
function world() {
  const config = tempConfig();
  const proj = path.join(config, 'home', 'web');
  fs.mkdirSync(proj, { recursive: true });
  const dir = path.join(config, 'tasks', S);
  writeTask(dir, task('1', { status: 'in_progress' }));
  writeTask(dir, task('2', { status: 'in_progress', owner: '' }));
  writeTask(dir, task('3'));
  writeTask(dir, task('4', { status: 'in_progress', owner: 'worker-1' }));
  const agent = liveProcess();
  writeLiveSession(config, { pid: agent.pid as number, sessionId: S, cwd: proj, status: 'busy' });
  const tasks = (args: string[], env: Record<string, string> = {}) =>
    run(config, ['-l', S, ...args], { cwd: proj, env, timeoutMs: 30_000 });
  const owner = (id: string) => (readJson(path.join(dir, `${id}.json`)) as { owner?: string }).owner;
  return { config, dir, agent, tasks, owner };
}

describe('claim <id>: a task in progress with no owner while a live session is on the list', () => {
  it('is refused: exit 4, one line naming the session and --force, nothing changed; --json says why', () => {
    const w = world();
    const before = snapshotDir(w.dir);
    for (const id of ['1', '2']) {
      const r = w.tasks(['claim', id, '--as', 'bob']);
      expect(r.code, r.stderr).toBe(4);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(
        `task #${id} is in progress with no owner while session 5e6f7a8b (pid ${w.agent.pid}) is live on this list`,
      );
      expect(r.stderr).toContain('--force');
    }
    // --start and --busy-check take the same path to the task.
    expect(w.tasks(['claim', '1', '--as', 'bob', '--start', '--busy-check']).code).toBe(4);
    const json = w.tasks(['claim', '1', '--as', 'bob', '--json']);
    expect(json.code).toBe(4);
    expect(stderrError(json.stderr)).toMatchObject({
      error: {
        code: 'conflict',
        reason: 'in_progress_live',
        id: '1',
        hint: expect.stringContaining('--force'),
        live: [{ sessionId: S, pid: w.agent.pid }],
      },
    });
    expect(contractProblems('stderr', json.stderr)).toEqual([]);
    expect(snapshotDir(w.dir)).toEqual(before);
  });

  it('--force claims it as today; other claims are unchanged (pending: taken; owned: already_claimed)', () => {
    const w = world();
    const forced = w.tasks(['claim', '1', '--as', 'bob', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(w.owner('1')).toBe('bob');
    const pending = w.tasks(['claim', '3', '--as', 'bob']);
    expect(pending.code, pending.stderr).toBe(0);
    expect(w.owner('3')).toBe('bob');
    const owned = w.tasks(['claim', '4', '--as', 'bob', '--force']);
    expect(owned.code).toBe(4);
    expect(owned.stderr).toContain('already');
    expect(w.owner('4')).toBe('worker-1');
    expect(w.tasks(['claim', '--next', '--as', 'bob', '--force']).code).toBe(2);
  });

  it("the live session's own claim is not refused; once the session's process is gone, the claim goes on", async () => {
    const w = world();
    const own = w.tasks(['claim', '1', '--as', 'main'], { CLAUDE_CODE_SESSION_ID: S });
    expect(own.code, own.stderr).toBe(0);
    expect(w.owner('1')).toBe('main');
    const gone = new Promise((resolve) => w.agent.once('exit', resolve));
    w.agent.kill('SIGKILL');
    await gone;
    const after = w.tasks(['claim', '2', '--as', 'bob']);
    expect(after.code, after.stderr).toBe(0);
    expect(w.owner('2')).toBe('bob');
  });
});

describe("the board's Assign to me: the same rule", () => {
  it('a task in progress with no owner while the session is live: 409, the session named, nothing written', async () => {
    const w = world();
    const before = snapshotDir(w.dir);
    const b = await startBoard(w.config, [], { USER: 'carol' });
    boards.push(b);
    const refused = await postAction(b, { action: 'claim', list: S, id: '1', expect: { status: 'in_progress', owner: null } });
    expect(refused.status).toBe(409);
    const message = (JSON.parse(refused.body) as { error: { message: string } }).error.message;
    expect(message).toContain('task #1 is in progress with no owner while session 5e6f7a8b');
    expect(message).toContain(`tasks -l ${S} claim 1 --force`);
    expect(snapshotDir(w.dir)).toEqual(before);
    // A pending task is claimed as before.
    const ok = await postAction(b, { action: 'claim', list: S, id: '3', expect: { status: 'pending', owner: null } });
    expect(ok.status, ok.body).toBe(200);
    expect(w.owner('3')).toBe('carol');
  });
});
