import { type ListGraph, listGraph } from '../../core/graph/list-graph.js';
import type { Task } from '../../core/store/task-guard.js';
import type { BoardTask, ListPayload } from '../board-protocol.js';
import { h, s } from './page-dom.js';
import { cutLine } from './page-text.js';

/**
 * The dependency graph as SVG, drawn with core's layered layout (the one `tasks graph
 * --json` gives): tasks as boxes coloured by status, open blockers as red edges, an edge
 * that closes a cycle dashed; tasks outside the filters dimmed. The layout is computed
 * again only when the graph's shape changes. Drag to pan, wheel to zoom.
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

let cached: { key: string; graph: ListGraph } | undefined;
let view: View | undefined;
let viewFor: string | undefined;

function shapeKey(tasks: readonly BoardTask[]): string {
  return tasks.map((t) => `${t.id}:${t.blocks.join(',')}:${t.blockedBy.join(',')}`).join(';');
}

export function graphOf(list: ListPayload, includeInternal: boolean, rowWidth: number): ListGraph {
  const tasks = list.tasks.filter((t) => includeInternal || !list.facts[t.id]?.internal);
  const key = `${list.id}|${rowWidth}|${shapeKey(tasks)}`;
  if (cached?.key !== key) cached = { key, graph: listGraph(tasks as Task[], { maxRowWidth: rowWidth, nodeWidth: 200, layerGap: 56 }) };
  return cached.graph;
}

/** The drawing at 1:1 where it fits, else scaled down to fit (not below 40%), from its top-left corner. */
function initialView(full: View, width: number, height: number): View {
  const scale = Math.max(0.4, Math.min(1, width / full.w, height / full.h));
  return { x: full.x, y: full.y, w: width / scale, h: height / scale };
}

