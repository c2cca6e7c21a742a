import { type ListGraph, listGraph } from '../../core/graph/list-graph.js';
import type { Task } from '../../core/store/task-guard.js';
import type { BoardTask, ListPayload, TaskFacts } from '../board-protocol.js';
import { h, s } from './page-dom.js';
import { cutLine } from './page-text.js';

/**
 * The dependency graph as SVG, drawn with core's layered layout (the one `tasks graph
 * --json` gives): tasks as boxes coloured by status, open blockers as red edges, an edge
 * that closes a cycle dashed; tasks outside the filters dimmed.
 *
 * It is updated in place: the drawing, each node and each edge are made once and then
 * only changed, so a change by an agent neither moves what the person is looking at nor
 * stops a drag. A node keeps the place it was first drawn at (or dragged to) for as long
 * as the page shows the list; a new task takes its place in the layout, below anything
 * already there. "Tidy" lays the whole list out afresh. It opens on the work in progress,
 * at a size that can be read. Drag the background to pan, a task to move it; wheel to zoom.
 */
export interface GraphHandlers {
  open(id: string): void;
}

interface View {
  x: number;
  y: number;
  w: number;
  h: number;
}

interface Place {
  x: number;
  y: number;
}

interface NodeEl {
  g: SVGGElement;
  key: string;
  width: number;
  height: number;
}

interface Drawn {
  list: string;
  wrap: HTMLElement;
  svg: SVGSVGElement;
  edgeLayer: SVGGElement;
  nodeLayer: SVGGElement;
  note: HTMLElement;
  nodes: Map<string, NodeEl>;
  edges: Map<string, SVGPathElement>;
  /** Where each node is drawn (its top-left corner): where it was first laid out, or dragged to. */
  places: Map<string, Place>;
  /** Nodes the person dragged: their edges are drawn straight from box to box. */
  moved: Set<string>;
  /** The layout that `places` came from, to tell a node still at its laid-out place. */
  laidOut: Map<string, Place>;
  layoutKey: string;
  graph: ListGraph;
  full: View;
  view: View;
  handlers: GraphHandlers;
  /** A node being dragged, if any: redraws leave it where the pointer has it. */
  dragging: string | undefined;
  /** The panel's size when the drawing was made. */
  panel: { w: number; h: number };
}

let drawn: Drawn | undefined;
let cached: { key: string; graph: ListGraph } | undefined;

const NODE_WIDTH = 200;
/** The smallest zoom a graph opens at: text stays readable; a bigger graph opens on its work in progress instead. */
const READABLE = 0.8;

function shapeKey(tasks: readonly BoardTask[]): string {
  return tasks.map((t) => `${t.id}:${t.blocks.join(',')}:${t.blockedBy.join(',')}`).join(';');
}

function graphOf(list: ListPayload, includeInternal: boolean, rowWidth: number): ListGraph {
  const tasks = list.tasks.filter((t) => includeInternal || !list.facts[t.id]?.internal);
  const key = `${list.id}|${rowWidth}|${shapeKey(tasks)}`;
  if (cached?.key !== key)
    cached = { key, graph: listGraph(tasks as Task[], { maxRowWidth: rowWidth, nodeWidth: NODE_WIDTH, layerGap: 56 }) };
  return cached.graph;
}

function edgePath(points: ReadonlyArray<Place>): string {
  const [first, ...rest] = points;
  if (!first) return '';
  let d = `M${first.x},${first.y}`;
  let prev = first;
  for (const p of rest) {
    if (Math.abs(p.y - prev.y) < 0.5 || Math.abs(p.x - prev.x) < 1) d += ` L${p.x},${p.y}`;
    else {
      const mid = (prev.x + p.x) / 2;
      d += ` C${mid},${prev.y} ${mid},${p.y} ${p.x},${p.y}`;
    }
    prev = p;
  }
  return d;
}

function secondLine(t: BoardTask, facts: TaskFacts | undefined): string {
  if (t.status === 'in_progress' && t.activeForm) return `⟳ ${cutLine(t.activeForm, 30)}`;
  if (t.owner) return `@${cutLine(t.owner, 28)}${facts?.ownerGone ? ' (gone)' : ''}`;
  if (t.status === 'completed') return 'done';
  if (facts?.blocked) return `waits for ${facts.openBlockers.map((b) => `#${b}`).join(' ')}`;
  return t.status === 'in_progress' ? 'in progress' : 'pending';
}

