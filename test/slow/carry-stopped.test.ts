/**
 * A carry that cannot finish is all or nothing: stopped by Ctrl-C, by a source task's
 * lock that an agent holds and keeps refreshing, or killed outright, it never leaves
 * copies that the next carry would copy again, nor marks without copies. Taking back
 * never deletes a copy an agent on the target has touched.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, baseEnv, ROOT, readJson, run, tempConfig, writeTask } from '../helpers/cli.js';

interface FileTask {
  id: string;
  subject: string;
  status: string;
  owner?: string;
  blocks: string[];
  blockedBy: string[];
  metadata?: Record<string, { list: string; id: string }>;
}

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

const task = (id: string, subject: string, extra: Partial<FileTask> = {}) => ({
  id,
  subject,
  description: 'd'.repeat(200),
  status: 'pending',
  blocks: [] as string[],
  blockedBy: [] as string[],
  ...extra,
});

function world() {
  const config = tempConfig();
  const listDir = (id: string) => path.join(config, 'tasks', id);
  const tasks = (id: string): FileTask[] =>
    fs.existsSync(listDir(id))
      ? fs
          .readdirSync(listDir(id))
          .filter((f) => /^\d+\.json$/.test(f))
          .map((f) => readJson(path.join(listDir(id), f)) as FileTask)
          .sort((a, b) => Number(a.id) - Number(b.id))
      : [];
  const cli = (args: string[]) => run(config, args);
  const start = (args: string[]) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: baseEnv(config), cwd: config });
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.resume();
    const done = new Promise<{ code: number | null; signal: string | null; stderr: string }>((resolve) =>
      child.on('close', (code, signal) => resolve({ code, signal, stderr })),
    );
    return { child, done };
  };
  return { config, listDir, tasks, cli, start };
}

/** A chain of n tasks, every tenth completed. */
function chain(dir: string, n: number): void {
  for (let i = 1; i <= n; i++) {
    writeTask(
      dir,
      task(String(i), `Task ${i}`, {
        status: i % 10 === 0 ? 'completed' : 'pending',
        blocks: i < n ? [String(i + 1)] : [],
        blockedBy: i > 1 ? [String(i - 1)] : [],
      }),
    );
  }
}

/**
 * The two lists agree: every source task marked has its copy, every copy's source is
 * marked with it, and no source task has two copies.
 */
function agreement(w: ReturnType<typeof world>, from: string, to: string) {
  const source = w.tasks(from);
  const copies = w.tasks(to).filter((t) => t.metadata?.carriedFrom?.list === from);
  const perSource = new Map<string, number>();
  for (const c of copies)
    perSource.set(c.metadata?.carriedFrom?.id as string, (perSource.get(c.metadata?.carriedFrom?.id as string) ?? 0) + 1);
  const duplicated = [...perSource].filter(([, n]) => n > 1).map(([id]) => id);
  const markedWithoutCopy = source
    .filter((t) => t.metadata?.carriedTo !== undefined)
    .filter((t) => !copies.some((c) => c.id === t.metadata?.carriedTo?.id && c.metadata?.carriedFrom?.id === t.id))
    .map((t) => t.id);
  const copyWithoutMark = copies
    .filter((c) => source.find((t) => t.id === c.metadata?.carriedFrom?.id)?.metadata?.carriedTo?.id !== c.id)
    .map((c) => c.id);
  return {
    copies: copies.length,
    marked: source.filter((t) => t.metadata?.carriedTo).length,
    duplicated,
    markedWithoutCopy,
    copyWithoutMark,
  };
}

