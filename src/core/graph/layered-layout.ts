/**
 * A layered (Sugiyama-style) drawing of a dependency graph, as a pure function: where
 * each task goes so that every edge points one way (left to right, blocker before
 * blocked), long edges bend around tasks instead of through them, and few edges cross.
 *
 * The steps, per weakly connected component:
 * 1. cycles are tolerated: a depth-first search reverses the edges that close a cycle
 *    (agents' own tools do not refuse cycles) and the drawing marks them `reversed`;
 *    a task that blocks itself is reported in `selfLoops`;
 * 2. layers: the longest path from the tasks nothing blocks, then tasks that block
 *    others but wait for nothing are pulled right next to their first dependant;
 * 3. an edge that spans several layers gets a dummy node in each layer between (up to
 *    a budget; past it the longest edges are drawn straight, so a pathological list
 *    cannot make the drawing quadratic);
 * 4. order within a layer: barycenter sweeps down and up, keeping the order with the
 *    fewest crossings (counted exactly, in O(E log V), with an accumulator tree);
 * 5. coordinates: each task is pulled toward the mean of its neighbours, and the
 *    order and spacing of its layer are restored by isotonic regression (pool adjacent
 *    violators), which gives the closest positions that keep them.
 * Components are packed in rows; a task with no edge is a component of one.
 *
 * Nothing here reads files or knows what a task is: it takes ids and edges, in the
 * order to prefer when nothing else decides (callers pass id order), so the same list
 * is always drawn the same way. Used by `tasks graph` and by the board's page.
 */

export interface LayoutOptions {
  nodeWidth?: number;
  nodeHeight?: number;
  /** Horizontal room between two layers (where edges run). */
  layerGap?: number;
  /** Vertical room between two tasks of a layer. */
  nodeGap?: number;
  /** Vertical room taken by an edge passing through a layer (a dummy node). */
  edgeGap?: number;
  /** Room between packed components. */
  componentGap?: number;
  /** Rows of components are at most this wide, or as wide as the widest component. */
  maxRowWidth?: number;
  /** Most dummy nodes made; longer edges past it are drawn straight. */
  dummyBudget?: number;
  /** Most down-and-up sweeps of crossing reduction. */
  sweeps?: number;
}

