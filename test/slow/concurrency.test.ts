import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { taskSchemas } from '../../src/core/store/schema.js';
import { ROOT, readJson, runAsync, tempConfig, writeTask } from '../helpers/cli.js';

describe('several processes at once', () => {
  it('8 processes x 5 creates: 40 unique ids, none lost, every file valid', async () => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'race');
    const worker = async (w: number) => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await runAsync(config, ['-l', 'race', 'create', `w${w}-${i}`]);
        // Each process may be the one that finds the list missing and says so.
        expect(r.stderr).toMatch(/^(new list "race"\n)?$/);
        expect(r.code).toBe(0);
        ids.push(r.stdout.trim());
      }
      return ids;
    };
    const ids = (await Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)))).flat();
    expect(new Set(ids).size).toBe(40);
    expect(ids.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    const files = fs.readdirSync(list).filter((n) => n.endsWith('.json'));
    expect(files).toHaveLength(40);
    for (const f of files) expect(taskSchemas().TaskSchema.safeParse(readJson(path.join(list, f))).success).toBe(true);
    expect(fs.readdirSync(list).filter((n) => n.endsWith('.lock') && n !== '.lock')).toEqual([]);
  });

  it('6 processes x 3 creates --blocked-by 1 --blocks 2 at once: ids distinct, every edge on both sides, no lock left', async () => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'edges');
    writeTask(list, { id: '1', subject: 'shared', description: '', status: 'pending', blocks: [], blockedBy: [] });
    writeTask(list, { id: '2', subject: 'waits', description: '', status: 'pending', blocks: [], blockedBy: [] });
    const worker = async (w: number) => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await runAsync(config, ['-l', 'edges', 'create', `w${w}-${i}`, '--blocked-by', '1', '--blocks', '2']);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        ids.push(r.stdout.trim());
      }
      return ids;
    };
    const ids = (await Promise.all(Array.from({ length: 6 }, (_, w) => worker(w)))).flat();
    expect(new Set(ids).size).toBe(18);
    const task = (id: string) => readJson(path.join(list, `${id}.json`)) as { blocks: string[]; blockedBy: string[] };
    const byId = (a: string, b: string) => Number(a) - Number(b);
    expect([...task('1').blocks].sort(byId)).toEqual([...ids].sort(byId));
    expect([...task('2').blockedBy].sort(byId)).toEqual([...ids].sort(byId));
    for (const id of ids) expect(task(id)).toMatchObject({ blockedBy: ['1'], blocks: ['2'] });
    expect(fs.readdirSync(list).filter((n) => n.endsWith('.json'))).toHaveLength(20);
    expect(fs.readdirSync(list).filter((n) => n.endsWith('.lock') && n !== '.lock')).toEqual([]);
  });

  it('6 processes updating different fields of one task lose nothing', async () => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'one');
    writeTask(list, { id: '1', subject: 's', description: '', status: 'pending', blocks: [], blockedBy: [] });
    await Promise.all(
      Array.from({ length: 6 }, (_, w) =>
        (async () => {
          for (let i = 0; i < 4; i++) {
            const r = await runAsync(config, ['-l', 'one', 'update', '1', '--meta', `w${w}i${i}=1`]);
            expect(r.code).toBe(0);
          }
        })(),
      ),
    );
    const meta = (readJson(path.join(list, '1.json')) as { metadata: Record<string, string> }).metadata;
    expect(Object.keys(meta)).toHaveLength(24);
  });

  it('a lock held by a live process ends in exit 5 within the stale time, nothing written', async () => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'held');
    writeTask(list, { id: '1', subject: 's', description: '', status: 'pending', blocks: [], blockedBy: [] });
    fs.writeFileSync(path.join(list, '.lock'), '');
    // Agents that hold their locks (and refresh them) for longer than anyone waits.
    const holders = [path.join(list, '.lock'), path.join(list, '1.json')].map(
      (target) =>
        new Promise<ChildProcess>((resolve) => {
          const child = spawn(process.execPath, [path.join(ROOT, 'test/helpers/hold-lock.mjs'), target, '60000'], {
            stdio: ['ignore', 'pipe', 'inherit'],
          });
          child.stdout?.once('data', () => resolve(child));
        }),
    );
    const running = await Promise.all(holders);
    try {
      const started = Date.now();
      const [create, update] = await Promise.all([
        runAsync(config, ['-l', 'held', 'create', 'x']),
        runAsync(config, ['-l', 'held', 'update', '1', '--owner', 'me']),
      ]);
      expect(create.code).toBe(5);
      expect(create.stderr.trim().split('\n').pop()).toMatch(
        /^error: the list is locked by another process \(\.lock\.lock; its holder is alive/,
      );
      expect(update.code).toBe(5);
      expect(update.stderr.trim().split('\n').pop()).toMatch(/task #1 is locked by another process \(1\.json\.lock; its holder is alive/);
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(fs.readdirSync(list).filter((n) => n.endsWith('.json'))).toEqual(['1.json']);
      expect(readJson(path.join(list, '1.json'))).not.toHaveProperty('owner');
    } finally {
      for (const child of running) child.kill('SIGKILL');
    }
  });
});