function edgePath(points: ReadonlyArray<{ x: number; y: number }>): string {
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

export function renderGraph(
  container: HTMLElement,
  list: ListPayload,
  shownIds: ReadonlySet<string>,
  includeInternal: boolean,
  selected: string | undefined,
  handlers: GraphHandlers,
): void {
  // Components are packed in rows as wide as the panel, so a small list reads at full size.
  const panelWidth = Math.max(600, container.clientWidth - 48);
  const panelHeight = Math.max(400, container.clientHeight - 40);
  const graph = graphOf(list, includeInternal, Math.round(panelWidth / 100) * 100);
  const byId = new Map(list.tasks.map((t) => [t.id, t]));
  const { layout } = graph;
  const pad = 24;
  // Room above for the tools that float over the drawing.
  const full: View = { x: -pad, y: -pad - 40, w: Math.max(layout.width + 2 * pad, 300), h: Math.max(layout.height + 2 * pad + 40, 200) };
  if (viewFor !== list.id || !view) {
    view = initialView(full, panelWidth, panelHeight);
    viewFor = list.id;
  }
  const svg = s('svg', { class: 'graph', role: 'img', 'aria-label': `dependency graph of ${list.tasks.length} tasks` });
  const apply = () => svg.setAttribute('viewBox', `${view!.x} ${view!.y} ${view!.w} ${view!.h}`);
  apply();
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
  const edges = s('g', { class: 'edges' });
  for (const e of graph.edges) {
    const focus = selected !== undefined && (e.to === selected || e.from === selected);
    const dim = !shownIds.has(e.from) || !shownIds.has(e.to);
    edges.append(
      s('path', {
        d: edgePath(e.points),
        class: `edge${e.open ? ' open' : ''}${e.reversed ? ' reversed' : ''}${focus ? ' focus' : ''}${dim ? ' dim' : ''}`,
        'marker-end': e.open ? 'url(#arrow-open)' : 'url(#arrow)',
        'data-from': e.from,
        'data-to': e.to,
      }),
    );
  }
  const nodes = s('g', { class: 'nodes' });
  for (const n of layout.nodes) {
    const t = byId.get(n.id);
    if (!t) continue;
    const facts = list.facts[n.id];
    const kind = facts?.blocked ? 'blocked' : t.status;
    const second =
      t.status === 'in_progress' && t.activeForm
        ? `⟳ ${cutLine(t.activeForm, 30)}`
        : t.owner
          ? `@${cutLine(t.owner, 28)}${facts?.ownerGone ? ' (gone)' : ''}`
          : t.status === 'completed'
            ? 'done'
            : facts?.blocked
              ? `waits for ${facts.openBlockers.map((b) => `#${b}`).join(' ')}`
              : t.status === 'in_progress'
                ? 'in progress'
                : 'pending';
    const g = s(
      'g',
      {
        class: `node ${kind}${shownIds.has(n.id) ? '' : ' dim'}${n.id === selected ? ' selected' : ''}`,
        transform: `translate(${n.x},${n.y})`,
        'data-task': n.id,
        tabindex: 0,
        onclick: () => handlers.open(n.id),
      },
      s('rect', { width: n.width, height: n.height, rx: 8, ry: 8 }),
      s('rect', { class: 'status-bar', width: 5, height: n.height, rx: 2, ry: 2 }),
      s('text', { x: 14, y: 20, class: 'title' }, s('tspan', { class: 'nid' }, `#${cutLine(n.id, 10)} `), cutLine(t.subject, 24)),
      s('text', { x: 14, y: 38, class: 'sub' }, second),
    );
    g.append(s('title', {}, `#${n.id} ${cutLine(t.subject, 200)}`));
    nodes.append(g);
  }
  svg.append(edges, nodes);
  enablePanZoom(svg, apply, full);
  const tools = h(
    'div',
    { class: 'graph-tools' },
    h('button', { type: 'button', onclick: () => zoom(svg, apply, 0.8) }, '+'),
    h('button', { type: 'button', onclick: () => zoom(svg, apply, 1.25) }, '−'),
    h(
      'button',
      {
        type: 'button',
        onclick: () => {
          view = { ...full };
          apply();
        },
      },
      'Fit',
    ),
    h(
      'span',
      { class: 'graph-note' },
      `${layout.nodes.length} tasks · ${graph.edges.length} edges · ${graph.edges.filter((e) => e.open).length} open${graph.cycles.length > 0 ? ` · ${graph.cycles.length} cycle${graph.cycles.length === 1 ? '' : 's'}` : ''}`,
    ),
  );
  container.replaceChildren(h('div', { class: 'graph-wrap' }, tools, svg));
}

function zoom(svg: SVGSVGElement, apply: () => void, factor: number, at?: { x: number; y: number }): void {
  if (!view) return;
  const cx = at?.x ?? view.x + view.w / 2;
  const cy = at?.y ?? view.y + view.h / 2;
  view = { x: cx - (cx - view.x) * factor, y: cy - (cy - view.y) * factor, w: view.w * factor, h: view.h * factor };
  apply();
  void svg;
}

function enablePanZoom(svg: SVGSVGElement, apply: () => void, full: View): void {
  let drag: { x: number; y: number; view: View } | undefined;
  const toUnits = (dx: number, dy: number) => {
    const rect = svg.getBoundingClientRect();
    const scale = Math.max(view!.w / Math.max(1, rect.width), view!.h / Math.max(1, rect.height));
    return { dx: dx * scale, dy: dy * scale };
  };
  svg.addEventListener('pointerdown', (e) => {
    if ((e.target as Element).closest('.node')) return;
    drag = { x: e.clientX, y: e.clientY, view: { ...view! } };
    svg.setPointerCapture(e.pointerId);
  });
  svg.addEventListener('pointermove', (e) => {
    if (!drag) return;
    const { dx, dy } = toUnits(e.clientX - drag.x, e.clientY - drag.y);
    view = { ...drag.view, x: drag.view.x - dx, y: drag.view.y - dy };
    apply();
  });
  svg.addEventListener('pointerup', () => (drag = undefined));
  svg.addEventListener(
    'wheel',
    (e) => {
      e.preventDefault();
      const rect = svg.getBoundingClientRect();
      const px = view!.x + ((e.clientX - rect.left) / Math.max(1, rect.width)) * view!.w;
      const py = view!.y + ((e.clientY - rect.top) / Math.max(1, rect.height)) * view!.h;
      zoom(svg, apply, e.deltaY > 0 ? 1.15 : 1 / 1.15, { x: px, y: py });
    },
    { passive: false },
  );
  svg.addEventListener('dblclick', () => {
    view = { ...full };
    apply();
  });
}