export interface LaidNode {
  id: string;
  /** Layer within its component (0: waits for nothing drawn). */
  layer: number;
  /** Position within its layer, top to bottom. */
  order: number;
  /** Top-left corner. */
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Point {
  x: number;
  y: number;
}

export interface LaidEdge {
  /** The blocker. */
  from: string;
  /** The task that waits. */
  to: string;
  /** From `from`'s side to `to`'s side, through the bends of dummy nodes. */
  points: Point[];
  /** Drawn against the flow: this edge closes a cycle. */
  reversed: boolean;
}

export interface GraphLayout {
  /** In the order the ids were given. */
  nodes: LaidNode[];
  edges: LaidEdge[];
  /** Task ids by layer (every component's layer i together), each in drawing order. */
  layers: string[][];
  /** Tasks that block themselves (not drawn as edges). */
  selfLoops: string[];
  /** Edge crossings left between adjacent layers. */
  crossings: number;
  width: number;
  height: number;
}

const DEFAULTS: Required<LayoutOptions> = {
  nodeWidth: 220,
  nodeHeight: 48,
  layerGap: 72,
  nodeGap: 14,
  edgeGap: 8,
  componentGap: 40,
  maxRowWidth: 1600,
  dummyBudget: 20_000,
  sweeps: 12,
};

/** One component, laid out with its own coordinates (from 0, 0). */
interface Part {
  /** Indexes (into the input's nodes) of its members. */
  members: number[];
  layer: ArrayLike<number>;
  order: ArrayLike<number>;
  x: ArrayLike<number>;
  y: ArrayLike<number>;
  edges: Array<{ from: number; to: number; points: Point[]; reversed: boolean }>;
  layers: number[][];
  crossings: number;
  width: number;
  height: number;
  /** Where layoutGraph puts its top-left corner. */
  dx: number;
  dy: number;
}

export function layoutGraph(
  nodes: readonly string[],
  edges: ReadonlyArray<readonly [string, string]>,
  options: LayoutOptions = {},
): GraphLayout {
  const o = { ...DEFAULTS, ...options };
  const index = new Map<string, number>();
  for (const id of nodes) if (!index.has(id)) index.set(id, index.size);
  const ids = [...index.keys()];
  const n = ids.length;
  // Edges between known tasks, once each; self-loops apart.
  const selfLoops = new Set<string>();
  // An edge's key is a number (u * n + v): cheaper to keep than a string per edge.
  const seen = new Set<number>();
  const from: number[] = [];
  const to: number[] = [];
  for (const [a, b] of edges) {
    const u = index.get(a);
    const v = index.get(b);
    if (u === undefined || v === undefined) continue;
    if (u === v) {
      selfLoops.add(a);
      continue;
    }
    const key = u * n + v;
    if (seen.has(key)) continue;
    seen.add(key);
    from.push(u);
    to.push(v);
  }
  // Each node's number within its component (a node is in one component only).
  const localOf = new Int32Array(n);
  const parts = componentsOf(n, from, to).map((c) => {
    // A task with no edge (most of a list of independent tasks) is placed as it is, without the steps.
    if (c.edges.length === 0 && c.members.length === 1) return loneTask(c.members, o);
    for (const [i, m] of c.members.entries()) localOf[m] = i;
    return layoutPart(
      c.members,
      c.edges.map((e) => [localOf[from[e] as number] as number, localOf[to[e] as number] as number] as const),
      o,
    );
  });
  const { width, height } = pack(parts, o);

  const laid: LaidNode[] = new Array<LaidNode>(n);
  const layers: string[][] = [];
  let crossings = 0;
  const outEdges: LaidEdge[] = [];
  for (const part of parts) {
    crossings += part.crossings;
    part.members.forEach((m, i) => {
      laid[m] = {
        id: ids[m] as string,
        layer: part.layer[i] as number,
        order: part.order[i] as number,
        x: (part.x[i] as number) + part.dx,
        y: (part.y[i] as number) + part.dy,
        width: o.nodeWidth,
        height: o.nodeHeight,
      };
    });
    part.layers.forEach((members, l) => {
      const layer = (layers[l] ??= []);
      // A loop, not push(...): a layer can hold more tasks than a call takes arguments.
      for (const i of members) layer.push(ids[part.members[i] as number] as string);
    });
    for (const e of part.edges) {
      // The part's points are its own: moved where the part is packed, in place.
      if (part.dx !== 0 || part.dy !== 0) {
        for (const p of e.points) {
          p.x += part.dx;
          p.y += part.dy;
        }
      }
      outEdges.push({
        from: ids[part.members[e.from] as number] as string,
        to: ids[part.members[e.to] as number] as string,
        points: e.points,
        reversed: e.reversed,
      });
    }
  }
  return { nodes: laid, edges: outEdges, layers, selfLoops: [...selfLoops], crossings, width, height };
}

/** Weakly connected components, each with its members (ascending) and its edge numbers. */
function componentsOf(n: number, from: readonly number[], to: readonly number[]): Array<{ members: number[]; edges: number[] }> {
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x] as number] as number;
      x = parent[x] as number;
    }
    return x;
  };
  for (let e = 0; e < from.length; e++) {
    const a = find(from[e] as number);
    const b = find(to[e] as number);
    if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
  }
  // A component is numbered by its first member in input order, so components keep that order.
  const byRoot = new Map<number, { members: number[]; edges: number[] }>();
  for (let v = 0; v < n; v++) {
    const r = find(v);
    let c = byRoot.get(r);
    if (!c) byRoot.set(r, (c = { members: [], edges: [] }));
    c.members.push(v);
  }
  for (let e = 0; e < from.length; e++) byRoot.get(find(from[e] as number))?.edges.push(e);
  return [...byRoot.values()];
}

