import type { BlockerAnswers, TaskIndex } from '../core/graph/blockers.js';
import type { ListGraph } from '../core/graph/list-graph.js';
import type { Task } from '../core/store/schema.js';
import { blockersOf } from './blockers-of.js';
import { STATUS_SYMBOL } from './status.js';
import { oneLine, truncate } from './text.js';

/**
 * `tasks graph --format mermaid|dot`: the graph as text for a PR comment, a CI summary
 * or Graphviz. Subjects and owners are agents' text: each format's own escaping keeps
 * them labels (Mermaid: every character outside a small safe set as an entity code;
 * DOT: a quoted string with `\` and `"` escaped), control characters go first.
 */

const COLOURS = {
  completed: { fill: '#dafbe1', stroke: '#1a7f37' },
  in_progress: { fill: '#ddf4ff', stroke: '#0969da' },
  pending: { fill: '#f6f8fa', stroke: '#8c959f' },
  blocked: { fill: '#ffebe9', stroke: '#cf222e' },
} as const;
const OPEN_EDGE = '#cf222e';

type Kind = keyof typeof COLOURS;

function kindOf(task: Task, blockers: BlockerAnswers): Kind {
  return blockersOf(blockers, task.id).blocked ? 'blocked' : task.status;
}

function label(task: Task, max = 60): string {
  const owner = task.owner ? ` · @${oneLine(task.owner)}` : '';
  return `${STATUS_SYMBOL[task.status]} #${oneLine(task.id)} ${truncate(oneLine(task.subject), max)}${owner}`;
}

/** Mermaid entity codes (`#9829;`) for everything but letters, digits, space and `.,_-`. */
export function mermaidText(text: string): string {
  let out = '';
  for (const ch of text) out += /[A-Za-z0-9 .,_-]/.test(ch) ? ch : `#${ch.codePointAt(0)};`;
  return out;
}

export function renderMermaid(graph: ListGraph, index: TaskIndex, blockers: BlockerAnswers): string {
  const lines = ['flowchart LR'];
  const byKind = new Map<Kind, string[]>();
  for (const node of graph.layout.nodes) {
    const task = index.get(node.id) as Task;
    lines.push(`  t${node.id}["${mermaidText(label(task))}"]`);
    const kind = kindOf(task, blockers);
    let ids = byKind.get(kind);
    if (ids === undefined) byKind.set(kind, (ids = []));
    ids.push(`t${node.id}`);
  }
  for (const e of graph.edges) lines.push(`  t${e.from} --> t${e.to}`);
  for (const [kind, ids] of byKind) lines.push(`  class ${ids.join(',')} ${kind}`);
  for (const kind of Object.keys(COLOURS) as Kind[]) {
    const c = COLOURS[kind];
    lines.push(`  classDef ${kind} fill:${c.fill},stroke:${c.stroke},color:#1f2328`);
  }
  const open = graph.edges.flatMap((e, i) => (e.open ? [i] : []));
  if (open.length > 0) lines.push(`  linkStyle ${open.join(',')} stroke:${OPEN_EDGE},stroke-width:2px`);
  return lines.join('\n');
}

/** A DOT quoted string: `\` and `"` escaped, so no escString sequence or quote gets through. */
export function dotString(text: string): string {
  return `"${oneLine(text).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function renderDot(graph: ListGraph, index: TaskIndex, blockers: BlockerAnswers, listId: string): string {
  const lines = [
    `digraph ${dotString(listId)} {`,
    '  rankdir=LR;',
    `  node [shape=box, style="rounded,filled", fontname="Helvetica", fillcolor="${COLOURS.pending.fill}", color="${COLOURS.pending.stroke}"];`,
    '  edge [color="#8c959f"];',
  ];
  for (const node of graph.layout.nodes) {
    const task = index.get(node.id) as Task;
    const c = COLOURS[kindOf(task, blockers)];
    lines.push(`  ${dotString(node.id)} [label=${dotString(label(task))}, fillcolor="${c.fill}", color="${c.stroke}"];`);
  }
  for (const e of graph.edges) {
    const style = e.open ? ` [color="${OPEN_EDGE}", penwidth=2]` : '';
    lines.push(`  ${dotString(e.from)} -> ${dotString(e.to)}${style};`);
  }
  lines.push('}');
  return lines.join('\n');
}
