import { describe, expect, it } from 'vitest';
import { decideRelease, heldBy } from '../../src/core/claims/release-rule.js';
import { indexTasks, isBlocked, isReady } from '../../src/core/graph/blockers.js';
import { blockersOf, withoutEdges } from '../../src/core/graph/edges.js';
import { buildBlocksGraph, cycleIfAdded, formatCycle } from '../../src/core/graph/graph.js';
import { matchesFilter } from '../../src/core/lists/task-filter.js';
import type { Task } from '../../src/core/store/schema.js';

const t = (id: string, over: Partial<Task> = {}): Task => ({
  id,
  subject: id,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...over,
});

describe('readiness', () => {
  const tasks = [
    t('1', { status: 'completed' }),
    t('2', { blockedBy: ['1'] }),
    t('3', { blockedBy: ['2'] }),
    t('4', { blockedBy: ['42'] }),
    t('5', { status: 'completed', blockedBy: ['2'] }),
    t('6', { owner: 'amy' }),
    t('7', { status: 'in_progress', blockedBy: ['3'] }),
  ];
  const index = indexTasks(tasks);
  it('a completed blocker, or a missing one, does not block', () => {
    expect(isBlocked(tasks[1]!, index)).toBe(false);
    expect(isBlocked(tasks[3]!, index)).toBe(false);
    expect(isReady(tasks[1]!, index)).toBe(true);
    expect(isReady(tasks[3]!, index)).toBe(true);
  });
  it('an unfinished blocker blocks an unfinished task; a completed task is never blocked', () => {
    expect(isBlocked(tasks[2]!, index)).toBe(true);
    expect(isBlocked(tasks[4]!, index)).toBe(false);
    expect(isBlocked(tasks[6]!, index)).toBe(true);
  });
  it('owned or started tasks are not ready', () => {
    expect(isReady(tasks[5]!, index)).toBe(false);
    expect(isReady(tasks[6]!, index)).toBe(false);
  });
  it('list filters --ready and --blocked', () => {
    const ids = (f: { ready?: boolean; blocked?: boolean }) => tasks.filter((x) => matchesFilter(x, f, index)).map((x) => x.id);
    expect(ids({ ready: true })).toEqual(['2', '4']);
    expect(ids({ blocked: true })).toEqual(['3', '7']);
  });
});

describe('cycle detection reports the path', () => {
  it('a long chain closed by the new edge', () => {
    // 1 blocks 2 blocks 3 blocks 4: "4 blocks 1" closes 4 -> 1 -> 2 -> 3 -> 4.
    const graph = buildBlocksGraph([
      t('1', { blocks: ['2'] }),
      t('2', { blocks: ['3'], blockedBy: ['1'] }),
      t('3', { blocks: ['4'], blockedBy: ['2'] }),
      t('4', { blockedBy: ['3'] }),
    ]);
    expect(formatCycle(cycleIfAdded(graph, '4', '1')!)).toBe('4 -> 1 -> 2 -> 3 -> 4');
    expect(cycleIfAdded(graph, '1', '4')).toBeUndefined(); // a shortcut, no cycle
  });
  it('the shortest cycle when there are several', () => {
    const graph = buildBlocksGraph([
      t('1', { blocks: ['2', '5'] }),
      t('2', { blocks: ['3'] }),
      t('3', { blocks: ['4'] }),
      t('5', { blocks: ['4'] }),
    ]);
    expect(cycleIfAdded(graph, '4', '1')).toEqual(['4', '1', '5', '4']);
  });
});

describe('edge removal', () => {
  it('withoutEdges drops only the named ids, from the named side', () => {
    const task = t('4', { blocks: ['5', '6'], blockedBy: ['1', '2', '3'], owner: 'x' });
    const after = withoutEdges(task, { blockedBy: ['2', '9'] });
    expect(after).toEqual({ ...task, blockedBy: ['1', '3'] });
    expect(task.blockedBy).toEqual(['1', '2', '3']); // pure: the input is untouched
    expect(withoutEdges(task, { blocks: ['6'] }).blocks).toEqual(['5']);
    expect(withoutEdges(task, {})).toEqual(task);
  });
  it('blockersOf reads both sides, a half-mirrored edge included', () => {
    const tasks = [t('1', { blocks: ['4'] }), t('2', { blocks: ['4'] }), t('3'), t('4', { blockedBy: ['1', '9'] })];
    expect(blockersOf('4', tasks)).toEqual(['1', '9', '2']);
    expect(blockersOf('3', tasks)).toEqual([]);
  });
});

describe('release', () => {
  it('removes the owner and sets pending, as agents do when a teammate exits', () => {
    expect(decideRelease(t('1', { owner: 'a', status: 'in_progress' }))).toEqual({ ok: true, patch: { owner: null, status: 'pending' } });
    expect(decideRelease(t('1', { owner: 'a', status: 'completed' }))).toEqual({ ok: false, reason: 'already_resolved' });
  });
  it('heldBy: owned by the agent and unfinished', () => {
    const tasks = [
      t('1', { owner: 'a' }),
      t('2', { owner: 'a', status: 'completed' }),
      t('3', { owner: 'b' }),
      t('4', { owner: 'a', status: 'in_progress' }),
    ];
    expect(heldBy('a', tasks).map((x) => x.id)).toEqual(['1', '4']);
  });
});
