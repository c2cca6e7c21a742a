import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, readJson, runAsync, snapshotDir, tempConfig, writeTask } from '../helpers/cli.js';

/**
 * Exit 5 promises "busy, nothing written: safe to retry". A write that changes several
 * tasks (a new task and the other side of its edge, both sides of an added edge) must
 * keep that promise when a task it needs is locked by a live agent past the retry budget
 * (about 2.6 s): nothing of it on disk, nothing in the journal; then, the lock released,
 * the same command retried makes the change exactly once, both sides of each edge.
 */

const HOLD = path.join(ROOT, 'test', 'helpers', 'hold-lock.mjs');
const t = (id: string) => ({ id, subject: `task ${id}`, description: '', status: 'pending', blocks: [], blockedBy: [] });

/** A process holding a task's lock as an agent does (refreshed); resolves once held. */
function holdLock(target: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HOLD, target, '60000'], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout?.on('data', (d: Buffer) => {
      if (d.toString().includes('held')) resolve(child);
    });
    child.on('error', reject);
  });
}

async function release(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  // SIGTERM: proper-lockfile removes the locks it holds as the process ends.
  child.kill('SIGTERM');
  await exited;
}

type Task = { id: string; blocks: string[]; blockedBy: string[] };

/** A list with tasks 1-3, #3's lock held by a live process; the command run once busy, once free. */
async function busyThenRetried(args: string[], edges: Record<string, Partial<Task>> = {}, config = tempConfig()) {
  const list = path.join(config, 'tasks', 'l');
  for (const id of ['1', '2', '3']) writeTask(list, { ...t(id), ...edges[id] });
  // The list lock's target, as agents leave it: taking the list lock is no change.
  fs.writeFileSync(path.join(list, '.lock'), '');
  const before = snapshotDir(list);
  const holder = await holdLock(path.join(list, '3.json'));
  let busy: Awaited<ReturnType<typeof runAsync>>;
  let afterBusy: Record<string, string>;
  try {
    busy = await runAsync(config, ['-l', 'l', ...args]);
    afterBusy = snapshotDir(list);
  } finally {
    await release(holder);
  }
  const log = await runAsync(config, ['-l', 'l', 'log', '--json']);
  expect(snapshotDir(list)).not.toHaveProperty(['3.json.lock']);
  const retried = await runAsync(config, ['-l', 'l', ...args]);
  const task = (id: string) => readJson(path.join(list, `${id}.json`)) as Task;
  return { busy, before, afterBusy, log, retried, task, list };
}

