/**
 * `tasks claim <id>` of a task in progress with no owner while the list's session runs on
 * another machine or in another container sharing this config folder (its live-session
 * file's pidDomain is not this one's): its process cannot be looked up here, so it may be
 * at work, as release --gone and every sign of life count it. Refused as for a session
 * live here, unless --force.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type BoardRun, postAction, startBoard } from '../helpers/board.js';
import { readJson, run, snapshotDir, tempConfig, writeTask } from '../helpers/cli.js';
import { writeLiveSession } from '../helpers/session-files.mjs';

const S = '5e6f7a8b-2222-4a4a-8b8b-000000000002';

const boards: BoardRun[] = [];
afterAll(() => {
  for (const b of boards) b.child.kill('SIGKILL');
});

function world() {
  const config = tempConfig();
  const proj = path.join(config, 'home', 'web');
  fs.mkdirSync(proj, { recursive: true });
  const dir = path.join(config, 'tasks', S);
  writeTask(dir, { id: '1', subject: 'task 1', description: '', status: 'in_progress', blocks: [], blockedBy: [] });
  // A pid of the other machine: nothing here runs under it.
  const file = writeLiveSession(config, { pid: 3_999_999, sessionId: S, cwd: proj, status: 'busy', procStartTicks: '123' });
  const live = readJson(file) as Record<string, unknown>;
  fs.writeFileSync(file, JSON.stringify({ ...live, pidDomain: 'linux:0123456789abcdef0123456789abcdef:pid:[4026531836]' }));
  const tasks = (args: string[]) => run(config, ['-l', S, ...args], { cwd: proj, timeoutMs: 30_000 });
  return { config, dir, tasks };
}

describe('claim <id>: a task in progress with no owner while the session runs where it cannot be checked', () => {
  it('is refused (exit 4, the session named), nothing written; --force claims it', () => {
    const w = world();
    const before = snapshotDir(w.dir);
    const gone = w.tasks(['release', '--gone', '--dry-run']);
    expect(gone.stdout).toBe('');
    const refused = w.tasks(['claim', '1', '--as', 'bob']);
    expect(refused.stderr).toContain('task #1 is in progress with no owner while session 5e6f7a8b');
    expect(refused.stderr).not.toContain('pid 3999999');
    expect(refused.code).toBe(4);
    expect(snapshotDir(w.dir)).toEqual(before);
    const forced = w.tasks(['claim', '1', '--as', 'bob', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
  });

  it("the board's Assign to me: 409, nothing written", async () => {
    const w = world();
    const before = snapshotDir(w.dir);
    const b = await startBoard(w.config, [], { USER: 'carol' });
    boards.push(b);
    const refused = await postAction(b, { action: 'claim', list: S, id: '1', expect: { status: 'in_progress', owner: null } });
    expect(refused.status).toBe(409);
    expect((JSON.parse(refused.body) as { error: { message: string } }).error.message).toContain(
      'task #1 is in progress with no owner while session 5e6f7a8b',
    );
    expect(snapshotDir(w.dir)).toEqual(before);
  });
});
