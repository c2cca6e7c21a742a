/**
 * The journal under stress: many processes changing one list at once, each change
 * recorded exactly once. Slow by its number of processes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAsync, tempConfig } from '../helpers/cli.js';
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