/** Lay out one component; `edges` are in the component's own node numbers (members' indexes). */
function layoutPart(members: number[], edges: ReadonlyArray<readonly [number, number]>, o: Required<LayoutOptions>): Part {
  const n = members.length;
  const reversed = breakCycles(n, edges);
  const dag = edges.map(([a, b], e) => (reversed[e] ? ([b, a] as const) : ([a, b] as const)));
  const layer = assignLayers(n, dag);

  // The layered graph: real nodes 0..n-1, then dummies; each edge a chain of segments.
  const nodeLayer: number[] = Array.from(layer);
  const chains: number[][] = [];
  const spans: Array<{ e: number; span: number }> = [];
  dag.forEach(([a, b], e) => {
    const span = (layer[b] as number) - (layer[a] as number);
    if (span > 1) spans.push({ e, span });
  });
  let budget = o.dummyBudget;
  const dummied = new Set<number>();
  for (const { e, span } of spans.sort((p, q) => p.span - q.span || p.e - q.e)) {
    if (span - 1 > budget) break;
    budget -= span - 1;
    dummied.add(e);
  }
  dag.forEach(([a, b], e) => {
    const chain = [a];
    if (dummied.has(e)) for (let l = (layer[a] as number) + 1; l < (layer[b] as number); l++) chain.push(nodeLayer.push(l) - 1);
    chain.push(b);
    chains.push(chain);
  });
  const total = nodeLayer.length;
  let layerCount = 0;
  for (const l of nodeLayer) layerCount = Math.max(layerCount, l + 1);
  // Neighbours in the layer above (up) and below (down), by adjacent segments only.
  const up: number[][] = Array.from({ length: total }, () => []);
  const down: number[][] = Array.from({ length: total }, () => []);
  for (const chain of chains) {
    for (let i = 0; i + 1 < chain.length; i++) {
      const a = chain[i] as number;
      const b = chain[i + 1] as number;
      if ((nodeLayer[b] as number) - (nodeLayer[a] as number) !== 1) continue;
      down[a]?.push(b);
      up[b]?.push(a);
    }
  }
  const layers = initialOrder(total, n, nodeLayer, layerCount, down);
  const crossings = reduceCrossings(layers, nodeLayer, up, down, o.sweeps);
  const isDummy = (v: number) => v >= n;
  const ys = placeVertically(layers, up, down, isDummy, o);
  const step = o.nodeWidth + o.layerGap;
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  const order = new Int32Array(n);
  const realLayers: number[][] = layers.map((l) => l.filter((v) => !isDummy(v)));
  for (const l of realLayers) for (const [i, v] of l.entries()) order[v] = i;
  let minY = Infinity;
  let maxY = -Infinity;
  for (let v = 0; v < total; v++) {
    const half = isDummy(v) ? 0 : o.nodeHeight / 2;
    minY = Math.min(minY, (ys[v] as number) - half);
    maxY = Math.max(maxY, (ys[v] as number) + half);
  }
  for (let v = 0; v < n; v++) {
    x[v] = (layer[v] as number) * step;
    y[v] = (ys[v] as number) - o.nodeHeight / 2 - minY;
  }
  const centre = (v: number) => (ys[v] as number) - minY;
  const laidEdges = chains.map((chain, e) => {
    const points: Point[] = [{ x: (nodeLayer[chain[0] as number] as number) * step + o.nodeWidth, y: centre(chain[0] as number) }];
    for (let i = 1; i + 1 < chain.length; i++) {
      const d = chain[i] as number;
      const left = (nodeLayer[d] as number) * step;
      points.push({ x: left, y: centre(d) }, { x: left + o.nodeWidth, y: centre(d) });
    }
    const last = chain[chain.length - 1] as number;
    points.push({ x: (nodeLayer[last] as number) * step, y: centre(last) });
    const [a, b] = edges[e] as readonly [number, number];
    // Points run from the blocker to the task that waits, whichever way the flow drew it.
    return { from: a, to: b, points: reversed[e] ? points.reverse() : points, reversed: reversed[e] as boolean };
  });
  return {
    members,
    layer,
    order,
    x,
    y,
    edges: laidEdges,
    layers: realLayers,
    crossings,
    width: (layerCount - 1) * step + o.nodeWidth,
    height: total === 0 ? 0 : maxY - minY,
    dx: 0,
    dy: 0,
  };
}