const STATUS_WORDS: Record<string, string> = { pending: 'pending', in_progress: 'in progress', completed: 'done', blocked: 'blocked' };

export function renderGraph(
  container: HTMLElement,
  list: ListPayload,
  shownIds: ReadonlySet<string>,
  includeInternal: boolean,
  selected: string | undefined,
  handlers: GraphHandlers,
): void {
  let d = drawn;
  const fresh = !d || d.list !== list.id || !container.contains(d.wrap);
  // The panel's size is read once, when the drawing is made: reading it on every change
  // would make the browser lay out the whole page (hundreds of nodes) before drawing.
  const panel = fresh || !d ? { w: Math.max(320, container.clientWidth - 48), h: Math.max(360, container.clientHeight - 40) } : d.panel;
  // Components are packed in rows as wide as the panel, so a small list reads at full size.
  const graph = graphOf(list, includeInternal, Math.max(600, Math.round(panel.w / 100) * 100));
  if (fresh || !d) {
    d = create(container, list.id, graph, handlers, panel);
    drawn = d;
    place(d, graph, true);
    d.view = openingView(d, list, panel.w, panel.h);
  } else if (d.graph !== graph) {
    place(d, graph, false);
  }
  d.handlers = handlers;
  d.graph = graph;
  const byId = new Map(list.tasks.map((t) => [t.id, t]));
  updateNodes(d, list, byId, shownIds, selected);
  updateEdges(d, shownIds, selected);
  const open = graph.edges.filter((e) => e.open).length;
  const cycles = graph.cycles.length;
  const note = `${graph.layout.nodes.length} tasks · ${graph.edges.length} edges · ${open} open${cycles > 0 ? ` · ${cycles} cycle${cycles === 1 ? '' : 's'}` : ''}`;
  if (d.note.textContent !== note) d.note.textContent = note;
  if (fresh) applyView(d);
}

function create(container: HTMLElement, listId: string, graph: ListGraph, handlers: GraphHandlers, panel: { w: number; h: number }): Drawn {
  const svg = s('svg', {
    class: 'graph',
    role: 'group',
    'aria-label': 'dependency graph: arrows point from a task to the tasks that wait for it',
  });
  svg.append(
    s(
      'defs',
      {},
      s(
        'marker',
        { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
        s('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrow' }),
      ),
      s(
        'marker',
        { id: 'arrow-open', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
        s('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrow open' }),
      ),
    ),
  );
  const edgeLayer = s('g', { class: 'edges' });
  const nodeLayer = s('g', { class: 'nodes' });
  svg.append(edgeLayer, nodeLayer);
  const note = h('span', { class: 'graph-note' });
  const wrap = h('div', { class: 'graph-wrap' });
  const d: Drawn = {
    list: listId,
    wrap,
    svg,
    edgeLayer,
    nodeLayer,
    note,
    nodes: new Map(),
    edges: new Map(),
    places: new Map(),
    moved: new Set(),
    laidOut: new Map(),
    layoutKey: '',
    graph,
    full: { x: 0, y: 0, w: 300, h: 200 },
    view: { x: 0, y: 0, w: 300, h: 200 },
    handlers,
    dragging: undefined,
    panel,
  };
  const tools = h(
    'div',
    { class: 'graph-tools' },
    h('button', { type: 'button', 'aria-label': 'zoom in', onclick: () => zoom(d, 0.8) }, '+'),
    h('button', { type: 'button', 'aria-label': 'zoom out', onclick: () => zoom(d, 1.25) }, '−'),
    h('button', { type: 'button', title: 'the whole graph', onclick: () => fitAll(d) }, 'Fit'),
    h(
      'button',
      {
        type: 'button',
        title: 'lay every task out afresh (forgets where tasks were moved to)',
        onclick: () => {
          place(d, d.graph, true);
          for (const id of d.nodes.keys()) moveNode(d, id);
          updateAllEdges(d);
        },
      },
      'Tidy',
    ),
    note,
  );
  wrap.append(tools, svg);
  container.replaceChildren(wrap);
  enablePointer(d);
  return d;
}

