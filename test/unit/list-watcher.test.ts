import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ListWatcher, type ListWatcherOptions, type WatchUpdate } from '../../src/core/watch/list-watcher.js';
import { tempConfig, writeTask } from '../helpers/cli.js';

/** The watcher against a real folder and real fs.watch; timings are generous on purpose. */

const clock = { now: () => Date.now() };
const open: ListWatcher[] = [];
afterEach(() => {
  for (const w of open.splice(0)) w.close();
});

function start(dir: string, opts: Partial<ListWatcherOptions> = {}) {
  const updates: WatchUpdate[] = [];
  const errors: unknown[] = [];
  const watcher = new ListWatcher({ dir, clock, ...opts }, { onUpdate: (u) => updates.push(u), onError: (e) => errors.push(e) });
  open.push(watcher);
  const first = watcher.start();
  const events = () =>
    updates.flatMap((u) => u.events.map((e) => (e.type === 'list-cleared' ? `list-cleared ${e.tasks.length}` : `${e.type} ${e.task.id}`)));
  return { watcher, first, updates, errors, events };
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const task = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  subject: `s${id}`,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

describe('ListWatcher', () => {
  it('reports creates, updates and deletes made by plain writes', async () => {
    const dir = path.join(tempConfig(), 'tasks', 'l');
    writeTask(dir, task('1'));
    const w = start(dir, { rescanMs: 60_000 });
    expect([...w.first.snapshot.keys()]).toEqual(['1']);
    writeTask(dir, task('2'));
    await waitFor(() => w.events().includes('created 2'), 'created 2');
    writeTask(dir, task('1', { status: 'completed' }));
    await waitFor(() => w.events().includes('updated 1'), 'updated 1');
    fs.unlinkSync(path.join(dir, '2.json'));
    await waitFor(() => w.events().includes('deleted 2'), 'deleted 2');
    expect(w.events()).toEqual(['created 2', 'updated 1', 'deleted 2']);
    expect(w.errors).toEqual([]);
  });

  it('does not report lock heartbeats, temp files or the high-water mark', async () => {
    const dir = path.join(tempConfig(), 'tasks', 'l');
    writeTask(dir, task('1'));
    const w = start(dir, { rescanMs: 200 });
    fs.writeFileSync(path.join(dir, '.lock'), '');
    fs.mkdirSync(path.join(dir, '1.json.lock'));
    fs.mkdirSync(path.join(dir, '.lock.lock'));
    for (let i = 0; i < 5; i++) {
      const t = new Date(Date.now() + i * 1000);
      fs.utimesSync(path.join(dir, '1.json.lock'), t, t);
      fs.writeFileSync(path.join(dir, `.1.json.${i}.tmp`), '{"half":');
      fs.writeFileSync(path.join(dir, '.highwatermark'), String(i + 5));
      await sleep(60);
    }
    await sleep(800); // several safety-net rescans
    expect(w.updates).toEqual([]);
  });

  it('neither deletes nor changes a task whose file is caught half-written', async () => {
    const dir = path.join(tempConfig(), 'tasks', 'l');
    writeTask(dir, task('1'));
    const w = start(dir, { rescanMs: 150 });
    fs.writeFileSync(path.join(dir, '1.json'), '{"id": "1", "subject": "s1", "descr');
    await waitFor(() => w.updates.some((u) => u.problems.length > 0), 'the problem to be reported once it lasted');
    expect(w.events()).toEqual([]);
    expect(w.watcher.current.snapshot.get('1')).toEqual(task('1'));
    writeTask(dir, task('1', { owner: 'amy' }));
    await waitFor(() => w.events().includes('updated 1'), 'updated 1');
    expect(w.updates.at(-1)?.problems).toEqual([]);
  });

  it('reports a file torn while it watches once its grace ends, not at the next periodic rescan', async () => {
    const dir = path.join(tempConfig(), 'tasks', 'l');
    writeTask(dir, task('1'));
    // As notify follows many lists: a rescan every 10 s only; nothing else comes after the torn write.
    const w = start(dir, { rescanMs: 10_000, problemGraceMs: 300 });
    const tornAt = Date.now();
    fs.writeFileSync(path.join(dir, '1.json'), '{"id": "1", "subject": "s1", "descr');
    await waitFor(() => w.updates.some((u) => u.problems.length > 0), 'the problem to be reported', 5_000);
    const after = Date.now() - tornAt;
    expect(after).toBeGreaterThanOrEqual(300);
    expect(after).toBeLessThan(5_000);
    expect(w.events()).toEqual([]);
  });

  it('re-attaches when the folder is removed and made again', async () => {
    const dir = path.join(tempConfig(), 'tasks', 'l');
    writeTask(dir, task('1'));
    writeTask(dir, task('2'));
    const w = start(dir, { rescanMs: 60_000 });
    fs.rmSync(dir, { recursive: true });
    await waitFor(() => w.updates.some((u) => !u.exists), 'the folder to be seen gone');
    expect(w.events()).toEqual(['list-cleared 2']);
    writeTask(dir, task('3'));
    await waitFor(() => w.events().includes('created 3'), 'created 3 in the new folder');
    writeTask(dir, task('3', { status: 'in_progress' }));
    await waitFor(() => w.events().includes('updated 3'), 'updated 3 in the new folder');
  });

  it('waits for a list that does not exist yet, however deep the missing part', async () => {
    const config = tempConfig();
    const dir = path.join(config, 'tasks', 'later');
    const w = start(dir, { rescanMs: 60_000 });
    expect(w.first.exists).toBe(false);
    await sleep(100);
    writeTask(dir, task('1'));
    await waitFor(() => w.events().includes('created 1'), 'created 1');
    expect(w.updates.at(-1)?.exists).toBe(true);
  });

  it('sees, by its periodic rescan, a change no watch event reports', async () => {
    const config = tempConfig();
    const dir = path.join(config, 'tasks', 'l');
    writeTask(dir, task('1'));
    // A hard link elsewhere: writes through it change 1.json's content, but inotify
    // reports them on the other folder only, as if the event had been dropped.
    const alias = path.join(config, 'alias.json');
    fs.linkSync(path.join(dir, '1.json'), alias);
    const w = start(dir, { rescanMs: 300 });
    fs.writeFileSync(alias, JSON.stringify(task('1', { status: 'completed' }), null, 2));
    await waitFor(() => w.events().includes('updated 1'), 'updated 1 by the safety net');
  });
});
