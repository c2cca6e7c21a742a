import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TasksError } from '../../src/core/base/errors.js';
import type { Task } from '../../src/core/store/schema.js';
import { createTaskBatch } from '../../src/core/writes/task-writes.js';

/**
 * Two processes that break one stale lock at the same moment can both hold it (a
 * proper-lockfile race agents share). Simulated here by a writer that creates the file
 * of an allocated id after the allocation, inside our hold of the list lock.
 */
function list(): string {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-collision-')), 'tasks', 'l');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, '.lock'), '');
  fs.writeFileSync(path.join(dir, '1.json'), task('1', 'first'));
  return dir;
}

function task(id: string, subject: string): string {
  return JSON.stringify({ id, subject, description: '', status: 'pending', blocks: [], blockedBy: [] }, null, 2);
}

const ours = (id: string, subject = 'ours'): Task => ({ id, subject, description: '', status: 'pending', blocks: [], blockedBy: [] });

describe('creating never writes over a task file that appeared after its id was allocated', () => {
  it("a single create takes the next free id, and the other writer's task stays as it wrote it", async () => {
    const dir = list();
    const theirs = task('2', 'written by an agent at the same moment');
    let allocations = 0;
    const created = await createTaskBatch(dir, 1, (ids) => {
      allocations++;
      if (allocations === 1) fs.writeFileSync(path.join(dir, `${ids[0]}.json`), theirs);
      return ids.map((id) => ours(id));
    });
    expect(allocations).toBe(2);
    expect(created.map((t) => t.id)).toEqual(['3']);
    expect(fs.readFileSync(path.join(dir, '2.json'), 'utf8')).toBe(theirs);
    expect(JSON.parse(fs.readFileSync(path.join(dir, '3.json'), 'utf8')).subject).toBe('ours');
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('a batch whose later id is taken stops there with id_taken: the files before it stay, none is replaced', async () => {
    const dir = list();
    const theirs = task('3', 'written by an agent at the same moment');
    const attempt = createTaskBatch(dir, 3, (ids) => {
      fs.writeFileSync(path.join(dir, `${ids[1]}.json`), theirs);
      return ids.map((id) => ours(id, `ours ${id}`));
    });
    await expect(attempt).rejects.toSatisfy(
      (err) => err instanceof TasksError && err.code === 'conflict' && err.details?.reason === 'id_taken',
    );
    expect(JSON.parse(fs.readFileSync(path.join(dir, '2.json'), 'utf8')).subject).toBe('ours 2');
    expect(fs.readFileSync(path.join(dir, '3.json'), 'utf8')).toBe(theirs);
    expect(fs.existsSync(path.join(dir, '4.json'))).toBe(false);
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('gives up after a few allocations if every id keeps being taken', async () => {
    const dir = list();
    let allocations = 0;
    const attempt = createTaskBatch(dir, 1, (ids) => {
      allocations++;
      fs.writeFileSync(path.join(dir, `${ids[0]}.json`), task(ids[0] as string, 'theirs'));
      return ids.map((id) => ours(id));
    });
    await expect(attempt).rejects.toThrow(/created by another writer at the same moment/);
    expect(allocations).toBe(5);
  });
});
