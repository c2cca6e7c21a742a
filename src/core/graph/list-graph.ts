import { compareIds } from '../store/ids.js';
import type { Task } from '../store/task-guard.js';
import { findCycles } from './cycles.js';
import { buildBlocksGraph } from './graph.js';
import { type GraphLayout, type LaidEdge, type LayoutOptions, layoutGraph } from './layered-layout.js';

/**
 * A list's dependency graph, drawn: every edge recorded on either side ("A blocks B"
 * as B in A.blocks or A in B.blockedBy) between two of the given tasks, laid out in
 * layers, with which edges are open (the blocker is not completed, nor the task that
 * waits: what holds work up now) and the cycles agents' tools let through. Pure.
 */
export interface GraphEdge extends LaidEdge {
  open: boolean;
}

export interface ListGraph {
  layout: GraphLayout;
  edges: GraphEdge[];
  /** One path per strongly connected group, as `tasks check` reports them. */
  cycles: string[][];
}

export function listGraph(tasks: readonly Task[], options: LayoutOptions = {}): ListGraph {
  const sorted = [...tasks].sort((a, b) => compareIds(a.id, b.id));
  const byId = new Map(sorted.map((t) => [t.id, t]));
  const blocks = buildBlocksGraph(sorted);
  const pairs: Array<[string, string]> = [];
  // Edges to tasks not given (deleted, or left out as internal) are not drawn, nor part of a cycle.
  let foreign = blocks.size > byId.size;
  for (const t of sorted) {
    const to = blocks.get(t.id);
    if (to === undefined) continue;
    const next = [...to];
    if (next.length > 1) next.sort(compareIds);
    for (const id of next) {
      if (byId.has(id)) pairs.push([t.id, id]);
      else foreign = true;
    }
  }
  if (!foreign) for (const id of blocks.keys()) if (!byId.has(id)) foreign = true;
  const layout = layoutGraph(
    sorted.map((t) => t.id),
    pairs,
    options,
  );
  // The layout's edges are its own, made for this call: marked in place rather than copied.
  const edges = layout.edges as GraphEdge[];
  for (const e of edges) e.open = byId.get(e.from)?.status !== 'completed' && byId.get(e.to)?.status !== 'completed';
  const known = foreign
    ? new Map([...blocks].filter(([id]) => byId.has(id)).map(([id, to]) => [id, new Set([...to].filter((x) => byId.has(x)))]))
    : blocks;
  return { layout, edges, cycles: findCycles(known) };
}