/**
 * Places for the layout's nodes: afresh (every node where the layout has it), or kept
 * (a node already drawn stays; a new one goes where the layout has it, moved down past
 * any box already there).
 */
function place(d: Drawn, graph: ListGraph, afresh: boolean): void {
  const laid = new Map(graph.layout.nodes.map((n) => [n.id, { x: n.x, y: n.y }]));
  if (afresh) {
    d.places = new Map([...laid].map(([id, p]) => [id, { ...p }]));
    d.moved.clear();
  } else {
    const kept = new Map<string, Place>();
    for (const id of laid.keys()) {
      const had = d.places.get(id);
      if (had) kept.set(id, had);
    }
    const boxes = [...kept.values()];
    for (const n of graph.layout.nodes) {
      if (kept.has(n.id)) continue;
      const p = { x: n.x, y: n.y };
      while (boxes.some((b) => Math.abs(b.x - p.x) < n.width && Math.abs(b.y - p.y) < n.height + 8)) p.y += n.height + 14;
      kept.set(n.id, p);
      boxes.push(p);
    }
    d.places = kept;
    for (const id of d.moved) if (!kept.has(id)) d.moved.delete(id);
  }
  d.laidOut = laid;
  const pad = 24;
  let right = graph.layout.width;
  let bottom = graph.layout.height;
  for (const p of d.places.values()) {
    right = Math.max(right, p.x + NODE_WIDTH);
    bottom = Math.max(bottom, p.y + 60);
  }
  // Room above for the tools that float over the drawing.
  d.full = { x: -pad, y: -pad - 40, w: Math.max(right + 2 * pad, 300), h: Math.max(bottom + 2 * pad + 40, 200) };
}

/** Where the graph opens: all of it if it reads at that size; else, at a readable size, its work in progress. */
function openingView(d: Drawn, list: ListPayload, width: number, height: number): View {
  const fitScale = Math.min(1, width / d.full.w, height / d.full.h);
  if (fitScale >= READABLE) return { x: d.full.x, y: d.full.y, w: width / fitScale, h: height / fitScale };
  const scale = Math.max(READABLE, Math.min(1, fitScale));
  const w = width / scale;
  const hgt = height / scale;
  const order = list.tasks;
  const target =
    order.find((t) => t.status === 'in_progress' && d.places.has(t.id)) ??
    order.find((t) => t.status === 'pending' && list.facts[t.id]?.ready && d.places.has(t.id)) ??
    order.find((t) => t.status !== 'completed' && d.places.has(t.id));
  const at = target ? d.places.get(target.id) : undefined;
  if (!at) return { x: d.full.x, y: d.full.y, w, h: hgt };
  // The task a third of the way in, so what waits for it (to its right) shows too.
  return { x: at.x - w / 3, y: at.y + 24 - hgt / 2, w, h: hgt };
}

function updateNodes(
  d: Drawn,
  list: ListPayload,
  byId: ReadonlyMap<string, BoardTask>,
  shownIds: ReadonlySet<string>,
  selected: string | undefined,
): void {
  const seen = new Set<string>();
  for (const n of d.graph.layout.nodes) {
    const t = byId.get(n.id);
    if (!t) continue;
    seen.add(n.id);
    const facts = list.facts[n.id];
    const kind = facts?.blocked ? 'blocked' : t.status;
    const second = secondLine(t, facts);
    const cls = `node ${kind}${shownIds.has(n.id) ? '' : ' dim'}${n.id === selected ? ' selected' : ''}${d.moved.has(n.id) ? ' moved' : ''}${n.id === d.dragging ? ' dragging' : ''}`;
    const key = JSON.stringify([cls, t.subject, second, n.width, n.height]);
    let el = d.nodes.get(n.id);
    if (!el) {
      const g = s('g', { 'data-task': n.id, tabindex: 0, role: 'button' });
      el = { g, key: '', width: n.width, height: n.height };
      d.nodes.set(n.id, el);
      d.nodeLayer.append(g);
      moveNode(d, n.id);
    }
    if (el.key !== key) {
      el.key = key;
      el.width = n.width;
      el.height = n.height;
      el.g.setAttribute('class', cls);
      el.g.replaceChildren(
        s('rect', { width: n.width, height: n.height, rx: 8, ry: 8 }),
        s('rect', { class: 'status-bar', width: 5, height: n.height, rx: 2, ry: 2 }),
        s('text', { x: 14, y: 20, class: 'title' }, s('tspan', { class: 'nid' }, `#${cutLine(n.id, 10)} `), cutLine(t.subject, 24)),
        s('text', { x: 14, y: 38, class: 'sub' }, second),
        s('title', {}, `#${n.id} ${cutLine(t.subject, 200)} (${STATUS_WORDS[kind] ?? kind})`),
      );
    }
    // A node keeps its place; only one whose place changed (Tidy, a drag) moves.
    const p = d.places.get(n.id);
    if (p && el.g.dataset.at !== `${p.x},${p.y}`) moveNode(d, n.id);
  }
  for (const [id, el] of d.nodes) {
    if (seen.has(id)) continue;
    el.g.remove();
    d.nodes.delete(id);
  }
}