/** One task with no edge: what layoutPart makes of it (one layer, at 0, 0), without its steps. */
function loneTask(members: number[], o: Required<LayoutOptions>): Part {
  return {
    members,
    // Plain arrays: a typed array costs more to make and collect, which 100,000 lone tasks show.
    layer: [0],
    order: [0],
    x: [0],
    y: [0],
    edges: [],
    layers: [[0]],
    crossings: 0,
    width: o.nodeWidth,
    height: o.nodeHeight,
    dx: 0,
    dy: 0,
  };
}

/**
 * Which edges to reverse so that none closes a cycle: the back edges of a depth-first
 * search from each node in input order (iterative: a chain of thousands cannot overflow
 * the stack). Reversing every back edge of a DFS leaves a DAG.
 */
function breakCycles(n: number, edges: ReadonlyArray<readonly [number, number]>): boolean[] {
  const out: number[][] = Array.from({ length: n }, () => []);
  for (const [e, [a]] of edges.entries()) out[a]?.push(e);
  const state = new Uint8Array(n); // 0 new, 1 on the stack, 2 done
  const reversed = new Array<boolean>(edges.length).fill(false);
  const stack: Array<{ v: number; next: number }> = [];
  for (let root = 0; root < n; root++) {
    if (state[root] !== 0) continue;
    state[root] = 1;
    stack.push({ v: root, next: 0 });
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { v: number; next: number };
      const list = out[top.v] as number[];
      if (top.next < list.length) {
        const e = list[top.next++] as number;
        const w = (edges[e] as readonly [number, number])[1];
        if (state[w] === 1) reversed[e] = true;
        else if (state[w] === 0) {
          state[w] = 1;
          stack.push({ v: w, next: 0 });
        }
        continue;
      }
      state[top.v] = 2;
      stack.pop();
    }
  }
  return reversed;
}

/**
 * Longest path from the sources (Kahn's order), then each source that feeds others is
 * moved right, next to the nearest of them: an edge of span one instead of a long one.
 */
function assignLayers(n: number, dag: ReadonlyArray<readonly [number, number]>): Int32Array {
  const layer = new Int32Array(n);
  const indegree = new Int32Array(n);
  const out: number[][] = Array.from({ length: n }, () => []);
  for (const [a, b] of dag) {
    out[a]?.push(b);
    indegree[b] = (indegree[b] as number) + 1;
  }
  const queue: number[] = [];
  for (let v = 0; v < n; v++) if (indegree[v] === 0) queue.push(v);
  const sources = [...queue];
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head] as number;
    for (const w of out[v] as number[]) {
      layer[w] = Math.max(layer[w] as number, (layer[v] as number) + 1);
      indegree[w] = (indegree[w] as number) - 1;
      if (indegree[w] === 0) queue.push(w);
    }
  }
  for (const s of sources) {
    const next = out[s] as number[];
    if (next.length === 0) continue;
    let nearest = Infinity;
    for (const w of next) nearest = Math.min(nearest, layer[w] as number);
    layer[s] = nearest - 1;
  }
  return layer;
}

/** Layers in a first order: depth-first from the top layer's nodes, children in input order. */
function initialOrder(total: number, n: number, nodeLayer: readonly number[], layerCount: number, down: readonly number[][]): number[][] {
  const layers: number[][] = Array.from({ length: layerCount }, () => []);
  const placed = new Uint8Array(total);
  const visit = (root: number) => {
    const stack = [root];
    while (stack.length > 0) {
      const v = stack.pop() as number;
      if (placed[v]) continue;
      placed[v] = 1;
      layers[nodeLayer[v] as number]?.push(v);
      const next = down[v] as number[];
      for (let i = next.length - 1; i >= 0; i--) if (!placed[next[i] as number]) stack.push(next[i] as number);
    }
  };
  // Real nodes by layer, then input order; dummies are reached through their chains.
  const real = Array.from({ length: n }, (_, v) => v).sort((a, b) => (nodeLayer[a] as number) - (nodeLayer[b] as number) || a - b);
  for (const v of real) visit(v);
  for (let v = 0; v < total; v++) if (!placed[v]) visit(v);
  return layers;
}

