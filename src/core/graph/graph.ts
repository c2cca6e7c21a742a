/**
 * The dependency graph as pure rules over tasks already read
 * (docs/task-store.md section 6.3, "block"): both sides of an edge, open blockers and
 * readiness (blockers.ts), cycles (cycles.ts) and edge edits (edges.ts). No I/O; writes/
 * applies them under locks.
 */
import type { Task } from '../store/task-guard.js';

/**
 * The dependency graph, from both sides of every edge: "A blocks B" is recorded as
 * B in A.blocks and A in B.blockedBy. We read the union so a half-mirrored edge
 * (an agent interrupted between its two writes) still counts.
 */
export type BlocksGraph = Map<string, Set<string>>;

export function buildBlocksGraph(tasks: readonly Task[]): BlocksGraph {
  const graph: BlocksGraph = new Map();
  const edge = (from: string, to: string) => {
    let set = graph.get(from);
    if (!set) graph.set(from, (set = new Set()));
    set.add(to);
  };
  for (const t of tasks) {
    for (const b of t.blocks) edge(t.id, b);
    for (const b of t.blockedBy) edge(b, t.id);
  }
  return graph;
}

/**
 * Would adding "blocker blocks blocked" close a cycle? Returns the cycle as a path
 * that starts and ends at `blocker` (e.g. ["3","5","7","3"]), or undefined.
 */
export function cycleIfAdded(graph: BlocksGraph, blocker: string, blocked: string): string[] | undefined {
  if (blocker === blocked) return [blocker, blocker];
  // Is there a path blocked -> ... -> blocker already? Breadth-first for the shortest one.
  const prev = new Map<string, string>([[blocked, blocked]]);
  const queue = [blocked];
  while (queue.length > 0) {
    const node = queue.shift() as string;
    if (node === blocker) {
      const path = [node];
      let cur = node;
      while (cur !== blocked) {
        cur = prev.get(cur) as string;
        path.unshift(cur);
      }
      return [blocker, ...path];
    }
    for (const next of graph.get(node) ?? []) {
      if (!prev.has(next)) {
        prev.set(next, node);
        queue.push(next);
      }
    }
  }
  return undefined;
}

export function formatCycle(path: readonly string[]): string {
  return path.join(' -> ');
}
