import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Task, taskSchemas } from '../../src/core/store/schema.js';
import { readJson, runAsync, tempConfig } from '../helpers/cli.js';

describe('a large import while other processes create tasks', () => {
  it('300 chained todos + 4 processes x 6 creates: nobody fails, no id is shared, every chain link on both sides', async () => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'busy');
    const todos = Array.from({ length: 300 }, (_, i) => ({
      content: `Step ${i + 1}`,
      status: 'pending',
      activeForm: `Doing step ${i + 1}`,
    }));
    const creator = async (w: number) => {
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        const r = await runAsync(config, ['-l', 'busy', 'create', `w${w}-${i}`]);
        expect(r.stderr).toMatch(/^(new list "busy"\n)?$/); // whoever finds it missing says so
        expect(r.code).toBe(0);
        ids.push(r.stdout.trim());
      }
      return ids;
    };
    const [imported, ...created] = await Promise.all([
      runAsync(config, ['-l', 'busy', 'import', '-', '--chain', '--json'], { input: JSON.stringify({ todos }) }),
      ...[0, 1, 2, 3].map(creator),
    ]);
    expect(imported!.code).toBe(0);
    const report = JSON.parse(imported!.stdout) as { created: Task[] };
    const importIds = report.created.map((t) => t.id);
    const createIds = (created as string[][]).flat();
    expect(new Set([...importIds, ...createIds]).size).toBe(324);

    const files = fs.readdirSync(list).filter((n) => n.endsWith('.json'));
    expect(files).toHaveLength(324);
    const bySubject = new Map<string, Task>();
    for (const f of files) {
      const task = taskSchemas().TaskSchema.parse(readJson(path.join(list, f)));
      bySubject.set(task.subject, task);
    }
    for (let i = 1; i <= 300; i++) {
      const t = bySubject.get(`Step ${i}`)!;
      const prev = bySubject.get(`Step ${i - 1}`);
      const next = bySubject.get(`Step ${i + 1}`);
      expect(t.blockedBy).toEqual(prev ? [prev.id] : []);
      expect(t.blocks).toEqual(next ? [next.id] : []);
    }
    expect(fs.readdirSync(list).filter((n) => n.endsWith('.lock') && n !== '.lock')).toEqual([]);
    // Not asserted (timing): how many creates landed between the import's batches.
    const [lo, hi] = [Math.min(...importIds.map(Number)), Math.max(...importIds.map(Number))];
    const between = createIds.filter((id) => Number(id) > lo && Number(id) < hi).length;
    console.info(`creates that landed between import batches: ${between} of ${createIds.length}`);
  });
});