/**
 * Barycenter sweeps: each layer sorted by the mean position of its neighbours in the
 * layer just fixed (a node without any keeps its place), alternately downwards and
 * upwards; the best order seen is kept. Returns the crossings it leaves.
 */
function reduceCrossings(
  layers: number[][],
  nodeLayer: readonly number[],
  up: readonly number[][],
  down: readonly number[][],
  sweeps: number,
): number {
  const position = new Float64Array(up.length);
  const renumber = (l: readonly number[]) => {
    for (const [i, v] of l.entries()) position[v] = i;
  };
  layers.forEach(renumber);
  // Positions as fractions of their layer's length, so layers of different sizes compare.
  const relative = (v: number) => ((position[v] as number) + 0.5) / (layers[nodeLayer[v] as number] as number[]).length;
  let best = countAll(layers, down, position);
  // Nothing crosses (a chain, a tree drawn as one): the first order stands.
  if (best === 0) return 0;
  let bestLayers = layers.map((l) => [...l]);
  let stale = 0;
  for (let sweep = 0; sweep < sweeps && best > 0 && stale < 3; sweep++) {
    const downwards = sweep % 2 === 0;
    const range = downwards ? [...layers.keys()] : [...layers.keys()].reverse();
    const fixed = downwards ? up : down;
    for (const l of range) {
      const layer = layers[l] as number[];
      const key = new Float64Array(layer.length);
      layer.forEach((v, i) => {
        const neighbours = fixed[v] as number[];
        if (neighbours.length === 0) key[i] = relative(v);
        else {
          let sum = 0;
          for (const w of neighbours) sum += relative(w);
          key[i] = sum / neighbours.length;
        }
      });
      const order = layer.map((_, i) => i).sort((a, b) => (key[a] as number) - (key[b] as number) || a - b);
      layers[l] = order.map((i) => layer[i] as number);
      renumber(layers[l] as number[]);
    }
    const now = countAll(layers, down, position);
    if (now < best) {
      best = now;
      bestLayers = layers.map((l) => [...l]);
      stale = 0;
    } else stale++;
  }
  bestLayers.forEach((l, i) => {
    layers[i] = l;
    renumber(l);
  });
  return best;
}

/** Crossings between every pair of adjacent layers. */
function countAll(layers: readonly number[][], down: readonly number[][], position: Float64Array): number {
  let total = 0;
  for (let l = 0; l + 1 < layers.length; l++)
    total += countBetween(layers[l] as number[], (layers[l + 1] as number[]).length, down, position);
  return total;
}

/**
 * Crossings between a layer and the next (Barth, Jünger and Mutzel): edges sorted by
 * their upper end, then lower end; the crossings are the inversions among lower ends,
 * counted with a Fenwick tree.
 */
function countBetween(upper: readonly number[], lowerSize: number, down: readonly number[][], position: Float64Array): number {
  const ends: number[] = [];
  for (const v of upper) {
    const below = down[v] as number[];
    if (below.length === 1) ends.push(position[below[0] as number] as number);
    else if (below.length > 1) for (const t of below.map((w) => position[w] as number).sort((a, b) => a - b)) ends.push(t);
  }
  const tree = new Int32Array(lowerSize + 1);
  let crossings = 0;
  for (let i = 0; i < ends.length; i++) {
    const at = (ends[i] as number) + 1;
    // Edges seen so far whose lower end lies right of this one cross it.
    let notRight = 0;
    for (let k = at; k > 0; k -= k & -k) notRight += tree[k] as number;
    crossings += i - notRight;
    for (let k = at; k <= lowerSize; k += k & -k) tree[k] = (tree[k] as number) + 1;
  }
  return crossings;
}

/**
 * Vertical centres: stacked first, then a few rounds of pulling each node toward the
 * mean of its neighbours (above, then below, then both), each layer kept in order and
 * spaced by isotonic regression.
 */