async function until(cond: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('carry stopped part-way', () => {
  it('Ctrl-C mid-carry: the copies made are taken back, the message names carry; carrying again copies each task once', async () => {
    const w = world();
    chain(w.listDir('big'), 900);
    const carry = w.start(['-l', 'bigt', 'carry', '--from', 'big']);
    await until(() => w.tasks('bigt').length >= 100);
    carry.child.kill('SIGINT');
    const r = await carry.done;
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toMatch(/^error: carry interrupted; nothing carried \(the \d+ copies made were taken back\)/m);
    expect(r.stderr).not.toMatch(/import/);
    expect(agreement(w, 'big', 'bigt')).toEqual({ copies: 0, marked: 0, duplicated: [], markedWithoutCopy: [], copyWithoutMark: [] });
    const again = w.cli(['-l', 'bigt', 'carry', '--from', 'big']);
    expect(again.code, again.stderr).toBe(0);
    expect(agreement(w, 'big', 'bigt')).toEqual({ copies: 810, marked: 810, duplicated: [], markedWithoutCopy: [], copyWithoutMark: [] });
  }, 120_000);

  it('a carry killed outright leaves copies without marks: the next carry marks their sources, copying nothing twice', async () => {
    const w = world();
    chain(w.listDir('big'), 900);
    const carry = w.start(['-l', 'bigt', 'carry', '--from', 'big']);
    await until(() => w.tasks('bigt').length >= 100);
    carry.child.kill('SIGKILL');
    await carry.done;
    const left = agreement(w, 'big', 'bigt');
    expect(left.copies).toBeGreaterThan(0);
    expect(left.copyWithoutMark.length).toBeGreaterThan(0);
    const again = w.cli(['-l', 'bigt', 'carry', '--from', 'big', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(agreement(w, 'big', 'bigt')).toEqual({ copies: 810, marked: 810, duplicated: [], markedWithoutCopy: [], copyWithoutMark: [] });
    const doc = JSON.parse(again.stdout) as { from: Array<{ copied: unknown[]; carried: unknown[] }> };
    expect(doc.from[0]?.copied).toHaveLength(left.copyWithoutMark.length);
    expect(doc.from[0]?.carried).toHaveLength(810 - left.copyWithoutMark.length);
    expect(again.stderr).toMatch(/copied there before by a carry that stopped: marked, not copied again/);
    // The chain holds across the copies of both runs: #n+1 of the source waits for #n's copy.
    const target = w.tasks('bigt');
    const copyOf = new Map(target.map((t) => [t.metadata?.carriedFrom?.id as string, t]));
    for (const t of target) {
      const n = Number(t.metadata?.carriedFrom?.id);
      if (n > 1 && (n - 1) % 10 !== 0) expect(t.blockedBy, `copy of #${n}`).toEqual([copyOf.get(String(n - 1))?.id]);
    }
  }, 120_000);

  it("a source task's lock held and refreshed by an agent: exit 5 with nothing written; trying again carries each task once", async () => {
    const w = world();
    for (const s of ['One', 'Two', 'Three', 'Four']) w.cli(['-l', 'src', 'create', s]);
    const holder = spawn(process.execPath, [path.join(ROOT, 'test/helpers/hold-lock.mjs'), path.join(w.listDir('src'), '3.json'), '7000'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(holder);
    await new Promise<void>((resolve) => holder.stdout?.once('data', () => resolve()));
    const before = w.tasks('src');
    const r = w.cli(['-l', 'dst', 'carry', '--from', 'src']);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toMatch(/^error: carry stopped: .*task #3.*; nothing carried \(the 4 copies made were taken back\)/m);
    expect(w.tasks('dst')).toEqual([]);
    // The run made the target's folder and took nothing: no folder (nor journal) is left behind.
    expect(fs.existsSync(w.listDir('dst'))).toBe(false);
    expect(w.tasks('src')).toEqual(before);
    await new Promise((resolve) => holder.on('close', resolve));
    const again = w.cli(['-l', 'dst', 'carry', '--from', 'src']);
    expect(again.code, again.stderr).toBe(0);
    expect(agreement(w, 'src', 'dst')).toEqual({ copies: 4, marked: 4, duplicated: [], markedWithoutCopy: [], copyWithoutMark: [] });
  }, 60_000);

  it('a copy an agent on the target started is never taken back, even when its source changed meanwhile', async () => {
    const w = world();
    w.cli(['-l', 'src', 'create', 'One']);
    w.cli(['-l', 'src', 'create', 'Two']);
    w.cli(['-l', 'dst', 'create', 'Existing']);
    const src = w.listDir('src');
    // The source's agent is mid-TaskUpdate of #2: its lock is held.
    fs.mkdirSync(path.join(src, '2.json.lock'));
    const carry = w.start(['-l', 'dst', 'carry', '--from', 'src']);
    await until(() => fs.existsSync(path.join(w.listDir('dst'), '3.json')));
    // An agent on the target starts the copy of #2, under the task lock as TaskUpdate takes it.
    const started = w.cli(['-l', 'dst', 'update', '3', '--status', 'in_progress', '--owner', 'target-agent', '--as', 'target-agent']);
    expect(started.code, started.stderr).toBe(0);
    // The source's agent finishes #2 and lets its lock go.
    const file = path.join(src, '2.json');
    fs.writeFileSync(file, JSON.stringify({ ...(readJson(file) as object), status: 'completed' }, null, 2));
    fs.rmdirSync(path.join(src, '2.json.lock'));
    const r = await carry.done;
    expect(r.code, r.stderr).toBe(0);
    const copy = w.tasks('dst').find((t) => t.id === '3');
    expect(copy).toMatchObject({ subject: 'Two', status: 'in_progress', owner: 'target-agent' });
    expect(r.stderr).toMatch(
      /#2 not carried: changed while it was carried \(now completed\); its copy #3 stays in list "dst": changed in its new list since it was copied \(now in_progress, owner target-agent\)/,
    );
    // One task carried (#1 -> #2), said so; the copy that stays is no carried task.
    expect(r.stderr).toMatch(/carried 1 task from list "src" into list "dst" \(#2\)/);
  }, 60_000);

  it('a carry into a new list that ends up taking nothing leaves no folder behind; one into a list that was there keeps it', async () => {
    for (const existing of [false, true]) {
      const w = world();
      w.cli(['-l', 'src', 'create', 'One']);
      if (existing) {
        w.cli(['-l', 'dst', 'create', 'Kept']);
        w.cli(['-l', 'dst', 'delete', '1']);
      }
      const src = w.listDir('src');
      // The source's agent is mid-TaskUpdate of #1: its lock is held while the copy is made.
      fs.mkdirSync(path.join(src, '1.json.lock'));
      const carry = w.start(['-l', 'dst', 'carry', '--from', 'src']);
      const copy = path.join(w.listDir('dst'), existing ? '2.json' : '1.json');
      await until(() => fs.existsSync(copy));
      const file = path.join(src, '1.json');
      fs.writeFileSync(file, JSON.stringify({ ...(readJson(file) as object), status: 'completed' }, null, 2));
      fs.rmdirSync(path.join(src, '1.json.lock'));
      const r = await carry.done;
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/#1 not carried: changed while it was carried/);
      expect(w.tasks('dst')).toEqual([]);
      expect(fs.existsSync(w.listDir('dst')), existing ? 'the list that was there' : 'the new list').toBe(existing);
      if (!existing) expect(w.cli(['lists', '--json']).stdout).not.toContain('"dst"');
    }
  }, 60_000);
});
