import { compareIds } from '../store/ids.js';
import type { BlocksGraph } from './graph.js';

/**
 * Every dependency cycle of a graph, one path per strongly connected component
 * (Tarjan's algorithm, iterative so that a long chain cannot overflow the stack).
 * A path starts and ends at the component's lowest id: ["3", "5", "7", "3"];
 * a task that blocks itself gives ["3", "3"]. Components come in order of that id.
 */
export function findCycles(graph: BlocksGraph): string[][] {
  // Nodes as numbers in id order, successors as arrays of them in id order: the search
  // below then touches no map or string, which keeps a list of tens of thousands fast.
  const names = new Set<string>();
  for (const [from, to] of graph) {
    names.add(from);
    for (const id of to) names.add(id);
  }
  const nodes = [...names].sort(byId);
  const number = new Map<string, number>();
  for (const [i, id] of nodes.entries()) number.set(id, i);
  const next: number[][] = nodes.map((id) => {
    const to = graph.get(id);
    if (to === undefined || to.size === 0) return [];
    const out: number[] = [];
    for (const succ of to) out.push(number.get(succ) as number);
    return out.sort((a, b) => a - b);
  });
  const n = nodes.length;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const components: number[][] = [];
  let counter = 0;
  // Each frame: a node and how many of its successors were looked at.
  const frameNode: number[] = [];
  const frameAt: number[] = [];
  const visit = (v: number) => {
    index[v] = low[v] = counter++;
    stack.push(v);
    onStack[v] = 1;
    frameNode.push(v);
    frameAt.push(0);
  };
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    visit(root);
    while (frameNode.length > 0) {
      const top = frameNode.length - 1;
      const v = frameNode[top] as number;
      const succs = next[v] as number[];
      const at = frameAt[top] as number;
      if (at < succs.length) {
        frameAt[top] = at + 1;
        const w = succs[at] as number;
        if (index[w] === -1) visit(w);
        else if (onStack[w]) low[v] = Math.min(low[v] as number, index[w] as number);
        continue;
      }
      frameNode.pop();
      frameAt.pop();
      if (top > 0) {
        const parent = frameNode[top - 1] as number;
        low[parent] = Math.min(low[parent] as number, low[v] as number);
      }
      if (low[v] === index[v]) {
        const component: number[] = [];
        let member: number;
        do {
          member = stack.pop() as number;
          onStack[member] = 0;
          component.push(member);
        } while (member !== v);
        components.push(component);
      }
    }
  }

  const cycles: string[][] = [];
  for (const component of components) {
    // The lowest number is the lowest id.
    let lowest = component[0] as number;
    for (const m of component) lowest = Math.min(lowest, m);
    const start = nodes[lowest] as string;
    if (component.length === 1) {
      if (graph.get(start)?.has(start)) cycles.push([start, start]);
      continue;
    }
    cycles.push(shortestCycle(graph, new Set(component.map((m) => nodes[m] as string)), start));
  }
  return cycles.sort((a, b) => byId(a[0] as string, b[0] as string));
}

/** Breadth-first, within one component, from `start` back to `start`. */
function shortestCycle(graph: BlocksGraph, members: ReadonlySet<string>, start: string): string[] {
  const prev = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head] as string;
    for (const next of [...(graph.get(node) ?? [])].sort(byId)) {
      if (!members.has(next)) continue;
      if (next === start) return [start, ...pathFrom(prev, start, node), start];
      if (!prev.has(next)) {
        prev.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

function pathFrom(prev: ReadonlyMap<string, string>, start: string, end: string): string[] {
  const path: string[] = [];
  for (let cur = end; cur !== start; cur = prev.get(cur) as string) path.push(cur);
  return path.reverse();
}

/** Ids in numeric order (exact at any length); other node names after them, by text. */
const byId = compareIds;
