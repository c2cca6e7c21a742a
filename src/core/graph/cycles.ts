import { compareIds } from '../store/ids.js';
import type { BlocksGraph } from './graph.js';

/**
 * Every dependency cycle of a graph, one path per strongly connected component
 * (Tarjan's algorithm, iterative so that a long chain cannot overflow the stack).
 * A path starts and ends at the component's lowest id: ["3", "5", "7", "3"];
 * a task that blocks itself gives ["3", "3"]. Components come in order of that id.
 */
export function findCycles(graph: BlocksGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  const nodes = [...new Set([...graph.keys(), ...[...graph.values()].flatMap((s) => [...s])])].sort(byId);

  for (const root of nodes) {
    if (index.has(root)) continue;
    // Each frame: a node and an iterator over its successors.
    const frames: Array<{ node: string; next: Iterator<string> }> = [];
    const visit = (node: string) => {
      index.set(node, counter);
      low.set(node, counter);
      counter++;
      stack.push(node);
      onStack.add(node);
      frames.push({ node, next: [...(graph.get(node) ?? [])].sort(byId)[Symbol.iterator]() });
    };
    visit(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1] as { node: string; next: Iterator<string> };
      const step = frame.next.next();
      if (!step.done) {
        const succ = step.value;
        if (!index.has(succ)) visit(succ);
        else if (onStack.has(succ)) low.set(frame.node, Math.min(low.get(frame.node) as number, index.get(succ) as number));
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node) as number, low.get(frame.node) as number));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        components.push(component);
      }
    }
  }

  const cycles: string[][] = [];
  for (const component of components) {
    const start = [...component].sort(byId)[0] as string;
    if (component.length === 1) {
      if (graph.get(start)?.has(start)) cycles.push([start, start]);
      continue;
    }
    cycles.push(shortestCycle(graph, new Set(component), start));
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