function moveNode(d: Drawn, id: string): void {
  const el = d.nodes.get(id);
  const p = d.places.get(id);
  if (!el || !p) return;
  el.g.setAttribute('transform', `translate(${p.x},${p.y})`);
  el.g.dataset.at = `${p.x},${p.y}`;
}

function atLayout(d: Drawn, id: string): boolean {
  const p = d.places.get(id);
  const l = d.laidOut.get(id);
  return p !== undefined && l !== undefined && p.x === l.x && p.y === l.y;
}

/** An edge's points: the layout's route while both ends are where the layout put them, else box to box. */
function edgePoints(d: Drawn, e: ListGraph['edges'][number]): Place[] {
  if (atLayout(d, e.from) && atLayout(d, e.to)) return e.points;
  const a = d.places.get(e.from);
  const b = d.places.get(e.to);
  const na = d.nodes.get(e.from);
  const nb = d.nodes.get(e.to);
  if (!a || !b) return e.points;
  const ah = na?.height ?? 48;
  const bh = nb?.height ?? 48;
  const aw = na?.width ?? NODE_WIDTH;
  const bw = nb?.width ?? NODE_WIDTH;
  // Leave by the side facing the other box.
  return a.x + aw <= b.x
    ? [
        { x: a.x + aw, y: a.y + ah / 2 },
        { x: b.x, y: b.y + bh / 2 },
      ]
    : [
        { x: a.x, y: a.y + ah / 2 },
        { x: b.x + bw, y: b.y + bh / 2 },
      ];
}

function updateEdges(d: Drawn, shownIds: ReadonlySet<string>, selected: string | undefined): void {
  const seen = new Set<string>();
  for (const e of d.graph.edges) {
    const key = `${e.from}\u0000${e.to}`;
    seen.add(key);
    const focus = selected !== undefined && (e.to === selected || e.from === selected);
    const dim = !shownIds.has(e.from) || !shownIds.has(e.to);
    const cls = `edge${e.open ? ' open' : ''}${e.reversed ? ' reversed' : ''}${focus ? ' focus' : ''}${dim ? ' dim' : ''}`;
    let path = d.edges.get(key);
    if (!path) {
      path = s('path', { 'data-from': e.from, 'data-to': e.to });
      d.edges.set(key, path);
      d.edgeLayer.append(path);
    }
    const route = edgePath(edgePoints(d, e));
    if (path.getAttribute('d') !== route) path.setAttribute('d', route);
    if (path.getAttribute('class') !== cls) path.setAttribute('class', cls);
    const marker = e.open ? 'url(#arrow-open)' : 'url(#arrow)';
    if (path.getAttribute('marker-end') !== marker) path.setAttribute('marker-end', marker);
  }
  for (const [key, path] of d.edges) {
    if (seen.has(key)) continue;
    path.remove();
    d.edges.delete(key);
  }
}

function updateAllEdges(d: Drawn, only?: string): void {
  for (const e of d.graph.edges) {
    if (only !== undefined && e.from !== only && e.to !== only) continue;
    d.edges.get(`${e.from}\u0000${e.to}`)?.setAttribute('d', edgePath(edgePoints(d, e)));
  }
}

