import { describe, expect, it } from 'vitest';
import { type GraphLayout, type LaidNode, layoutGraph, spacedClosest } from '../../src/core/graph/layered-layout.js';

type Edge = readonly [string, string];

const ids = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1));
const byId = (layout: GraphLayout) => new Map(layout.nodes.map((n) => [n.id, n]));

/** A small deterministic random source, so a failing case can be run again. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function overlaps(a: LaidNode, b: LaidNode): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** Crossings recomputed from the drawing: adjacent-layer segments whose ends swap order. */
function crossingsOf(layout: GraphLayout): number {
  const segments: Array<{ x: number; y1: number; y2: number }> = [];
  for (const e of layout.edges) {
    for (let i = 0; i + 1 < e.points.length; i++) {
      const a = e.points[i]!;
      const b = e.points[i + 1]!;
      if (b.x > a.x + 1) segments.push({ x: a.x, y1: a.y, y2: b.y });
      else if (a.x > b.x + 1) segments.push({ x: b.x, y1: b.y, y2: a.y });
    }
  }
  let count = 0;
  for (let i = 0; i < segments.length; i++) {
    for (let j = i + 1; j < segments.length; j++) {
      const s = segments[i]!;
      const t = segments[j]!;
      if (s.x !== t.x) continue;
      if ((s.y1 - t.y1) * (s.y2 - t.y2) < 0) count++;
    }
  }
  return count;
}

