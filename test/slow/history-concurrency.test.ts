/**
 * The journal under stress: many processes changing one list at once, each change
 * recorded exactly once; and undo against a lock another process holds, which it waits
 * out before it refuses. Slow by its number of processes and that wait.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines, ROOT, readJson, runAsync, tempConfig } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';

const ENV = { USER: 'alice' };
const journalOf = (config: string, list: string) => path.join(config, 'tasks', list, '.tasks-journal.jsonl');

function tasks(config: string, ...args: string[]) {
  return runInProcessSync(config, ['-l', 'h', ...args], { env: ENV });
}

describe("the journal of tasks' own changes, from many processes", () => {
  it('8 processes changing one list at once: every change in the journal exactly once, every line whole', async () => {
    const config = tempConfig();
    tasks(config, 'create', 'Shared');
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, w) =>
        (async () => {
          const out = [];
          for (let i = 0; i < 5; i++) {
            out.push(await runAsync(config, ['-l', 'h', 'create', `w${w}-${i}`, '-d', 'y'.repeat(3000)]));
            out.push(await runAsync(config, ['-l', 'h', 'update', '1', '--meta', `w${w}i${i}=1`]));
          }
          return out;
        })(),
      ),
    );
    expect(runs.flat().every((r) => r.code === 0)).toBe(true);
    const written = fs.readFileSync(journalOf(config, 'h'), 'utf8').trimEnd().split('\n');
    expect(written).toHaveLength(1 + 80);
    const parsed = written.map(
      (l) =>
        JSON.parse(l) as {
          changes: Array<{ id: string; op: string; task?: { subject: string }; fields?: { metadata?: { new: Record<string, unknown> } } }>;
        },
    );
    const created = parsed.flatMap((e) => e.changes.filter((c) => c.op === 'create').map((c) => c.task!.subject));
    expect(new Set(created).size).toBe(41);
    const metaKeys = parsed.flatMap((e) => e.changes.filter((c) => c.op === 'update').map((c) => Object.keys(c.fields!.metadata!.new)));
    // Each update added one key to what was there: 40 updates, each new key seen first once.
    expect(metaKeys).toHaveLength(40);
    expect(new Set(metaKeys.map((keys) => keys.length)).size).toBe(40);
  });
});

/** The list `L` of the tests below, run in process, and its files. */
const listDir = (config: string) => path.join(config, 'tasks', 'L');
const t = (config: string, ...args: string[]) => runInProcessSync(config, ['-l', 'L', ...args], { env: ENV });
const file = (config: string, id: string) => readJson(path.join(listDir(config), `${id}.json`)) as Record<string, unknown>;

describe('each change is recorded with its write, and undo is atomic, across processes', () => {
  it("under concurrency the journal's order is the writes' order: replaying it gives each file", async () => {
    const config = tempConfig();
    t(config, 'create', 'shared');
    await Promise.all(
      Array.from({ length: 6 }, (_, w) =>
        (async () => {
          // The binary: several processes writing one journal at once.
          for (let i = 0; i < 6; i++) await runAsync(config, ['-l', 'L', 'update', '1', '--meta', `w${w}i${i}=1`], { env: ENV });
        })(),
      ),
    );
    const updates = jsonLines(fs.readFileSync(journalOf(config, 'L'), 'utf8')).flatMap((e) =>
      (e.changes as Array<{ op: string; fields?: { metadata?: { old?: unknown; new: unknown } } }>).filter((c) => c.op === 'update'),
    );
    expect(updates).toHaveLength(36);
    expect(updates.at(-1)!.fields!.metadata!.new).toEqual(file(config, '1').metadata);
    // Each line's old value is the line before's new one.
    for (let i = 1; i < updates.length; i++) {
      expect(updates[i]!.fields!.metadata!.old).toEqual(updates[i - 1]!.fields!.metadata!.new);
    }
  });

  it('with #1 locked by an agent, undoing a block writes neither side; the retry takes both back; undo again goes further back', async () => {
    const config = tempConfig();
    t(config, 'create', 'A');
    t(config, 'create', 'B');
    t(config, 'block', '2', '--by', '1');
    const holder = spawn(process.execPath, [path.join(ROOT, 'test/helpers/hold-lock.mjs'), path.join(listDir(config), '1.json'), '60000'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    try {
      // The binary: the lock is held by another process (an agent), as in life.
      const r = await runAsync(config, ['-l', 'L', 'undo'], { env: ENV });
      expect(r.code, r.stderr).toBe(5);
      expect(r.stderr).toMatch(/task #1 is locked by another process/);
      // Neither side written: the edge is whole.
      expect(file(config, '1').blocks).toEqual(['2']);
      expect(file(config, '2').blockedBy).toEqual(['1']);
    } finally {
      holder.kill('SIGKILL');
    }
    await new Promise((r) => setTimeout(r, 100));
    fs.rmSync(path.join(listDir(config), '1.json.lock'), { recursive: true, force: true });
    const retry = t(config, 'undo');
    expect(retry.code, retry.stderr).toBe(0);
    expect(retry.stdout).toMatch(/^Undid block by alice/);
    expect([file(config, '1').blocks, file(config, '2').blockedBy]).toEqual([[], []]);
    // Undo again steps further back (the create of #2); it never undoes the undo.
    const again = t(config, 'undo');
    expect(again.stdout).toMatch(/^Undid create by alice/);
    expect(fs.existsSync(path.join(listDir(config), '2.json'))).toBe(false);
    expect(file(config, '1').blocks).toEqual([]);
  });
});
