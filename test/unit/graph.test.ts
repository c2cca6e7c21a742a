import { describe, expect, it } from 'vitest';
import { buildBlocksGraph, cycleIfAdded, formatCycle } from '../../src/core/graph/graph.js';
import type { Task } from '../../src/core/store/schema.js';

const t = (id: string, blocks: string[] = [], blockedBy: string[] = []): Task => ({
  id,
  subject: id,
  description: '',
  status: 'pending',
  blocks,
  blockedBy,
});

describe('cycle detection', () => {
  it('finds the path a new edge would close', () => {
    // 5 blocks 7, 7 blocks 3: adding "3 blocks 5" closes 3 -> 5 -> 7 -> 3
    const graph = buildBlocksGraph([t('3', [], ['7']), t('5', ['7']), t('7', ['3'], ['5'])]);
    expect(formatCycle(cycleIfAdded(graph, '3', '5')!)).toBe('3 -> 5 -> 7 -> 3');
  });
  it('counts half-mirrored edges', () => {
    const graph = buildBlocksGraph([t('1'), t('2', [], ['1'])]); // only blockedBy side recorded
    expect(cycleIfAdded(graph, '2', '1')).toEqual(['2', '1', '2']);
  });
  it('allows edges that close nothing and refuses self-blocking', () => {
    const graph = buildBlocksGraph([t('1', ['2']), t('2', [], ['1']), t('3')]);
    expect(cycleIfAdded(graph, '2', '3')).toBeUndefined();
    expect(cycleIfAdded(graph, '3', '3')).toEqual(['3', '3']);
  });
});
