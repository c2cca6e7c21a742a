/**
 * The persistent cache's shards written by many processes at once, read all the while.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

function tmp(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-cache-')));
}

describe("the persistent cache's shards, from many processes", () => {
  it('a shard written by many processes at once is never torn for a reader', async () => {
    const dir = path.join(tmp(), 'owner');
    const module = path.join(ROOT, 'dist', 'core', 'cache', 'persistent-cache.js');
    // Each writer saves the same shard again and again, each time with a value of another length.
    const writer = (n: number) => `
      const { PersistentCache } = await import(${JSON.stringify(module)});
      for (let i = 0; i < 150; i++) {
        const cache = new PersistentCache({ dir: ${JSON.stringify(dir)}, owner: '/config', build: 'test' });
        const size = 1000 + ((i * 7919 + ${n} * 104729) % 200000);
        cache.shard('p').set('k', { size, text: 'x'.repeat(size) });
        cache.save();
      }`;
    const children = Array.from({ length: 4 }, (_, n) =>
      spawn(process.execPath, ['--input-type=module', '-e', writer(n)], { stdio: 'ignore' }),
    );
    const done = Promise.all(children.map((c) => new Promise((resolve) => c.on('close', resolve))));
    let running = true;
    void done.then(() => (running = false));
    const file = path.join(dir, 'p.json');
    let reads = 0;
    while (running) {
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch {
        await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      const body = JSON.parse(text) as { entries: { k: { size: number; text: string } } };
      expect(body.entries.k.text.length).toBe(body.entries.k.size);
      reads++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(reads).toBeGreaterThan(10);
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});
