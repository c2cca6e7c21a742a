import { compareIds } from '../store/ids.js';
import type { ListGraph } from './list-graph.js';

/**
 * A dependency graph as a tree a terminal can print, one task a line: each task under
 * the blocker it waits for that is drawn furthest along (so it comes after everything
 * it waits for), tasks nothing blocks at the top level. A task that waits for several
 * appears once in full; under its other blockers it is a reference line, and so is an
 * edge that closes a cycle. Children in id order. Pure.
 */
export interface TreeRow {
  id: string;
  /** 0 for a top-level task. */
  depth: number;
  /**
   * The row this one is drawn under (its index in the rows), undefined at the top level.
   * What a level's guide is ("│" where a sibling follows) is read by walking up these
   * (render/graph-tree.ts): each row holds one number, so a chain thousands deep stays linear in
   * size, where a copy of every level above in each row would be quadratic.
   */
  parent: number | undefined;
  /** The last child of its parent ("└" rather than "├"). */
  last: boolean;
  /** A reference to a task shown in full elsewhere: under this task, or closing a cycle. */
  ref?: { shownUnder: string | undefined; cycle: boolean } | undefined;
}

export function dependencyTree(graph: ListGraph): TreeRow[] {
  const { layout } = graph;
  const layerOf = new Map(layout.nodes.map((n) => [n.id, n.layer]));
  const parent = new Map<string, string>();
  for (const e of layout.edges) {
    if (e.reversed) continue;
    const current = parent.get(e.to);
    const deeper =
      current === undefined ||
      (layerOf.get(e.from) ?? 0) > (layerOf.get(current) ?? 0) ||
      ((layerOf.get(e.from) ?? 0) === (layerOf.get(current) ?? 0) && compareIds(e.from, current) < 0);
    if (deeper) parent.set(e.to, e.from);
  }
  const children = new Map<string, Array<{ id: string; ref?: TreeRow['ref'] }>>();
  for (const e of layout.edges) {
    const full = !e.reversed && parent.get(e.to) === e.from;
    let list = children.get(e.from);
    if (list === undefined) children.set(e.from, (list = []));
    list.push(full ? { id: e.to } : { id: e.to, ref: { shownUnder: e.reversed ? undefined : parent.get(e.to), cycle: e.reversed } });
  }
  for (const list of children.values())
    list.sort((a, b) => compareIds(a.id, b.id) || Number(a.ref !== undefined) - Number(b.ref !== undefined));
  const roots = layout.nodes
    .map((n) => n.id)
    .filter((id) => !parent.has(id))
    .sort(compareIds);
  const rows: TreeRow[] = [];
  // Iterative: a chain of thousands of tasks is thousands of levels deep.
  const stack: TreeRow[] = [];
  for (let i = roots.length - 1; i >= 0; i--)
    stack.push({ id: roots[i] as string, depth: 0, parent: undefined, last: i === roots.length - 1 });
  while (stack.length > 0) {
    const row = stack.pop() as TreeRow;
    const at = rows.push(row) - 1;
    if (row.ref) continue;
    const kids = children.get(row.id) ?? [];
    for (let k = kids.length - 1; k >= 0; k--) {
      const kid = kids[k] as { id: string; ref?: TreeRow['ref'] };
      stack.push({ id: kid.id, depth: row.depth + 1, parent: at, last: k === kids.length - 1, ...(kid.ref ? { ref: kid.ref } : {}) });
    }
  }
  return rows;
}