describe('layoutGraph', () => {
  it('puts a chain in consecutive layers, left to right, on one line', () => {
    const layout = layoutGraph(ids(3), [
      ['1', '2'],
      ['2', '3'],
    ]);
    expect(layout.layers).toEqual([['1'], ['2'], ['3']]);
    const [a, b, c] = layout.nodes;
    expect(a!.x).toBeLessThan(b!.x);
    expect(b!.x).toBeLessThan(c!.x);
    expect(new Set(layout.nodes.map((n) => n.y)).size).toBe(1);
    expect(layout.edges.every((e) => !e.reversed)).toBe(true);
    expect(layout.crossings).toBe(0);
  });

  it('sends every edge from a layer to a later one, unless it closes a cycle', () => {
    const rnd = random(7);
    const nodes = ids(120);
    const edges: Edge[] = [];
    for (let i = 0; i < 300; i++) edges.push([String(1 + Math.floor(rnd() * 120)), String(1 + Math.floor(rnd() * 120))]);
    const layout = layoutGraph(nodes, edges);
    const at = byId(layout);
    for (const e of layout.edges) {
      const from = at.get(e.from)!;
      const to = at.get(e.to)!;
      if (e.reversed) expect(from.layer).toBeGreaterThan(to.layer);
      else expect(to.layer).toBeGreaterThan(from.layer);
      // Points run from the blocker's side to the waiting task's side.
      expect(e.points[0]!.x).toBe(e.reversed ? from.x : from.x + from.width);
      expect(e.points[e.points.length - 1]!.x).toBe(e.reversed ? to.x + to.width : to.x);
    }
    const selfLoops = new Set(edges.filter(([a, b]) => a === b).map(([a]) => a));
    expect(new Set(layout.selfLoops)).toEqual(selfLoops);
  });

  it('tolerates cycles: one edge of a three-cycle is drawn reversed, a self-block is reported', () => {
    const layout = layoutGraph(ids(4), [
      ['1', '2'],
      ['2', '3'],
      ['3', '1'],
      ['4', '4'],
    ]);
    expect(layout.edges).toHaveLength(3);
    expect(layout.edges.filter((e) => e.reversed).map((e) => [e.from, e.to])).toEqual([['3', '1']]);
    expect(layout.selfLoops).toEqual(['4']);
    expect(layout.nodes.map((n) => n.id)).toEqual(['1', '2', '3', '4']);
  });

  it('bends a long edge around the task in between (a dummy node per layer)', () => {
    const layout = layoutGraph(ids(3), [
      ['1', '2'],
      ['2', '3'],
      ['1', '3'],
    ]);
    const long = layout.edges.find((e) => e.from === '1' && e.to === '3')!;
    expect(long.points).toHaveLength(4);
    const middle = byId(layout).get('2')!;
    for (const p of long.points.slice(1, 3)) {
      expect(p.x === middle.x || p.x === middle.x + middle.width).toBe(true);
      expect(p.y < middle.y || p.y > middle.y + middle.height).toBe(true);
    }
  });

  it('reorders a layer by barycenters to remove a crossing the first order has', () => {
    // Depth-first from #1 puts 4, 5 before 3, and 1->5 crosses 2->4; 5, 4, 3 crosses nothing.
    const layout = layoutGraph(ids(5), [
      ['1', '4'],
      ['1', '5'],
      ['2', '3'],
      ['2', '4'],
    ]);
    expect(layout.layers).toEqual([
      ['1', '2'],
      ['5', '4', '3'],
    ]);
    expect(layout.crossings).toBe(0);
  });

  it('counts the crossings it leaves as the drawing shows them', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const rnd = random(seed);
      const edges: Edge[] = [];
      for (let i = 0; i < 60; i++) {
        const a = 1 + Math.floor(rnd() * 40);
        const b = 1 + Math.floor(rnd() * 40);
        if (a < b) edges.push([String(a), String(b)]);
      }
      const layout = layoutGraph(ids(40), edges);
      expect(crossingsOf(layout)).toBe(layout.crossings);
    }
  });

  it('reduces crossings well below the first order on a random graph', () => {
    const rnd = random(11);
    const edges: Edge[] = [];
    for (let i = 0; i < 400; i++) {
      const a = 1 + Math.floor(rnd() * 200);
      const b = a + 1 + Math.floor(rnd() * 6);
      if (b <= 200) edges.push([String(a), String(b)]);
    }
    const unswept = layoutGraph(ids(200), edges, { sweeps: 0 });
    const swept = layoutGraph(ids(200), edges);
    expect(swept.crossings).toBeLessThan(unswept.crossings * 0.8);
  });

  it('never lets two tasks overlap, across components and loose tasks', () => {
    const rnd = random(3);
    const edges: Edge[] = [];
    for (let i = 0; i < 150; i++) {
      const a = 1 + Math.floor(rnd() * 300);
      const b = 1 + Math.floor(rnd() * 300);
      if (a !== b) edges.push([String(a), String(b)]);
    }
    const layout = layoutGraph(ids(300), edges);
    const nodes = layout.nodes;
    for (let i = 0; i < nodes.length; i++) {
      for (let j = i + 1; j < nodes.length; j++) expect(overlaps(nodes[i]!, nodes[j]!), `${nodes[i]!.id} and ${nodes[j]!.id}`).toBe(false);
      expect(nodes[i]!.x + nodes[i]!.width).toBeLessThanOrEqual(layout.width + 1e-6);
      expect(nodes[i]!.y + nodes[i]!.height).toBeLessThanOrEqual(layout.height + 1e-6);
      expect(nodes[i]!.x).toBeGreaterThanOrEqual(0);
      expect(nodes[i]!.y).toBeGreaterThanOrEqual(0);
    }
  });

  it('is deterministic, and keeps the given order where nothing else decides', () => {
    const edges: Edge[] = [
      ['2', '5'],
      ['1', '3'],
      ['3', '4'],
    ];
    const a = layoutGraph(ids(6), edges);
    const b = layoutGraph(ids(6), edges);
    expect(a).toEqual(b);
    // Components are packed in the order of their first task: 1-3-4 before 2-5 before 6.
    const at = byId(a);
    expect(at.get('1')!.x).toBeLessThan(at.get('2')!.x);
  });

  it('ignores edges to tasks it was not given, and duplicate edges', () => {
    const layout = layoutGraph(
      ['1', '2'],
      [
        ['1', '2'],
        ['1', '2'],
        ['1', '9'],
        ['8', '2'],
      ],
    );
    expect(layout.edges).toHaveLength(1);
    expect(layout.layers).toEqual([['1'], ['2']]);
  });

  it('draws an empty list as nothing', () => {
    expect(layoutGraph([], [])).toMatchObject({ nodes: [], edges: [], layers: [], width: 0, height: 0 });
  });

  it('keeps to the dummy budget: past it, long edges go straight', () => {
    // #1 blocks every task of a 600-long chain: spans 1..599, about 180,000 dummies unbounded.
    const nodes = ids(601);
    const edges: Edge[] = [];
    for (let i = 2; i <= 600; i++) edges.push([String(i), String(i + 1)], ['1', String(i + 1)]);
    const layout = layoutGraph(nodes, edges, { dummyBudget: 5000 });
    const bends = layout.edges.reduce((sum, e) => sum + (e.points.length - 2) / 2, 0);
    expect(bends).toBeLessThanOrEqual(5000);
    expect(layout.edges.some((e) => e.points.length === 2 && e.from === '1' && e.to === '601')).toBe(true);
  });
});

describe('spacedClosest', () => {
  it('keeps wanted positions that already respect the gaps', () => {
    expect(spacedClosest([0, 10, 30], [1, 1, 1], [10, 10])).toEqual([0, 10, 30]);
  });
  it('spreads positions that want the same place around their mean, in order', () => {
    expect(spacedClosest([5, 5, 5], [1, 1, 1], [10, 10])).toEqual([-5, 5, 15]);
  });
  it('weights the pull', () => {
    expect(spacedClosest([0, 0], [3, 1], [8])).toEqual([-2, 6]);
  });
});
