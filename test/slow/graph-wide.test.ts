import { describe, expect, it } from 'vitest';
import { layoutGraph } from '../../src/core/graph/layered-layout.js';

/**
 * The dependency graph's layout (tasks graph, the board's Graph tab) at a scale no call
 * may spread into its arguments: a layer, or the list of components, of well over the
 * ~125,000 arguments a call takes. Seconds of layout: the slow tier.
 */
describe('graph of a very wide list', () => {
  it('lays out lists wider than a function call takes arguments: 150,000 loose tasks, and one blocking 149,999', () => {
    const ids = Array.from({ length: 150_000 }, (_, i) => String(i + 1));
    expect(layoutGraph(ids, []).layers[0]).toHaveLength(150_000);
    const star = layoutGraph(
      ids,
      ids.slice(1).map((id) => ['1', id] as const),
    );
    expect(star.layers.map((l) => l.length)).toEqual([1, 149_999]);
  });
});
