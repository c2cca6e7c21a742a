import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lists, NAMED, OWN, settled, shards, TODO, world } from '../helpers/cache-world.js';
import { run, runAsync } from '../helpers/cli.js';

/**
 * The persistent cache written by several processes of the built binary at once (only
 * the bundle keeps one): each answer is the one a run without a cache gives, and every
 * shard is whole. The world is test/e2e/session-cache.test.ts's (and, as there, `lists
 * --fresh`: the transcripts grow with no live-session file made, as no agent's do).
 */
describe('the persistent cache from several processes at once', () => {
  it('a cache written by several processes at once: each answer right, every shard whole', async () => {
    const w = world();
    const get = (cache: string) =>
      run(w.config, ['-l', OWN, 'get', '1', '--json'], { cwd: w.project, env: { XDG_CACHE_HOME: cache, ...settled() } });
    for (let round = 0; round < 3; round++) {
      // Round 0 starts with no cache; later rounds with the transcripts grown, so that all write again.
      if (round > 0) {
        for (const id of [NAMED, OWN, TODO]) fs.appendFileSync(w.transcript(id), '{"type":"atis-latch","atis":""}\n');
      }
      const expected = lists(w, 'none');
      const expectedGet = get(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-no-cache-')));
      expect(expectedGet.code).toBe(0);
      // `lists` keeps every transcript's facts and scans; `get` only its session's facts: shards of different sizes.
      const runs = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          runAsync(w.config, i % 2 === 0 ? ['lists', '--json', '--fresh'] : ['-l', OWN, 'get', '1', '--json'], {
            cwd: w.project,
            env: { XDG_CACHE_HOME: w.cache, ...settled() },
          }),
        ),
      );
      runs.forEach((r, i) => {
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        if (i % 2 === 0) expect(JSON.parse(r.stdout)).toEqual(expected);
        else expect(r.stdout).toBe(expectedGet.stdout);
      });
      const files = shards(w);
      expect(files.length).toBeGreaterThan(0);
      expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);
      for (const file of files) expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ format: 'tasks-cache/1' });
      expect(lists(w, 'kept', ['--fresh'])).toEqual(expected);
    }
  });
});