describe.concurrent('exit 5 leaves nothing written, so a retry is safe', () => {
  it('create --blocked-by a locked task: exit 5, no new task; retried: one task, both sides', async () => {
    const r = await busyThenRetried(['create', 'X', '--blocked-by', '3']);
    expect(r.busy.code).toBe(5);
    expect(r.busy.stdout).toBe('');
    expect(r.afterBusy).toEqual({ ...r.before, '3.json.lock': '<dir>' });
    expect(JSON.parse(r.log.stdout)).toEqual([]);
    expect(r.retried.code).toBe(0);
    expect(r.retried.stdout).toBe('4\n');
    expect(r.task('4').blockedBy).toEqual(['3']);
    expect(r.task('3').blocks).toEqual(['4']);
  });

  it('create --blocks a locked task: exit 5, no new task; retried: one task, both sides', async () => {
    const r = await busyThenRetried(['create', 'X', '--blocks', '3']);
    expect(r.busy.code).toBe(5);
    expect(r.afterBusy).toEqual({ ...r.before, '3.json.lock': '<dir>' });
    expect(JSON.parse(r.log.stdout)).toEqual([]);
    expect(r.retried.code).toBe(0);
    expect(r.retried.stdout).toBe('4\n');
    expect(r.task('4').blocks).toEqual(['3']);
    expect(r.task('3').blockedBy).toEqual(['4']);
  });

  it('update --add-blocks a locked task: exit 5, neither side written; retried: both sides', async () => {
    const r = await busyThenRetried(['update', '2', '--add-blocks', '3']);
    expect(r.busy.code).toBe(5);
    expect(r.afterBusy).toEqual({ ...r.before, '3.json.lock': '<dir>' });
    expect(JSON.parse(r.log.stdout)).toEqual([]);
    expect(r.retried.code).toBe(0);
    expect(r.task('2').blocks).toEqual(['3']);
    expect(r.task('3').blockedBy).toEqual(['2']);
  });

  it('update --add-blocked-by a locked task: exit 5, neither side written; retried: both sides', async () => {
    const r = await busyThenRetried(['update', '2', '--add-blocked-by', '3']);
    expect(r.busy.code).toBe(5);
    expect(r.afterBusy).toEqual({ ...r.before, '3.json.lock': '<dir>' });
    expect(JSON.parse(r.log.stdout)).toEqual([]);
    expect(r.retried.code).toBe(0);
    expect(r.task('2').blockedBy).toEqual(['3']);
    expect(r.task('3').blocks).toEqual(['2']);
  });

  it('block 2 --by 1,3 with #3 locked: exit 5, not even the edge from #1; retried: both edges, both sides', async () => {
    const r = await busyThenRetried(['block', '2', '--by', '1,3']);
    expect(r.busy.code).toBe(5);
    expect(r.afterBusy).toEqual({ ...r.before, '3.json.lock': '<dir>' });
    expect(JSON.parse(r.log.stdout)).toEqual([]);
    expect(r.retried.code).toBe(0);
    expect(r.task('2').blockedBy).toEqual(['1', '3']);
    expect(r.task('1').blocks).toEqual(['2']);
    expect(r.task('3').blocks).toEqual(['2']);
  });

  it('unblock 2 with its blocker #3 locked: exit 5, neither side removed; retried: both sides', async () => {
    const r = await busyThenRetried(['unblock', '2'], { '2': { blockedBy: ['3'] }, '3': { blocks: ['2'] } });
    expect(r.busy.code).toBe(5);
    expect(r.afterBusy).toEqual({ ...r.before, '3.json.lock': '<dir>' });
    expect(JSON.parse(r.log.stdout)).toEqual([]);
    expect(r.retried.code).toBe(0);
    expect(r.task('2').blockedBy).toEqual([]);
    expect(r.task('3').blocks).toEqual([]);
  });

  it('delete 2 while #3, which names it, is locked: exit 5, nothing deleted; retried: deleted, #3 cleaned', async () => {
    const r = await busyThenRetried(['delete', '2'], { '2': { blocks: ['3'] }, '3': { blockedBy: ['2'] } });
    expect(r.busy.code).toBe(5);
    expect(r.afterBusy).toEqual({ ...r.before, '3.json.lock': '<dir>' });
    expect(JSON.parse(r.log.stdout)).toEqual([]);
    expect(r.retried.code).toBe(0);
    expect(fs.existsSync(path.join(r.list, '2.json'))).toBe(false);
    expect(r.task('3').blockedBy).toEqual([]);
  });

  it('import of a task blocked by #3 (matched by subject) with #3 locked: exit 5, nothing imported; retried: one task, both sides', async () => {
    const config = tempConfig();
    const input = path.join(config, 'tasks.json');
    const item = (id: string, subject: string, edges: Partial<Task>) => ({ ...t(id), subject, ...edges });
    fs.writeFileSync(input, JSON.stringify([item('1', 'task 3', { blocks: ['2'] }), item('2', 'X', { blockedBy: ['1'] })]));
    const r = await busyThenRetried(['import', input], {}, config);
    expect(r.busy.code).toBe(5);
    expect(r.afterBusy).toEqual({ ...r.before, '3.json.lock': '<dir>' });
    expect(JSON.parse(r.log.stdout)).toEqual([]);
    expect(r.retried.code).toBe(0);
    expect(r.task('4')).toMatchObject({ subject: 'X', blockedBy: ['3'] });
    expect(r.task('3').blocks).toEqual(['4']);
    expect(fs.existsSync(path.join(r.list, '5.json'))).toBe(false);
  });

  it('release --owner of an agent holding #1-#3, #3 locked: exit 5, none released; retried: all three', async () => {
    const held = { owner: 'w', status: 'in_progress' } as Partial<Task>;
    const r = await busyThenRetried(['release', '--owner', 'w'], { '1': held, '2': held, '3': held });
    expect(r.busy.code).toBe(5);
    expect(r.busy.stdout).toBe('');
    expect(r.afterBusy).toEqual({ ...r.before, '3.json.lock': '<dir>' });
    expect(JSON.parse(r.log.stdout)).toEqual([]);
    expect(r.retried.code, r.retried.stderr).toBe(0);
    for (const id of ['1', '2', '3']) expect(r.task(id)).toMatchObject({ status: 'pending' });
    for (const id of ['1', '2', '3']) expect(r.task(id)).not.toHaveProperty('owner');
  });
});