function applyView(d: Drawn): void {
  const v = d.view;
  d.svg.setAttribute('viewBox', `${v.x} ${v.y} ${v.w} ${v.h}`);
  // The zoom, as a percentage (the svg shows the view box scaled to fit, centred).
  d.wrap.dataset.zoom = String(Math.round(Math.min(d.panel.w / v.w, d.panel.h / v.h) * 100));
}

function fitAll(d: Drawn): void {
  d.view = { ...d.full };
  applyView(d);
}

function zoom(d: Drawn, factor: number, at?: Place): void {
  const v = d.view;
  const cx = at?.x ?? v.x + v.w / 2;
  const cy = at?.y ?? v.y + v.h / 2;
  d.view = { x: cx - (cx - v.x) * factor, y: cy - (cy - v.y) * factor, w: v.w * factor, h: v.h * factor };
  applyView(d);
}

/** Drawing units per screen pixel. */
function unitsPerPixel(d: Drawn): number {
  const rect = d.svg.getBoundingClientRect();
  return Math.max(d.view.w / Math.max(1, rect.width), d.view.h / Math.max(1, rect.height));
}

/**
 * The pointer: on the background it pans; on a task it drags the task (past a few
 * pixels) or, not moved, opens it. The listeners belong to the drawing, which outlives
 * every redraw, so a drag goes on through an agent's change.
 */
function enablePointer(d: Drawn): void {
  let pan: { x: number; y: number; view: View } | undefined;
  let node: { id: string; x: number; y: number; from: Place; moved: boolean } | undefined;
  const svg = d.svg;
  svg.addEventListener('pointerdown', (e) => {
    if (e.button !== 0) return;
    const g = (e.target as Element).closest<SVGGElement>('.node');
    const id = g?.dataset.task;
    if (id !== undefined) {
      const at = d.places.get(id);
      if (!at) return;
      node = { id, x: e.clientX, y: e.clientY, from: { ...at }, moved: false };
    } else {
      pan = { x: e.clientX, y: e.clientY, view: { ...d.view } };
    }
    svg.setPointerCapture(e.pointerId);
  });
  svg.addEventListener('pointermove', (e) => {
    const k = unitsPerPixel(d);
    if (node) {
      const dx = e.clientX - node.x;
      const dy = e.clientY - node.y;
      if (!node.moved && Math.hypot(dx, dy) < 4) return;
      if (!node.moved) {
        node.moved = true;
        d.dragging = node.id;
        d.moved.add(node.id);
        d.nodes.get(node.id)?.g.classList.add('dragging', 'moved');
      }
      d.places.set(node.id, { x: Math.round(node.from.x + dx * k), y: Math.round(node.from.y + dy * k) });
      moveNode(d, node.id);
      updateAllEdges(d, node.id);
      return;
    }
    if (!pan) return;
    d.view = { ...pan.view, x: pan.view.x - (e.clientX - pan.x) * k, y: pan.view.y - (e.clientY - pan.y) * k };
    applyView(d);
  });
  const end = (e: PointerEvent) => {
    const was = node;
    node = undefined;
    pan = undefined;
    if (!was) return;
    d.dragging = undefined;
    d.nodes.get(was.id)?.g.classList.remove('dragging');
    if (!was.moved && e.type === 'pointerup') d.handlers.open(was.id);
  };
  svg.addEventListener('pointerup', end);
  svg.addEventListener('pointercancel', end);
  svg.addEventListener('keydown', (e) => {
    const id = (e.target as Element).closest<SVGGElement>('.node')?.dataset.task;
    if (id === undefined || (e.key !== 'Enter' && e.key !== ' ')) return;
    e.preventDefault();
    d.handlers.open(id);
  });
  svg.addEventListener(
    'wheel',
    (e) => {
      e.preventDefault();
      const rect = svg.getBoundingClientRect();
      const px = d.view.x + ((e.clientX - rect.left) / Math.max(1, rect.width)) * d.view.w;
      const py = d.view.y + ((e.clientY - rect.top) / Math.max(1, rect.height)) * d.view.h;
      zoom(d, e.deltaY > 0 ? 1.15 : 1 / 1.15, { x: px, y: py });
    },
    { passive: false },
  );
  svg.addEventListener('dblclick', (e) => {
    if ((e.target as Element).closest('.node')) return;
    fitAll(d);
  });
}
