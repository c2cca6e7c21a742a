import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyPatch } from '../../src/core/store/patch.js';
import type { Task } from '../../src/core/store/schema.js';
import { serializeTask } from '../../src/core/store/serialize.js';
import { FIXTURES } from '../helpers/cli.js';

const recorded = (name: string) => fs.readFileSync(path.join(FIXTURES, 'update-order', name), 'utf8');
const fresh = (id: string, subject: string, description: string): Task => ({
  id,
  subject,
  description,
  status: 'pending',
  blocks: [],
  blockedBy: [],
});

describe('applyPatch matches the bytes Claude Code writes', () => {
  it('appends a new owner after existing keys', () => {
    const { task } = applyPatch(fresh('1', 'A', 'a'), { owner: 'bob' });
    expect(serializeTask(task)).toBe(recorded('1-owner-appended.json'));
  });
  it('adds activeForm before metadata whatever the input order', () => {
    const { task } = applyPatch(fresh('2', 'B', 'b'), { metadata: { z: 1 }, activeForm: 'Bing' });
    expect(serializeTask(task)).toBe(recorded('2-activeform-metadata.json'));
  });
  it('writes many fields in one go as TaskUpdate does', () => {
    const { task, changed } = applyPatch(fresh('1', 'A', 'a'), {
      metadata: { m: 1 },
      owner: 'bob',
      activeForm: 'Aing',
      status: 'in_progress',
      subject: 'A2',
      description: 'd',
    });
    expect(serializeTask(task)).toBe(recorded('1-many-fields.json'));
    expect(changed).toEqual(['subject', 'description', 'activeForm', 'owner', 'metadata', 'status']);
  });
  it('leaves {} when removing a key from a task without metadata, and edges re-parse', () => {
    const { task } = applyPatch(fresh('3', 'C', 'c'), { addBlockedBy: ['1'], addBlocks: ['2'], metadata: { k: null } });
    expect(serializeTask(task)).toBe(recorded('3-edges-empty-metadata.json'));
  });
});

describe('applyPatch semantics', () => {
  const base: Task = { ...fresh('4', 'T', ''), owner: 'amy', metadata: { a: 1, b: 2 }, extra: { kept: true } };
  it('merges metadata key by key; null removes', () => {
    const { task } = applyPatch(base, { metadata: { b: null, c: 3 } });
    expect(task.metadata).toEqual({ a: 1, c: 3 });
  });
  it('unassigns with owner null and keeps unknown keys last', () => {
    const { task, changed } = applyPatch(base, { owner: null });
    expect(task.owner).toBeUndefined();
    expect('owner' in task).toBe(false);
    expect(Object.keys(task).at(-1)).toBe('extra');
    expect(changed).toEqual(['owner']);
  });
  it('adds edges once', () => {
    const once = applyPatch(base, { addBlocks: ['5', '5'] }).task;
    expect(once.blocks).toEqual(['5']);
    expect(applyPatch(once, { addBlocks: ['5'] }).changed).toEqual([]);
  });
});