function placeVertically(
  layers: readonly number[][],
  up: readonly number[][],
  down: readonly number[][],
  isDummy: (v: number) => boolean,
  o: Required<LayoutOptions>,
): Float64Array {
  const y = new Float64Array(up.length);
  const size = (v: number) => (isDummy(v) ? 0 : o.nodeHeight);
  const gapBetween = (a: number, b: number) => (size(a) + size(b)) / 2 + (isDummy(a) || isDummy(b) ? o.edgeGap : o.nodeGap);
  for (const layer of layers) {
    let at = 0;
    layer.forEach((v, i) => {
      if (i > 0) at += gapBetween(layer[i - 1] as number, v);
      y[v] = at;
    });
  }
  const mean = (list: readonly number[]) => {
    let sum = 0;
    for (const w of list) sum += y[w] as number;
    return sum / list.length;
  };
  const round = (neighbours: (v: number) => readonly number[], order: Iterable<number>) => {
    for (const l of order) {
      const layer = layers[l] as number[];
      if (layer.length === 0) continue;
      if (layer.length === 1) {
        // Alone in its layer (every layer of a chain): nothing to keep apart, it goes where it is pulled.
        const v = layer[0] as number;
        const near = neighbours(v);
        if (near.length > 0) y[v] = mean(near);
        continue;
      }
      const want = layer.map((v) => {
        const near = neighbours(v);
        return near.length === 0 ? (y[v] as number) : mean(near);
      });
      // Dummies weigh more: straight long edges matter more than a task sitting a little off.
      const weight = layer.map((v) => (isDummy(v) ? 2 : 1));
      const gaps = layer.slice(1).map((v, i) => gapBetween(layer[i] as number, v));
      const placed = spacedClosest(want, weight, gaps);
      for (const [i, v] of layer.entries()) y[v] = placed[i] as number;
    }
  };
  const neighbours = up.map((above, v) => above.concat(down[v] as number[]));
  const both = (v: number) => neighbours[v] as number[];
  const forward = [...layers.keys()];
  const backward = [...forward].reverse();
  for (let r = 0; r < 4; r++) {
    round((v) => up[v] as number[], forward);
    round((v) => down[v] as number[], backward);
  }
  round(both, forward);
  round(both, backward);
  return y;
}

/**
 * The positions closest to `want` (weighted least squares) with position[i+1] -
 * position[i] >= gaps[i]: with offsets taken out, an isotonic regression, solved by
 * pooling adjacent violators in one pass.
 */
export function spacedClosest(want: readonly number[], weight: readonly number[], gaps: readonly number[]): number[] {
  const offset: number[] = [0];
  for (let i = 0; i < gaps.length; i++) offset.push((offset[i] as number) + (gaps[i] as number));
  const blocks: Array<{ value: number; weight: number; count: number }> = [];
  want.forEach((w, i) => {
    let block = { value: w - (offset[i] as number), weight: weight[i] ?? 1, count: 1 };
    while (blocks.length > 0 && (blocks[blocks.length - 1] as { value: number }).value >= block.value) {
      const prev = blocks.pop() as { value: number; weight: number; count: number };
      const total = prev.weight + block.weight;
      block = { value: (prev.value * prev.weight + block.value * block.weight) / total, weight: total, count: prev.count + block.count };
    }
    blocks.push(block);
  });
  const out: number[] = [];
  for (const b of blocks) for (let k = 0; k < b.count; k++) out.push(b.value + (offset[out.length] as number));
  return out;
}

/** Rows of components, left to right, each row as tall as its tallest. Returns the total size. */
function pack(parts: Part[], o: Required<LayoutOptions>): { width: number; height: number } {
  // A loop, not Math.max(...): a list can have more components than a call takes arguments.
  let rowWidth = o.maxRowWidth;
  for (const p of parts) rowWidth = Math.max(rowWidth, p.width);
  let x = 0;
  let y = 0;
  let rowHeight = 0;
  let width = 0;
  for (const part of parts) {
    if (x > 0 && x + part.width > rowWidth) {
      y += rowHeight + o.componentGap;
      x = 0;
      rowHeight = 0;
    }
    part.dx = x;
    part.dy = y;
    x += part.width + o.componentGap;
    rowHeight = Math.max(rowHeight, part.height);
    width = Math.max(width, x - o.componentGap);
  }
  return { width, height: parts.length === 0 ? 0 : y + rowHeight };
}
