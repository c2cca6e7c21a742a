import type { BlockerAnswers, TaskIndex } from '../core/graph/blockers.js';
import type { ListGraph } from '../core/graph/list-graph.js';
import { blockersOf } from './blockers-of.js';

/**
 * `tasks graph --json`: each node with its task's status, owner and open blockers (as
 * core judges them against the whole list) and its place in the layered drawing; each
 * edge from the blocker to the task that waits, with its route.
 */
export function graphJson(listId: string, graph: ListGraph, index: TaskIndex, blockers: BlockerAnswers) {
  return {
    list: listId,
    nodes: graph.layout.nodes.map((n) => {
      const task = index.get(n.id);
      const open = task === undefined || task.status === 'completed' ? [] : blockersOf(blockers, n.id).open;
      return {
        id: n.id,
        subject: task?.subject ?? null,
        status: task?.status ?? null,
        owner: task?.owner ?? null,
        activeForm: task?.activeForm ?? null,
        blocked: open.length > 0,
        openBlockers: open,
        layer: n.layer,
        order: n.order,
        x: n.x,
        y: n.y,
        width: n.width,
        height: n.height,
      };
    }),
    edges: graph.edges.map((e) => ({ from: e.from, to: e.to, open: e.open, reversed: e.reversed, points: e.points })),
    layers: graph.layout.layers,
    cycles: graph.cycles,
    selfLoops: graph.layout.selfLoops,
  };
}
