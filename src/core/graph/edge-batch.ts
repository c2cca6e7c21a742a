import { type BlocksGraph, cycleIfAdded } from './graph.js';

/**
 * Adding many edges at once (an import) and refusing the first that closes a cycle,
 * in O((V + E) log E) instead of one graph search per edge (quadratic on a long chain).
 *
 * The answer is the one adding the edges one by one would give: the first edge, in
 * order, whose addition closes a cycle (through the base graph's edges or earlier new
 * ones), with the cycle it closes. One pass over strongly connected components says
 * whether any prefix of the edges has a cycle through a new edge; a binary search over
 * prefixes finds the shortest such prefix, whose last edge is the one that closes it.
 */

export interface ClosingEdge {
  /** Index in `edges` of the edge that closes the first cycle. */
  index: number;
  /** The cycle as cycleIfAdded gives it: from the edge's blocker back to it. */
  cycle: string[];
}

export function firstClosingEdge(base: BlocksGraph, edges: ReadonlyArray<readonly [string, string]>): ClosingEdge | undefined {
  if (!hasNewCycle(base, edges, edges.length)) return undefined;
  // Invariant: the prefix of length `lo` has no such cycle, the one of length `hi` has.
  let lo = 0;
  let hi = edges.length;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (hasNewCycle(base, edges, mid)) hi = mid;
    else lo = mid;
  }
  const index = hi - 1;
  const [from, to] = edges[index] as readonly [string, string];
  const before = withEdges(base, edges, index);
  return { index, cycle: cycleIfAdded(before, from, to) ?? [from, to, from] };
}

/** The base graph plus the first `count` edges (a copy; the base is not changed). */
function withEdges(base: BlocksGraph, edges: ReadonlyArray<readonly [string, string]>, count: number): BlocksGraph {
  const graph: BlocksGraph = new Map();
  for (const [from, tos] of base) graph.set(from, new Set(tos));
  for (let i = 0; i < count; i++) {
    const [from, to] = edges[i] as readonly [string, string];
    let set = graph.get(from);
    if (!set) graph.set(from, (set = new Set()));
    set.add(to);
  }
  return graph;
}

/**
 * Does some edge among the first `count` lie on a cycle (both ends in one strongly
 * connected component)? Nodes are numbered and edges kept in flat arrays: at 100,000
 * nodes this is several times faster than walking Maps of Sets.
 */
function hasNewCycle(base: BlocksGraph, edges: ReadonlyArray<readonly [string, string]>, count: number): boolean {
  const number = new Map<string, number>();
  const node = (key: string) => {
    let n = number.get(key);
    if (n === undefined) number.set(key, (n = number.size));
    return n;
  };
  const from: number[] = [];
  const to: number[] = [];
  for (const [a, tos] of base) {
    for (const b of tos) {
      from.push(node(a));
      to.push(node(b));
    }
  }
  for (let i = 0; i < count; i++) {
    const [a, b] = edges[i] as readonly [string, string];
    if (a === b) return true;
    from.push(node(a));
    to.push(node(b));
  }
  const component = components(number.size, from, to);
  for (let i = from.length - count; i < from.length; i++) {
    if (component[from[i] as number] === component[to[i] as number]) return true;
  }
  return false;
}

/**
 * Strongly connected components of a graph of `n` numbered nodes and edges
 * from[i] -> to[i] (Tarjan's algorithm, iterative: a chain of 100,000 cannot overflow
 * the stack). Returns each node's component number.
 */
export function components(n: number, from: readonly number[], to: readonly number[]): Int32Array {
  // Adjacency in compressed rows: the successors of v are succ[start[v] .. start[v + 1]).
  const start = new Int32Array(n + 1);
  for (const f of from) start[f + 1] = (start[f + 1] ?? 0) + 1;
  for (let v = 0; v < n; v++) start[v + 1] = (start[v + 1] ?? 0) + (start[v] ?? 0);
  const fill = start.slice(0, n);
  const succ = new Int32Array(from.length);
  from.forEach((f, i) => {
    succ[fill[f] ?? 0] = to[i] as number;
    fill[f] = (fill[f] ?? 0) + 1;
  });
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const component = new Int32Array(n).fill(-1);
  const onStack = new Uint8Array(n);
  const stack = new Int32Array(n);
  const frameNode = new Int32Array(n);
  const frameNext = new Int32Array(n);
  let top = 0;
  let counter = 0;
  let found = 0;
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    let frames = 0;
    const visit = (v: number) => {
      index[v] = low[v] = counter++;
      stack[top++] = v;
      onStack[v] = 1;
      frameNode[frames] = v;
      frameNext[frames] = start[v] ?? 0;
      frames++;
    };
    visit(root);
    while (frames > 0) {
      const v = frameNode[frames - 1] as number;
      const next = frameNext[frames - 1] as number;
      if (next < (start[v + 1] ?? 0)) {
        frameNext[frames - 1] = next + 1;
        const w = succ[next] as number;
        if (index[w] === -1) visit(w);
        else if (onStack[w]) low[v] = Math.min(low[v] as number, index[w] as number);
        continue;
      }
      frames--;
      if (frames > 0) {
        const parent = frameNode[frames - 1] as number;
        low[parent] = Math.min(low[parent] as number, low[v] as number);
      }
      if (low[v] === index[v]) {
        let w: number;
        do {
          w = stack[--top] as number;
          onStack[w] = 0;
          component[w] = found;
        } while (w !== v);
        found++;
      }
    }
  }
  return component;
}
