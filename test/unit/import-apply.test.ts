import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';

// Count the holds of the list lock, and what each hold wrote.
const holds: Array<{ before: number; after: number }> = [];
vi.mock('../../src/core/locks/locks.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/core/locks/locks.js')>();
  return {
    ...original,
    withListLock: async <T>(dir: string, fn: (stillHeld: () => boolean) => T | Promise<T>) => {
      const count = () => fs.readdirSync(dir).filter((f) => f.endsWith('.json')).length;
      return original.withListLock(dir, async (stillHeld) => {
        const before = count();
        const result = await fn(stillHeld);
        holds.push({ before, after: count() });
        return result;
      });
    },
  };
});

const { applyImport, nextBatchSize } = await import('../../src/core/snapshots/import-apply.js');
const { planImport } = await import('../../src/core/snapshots/import-plan.js');
const { readList } = await import('../../src/core/store/list-read.js');

describe('applyImport', () => {
  it('takes the list lock in pieces of batchSize, never across the whole import', async () => {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-apply-')), 'list');
    const items = Array.from({ length: 35 }, (_, i) => ({
      ref: String(i + 1),
      subject: `Step ${i + 1}`,
      description: '',
      status: 'pending' as const,
      blockedBy: [],
    }));
    const plan = planImport([], { format: 'todowrite', found: '', items, warnings: [] }, { chain: true });
    holds.length = 0;
    const result = await applyImport(dir, plan, { batchSize: 10 });
    expect(holds.map((h) => h.after - h.before)).toEqual([10, 10, 10, 5]);
    // Each task was born with its blocker; the blocker's `blocks` was completed across batches.
    const tasks = readList(dir).tasks;
    expect(tasks).toHaveLength(35);
    expect(result.created).toEqual(tasks);
    for (const [i, t] of tasks.entries()) {
      expect(t.subject).toBe(`Step ${i + 1}`);
      expect(t.blockedBy).toEqual(i === 0 ? [] : [String(i)]);
      expect(t.blocks).toEqual(i === 34 ? [] : [String(i + 2)]);
    }
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.lock') && f !== '.lock')).toEqual([]);
  });

  it('adapts the batch to how long a hold took, within 1 and the maximum', async () => {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-apply-')), 'list');
    const items = Array.from({ length: 35 }, (_, i) => ({
      ref: String(i + 1),
      subject: `S${i}`,
      description: '',
      status: 'pending' as const,
      blockedBy: [],
    }));
    const plan = planImport([], { format: 'todowrite', found: '', items, warnings: [] });
    let clock = 0;
    holds.length = 0;
    // Every hold "takes" 50 ms against a 100 ms target: the batch doubles each time.
    await applyImport(dir, plan, { batchSize: 2, now: () => (clock += 50), targetHoldMs: 100, maxBatchSize: 10 });
    expect(holds.map((h) => h.after - h.before)).toEqual([2, 4, 8, 10, 10, 1]);
    expect(readList(dir).tasks.map((t) => t.subject)).toEqual(items.map((i) => i.subject));
    expect(nextBatchSize(20, 400, 100, 50)).toBe(5);
    expect(nextBatchSize(20, 10_000, 100, 50)).toBe(1);
    expect(nextBatchSize(20, 0, 100, 50)).toBe(50);
  });
});
