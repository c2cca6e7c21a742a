import { ago } from '../../render/elapsed.js';
import type { ListRowView, OverviewPayload, SessionView } from '../board-protocol.js';
import { h, reconcile } from './page-dom.js';
import { cutLine } from './page-text.js';

/**
 * Every list, grouped by project (the working directory of its session; lists with no
 * known session last), newest change first within a group, each with its session's
 * state, branch, prompt and progress.
 */
export function sessionLabel(s: SessionView | null): { text: string; kind: string } {
  if (s === null) return { text: 'no session', kind: 'none' };
  if (s.state === 'live')
    return { text: s.activity === 'busy' ? 'live · busy' : 'live · idle', kind: s.activity === 'busy' ? 'busy' : 'live' };
  return { text: s.state, kind: s.state };
}

export function progress(row: Pick<ListRowView, 'counts' | 'total'>): HTMLElement {
  const pct = (n: number) => (row.total === 0 ? 0 : (100 * n) / row.total);
  const bar = h('div', { class: 'progress', title: `${row.counts.completed} of ${row.total} done, ${row.counts.in_progress} in progress` });
  const done = h('span', { class: 'seg done' });
  const active = h('span', { class: 'seg active' });
  // Through the CSSOM, which the page's CSP allows (it forbids style attributes in markup).
  done.style.width = `${pct(row.counts.completed)}%`;
  active.style.width = `${pct(row.counts.in_progress)}%`;
  bar.append(done, active);
  return bar;
}

export function renderSidebar(
  container: HTMLElement,
  overview: OverviewPayload,
  selected: string | undefined,
  query: string,
  onSelect: (id: string) => void,
): void {
  const now = Date.now();
  const needle = query.trim().toLowerCase();
  const rows = overview.lists.filter((l) => {
    if (needle === '') return true;
    const s = l.session;
    return [l.id, s?.project, s?.branch, s?.prompt, s?.name, l.team?.name].some((v) => v?.toLowerCase().includes(needle));
  });
  const groups = new Map<string, ListRowView[]>();
  for (const row of rows) {
    const key = row.session?.project ?? '';
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  const ordered = [...groups].sort(([a, ra], [b, rb]) =>
    a === '' ? 1 : b === '' ? -1 : Math.max(...rb.map((r) => r.changedAt)) - Math.max(...ra.map((r) => r.changedAt)),
  );
  // Sections and items are kept and only moved or replaced where something changed:
  // a change to one list redraws one item, even among hundreds.
  const sections: Element[] = ordered.map(([project, lists]) => {
    let section = sectionCache.get(project);
    if (!section) {
      section = h('section', { class: 'project' });
      sectionCache.set(project, section);
    }
    reconcile(section, [headingOf(project), ...lists.map((row) => cachedItem(row, row.id === selected, now, onSelect))]);
    return section;
  });
  if (sections.length === 0)
    sections.push(h('p', { class: 'empty' }, overview.lists.length === 0 ? 'No task lists yet.' : 'No list matches.'));
  reconcile(container, sections);
}

const sectionCache = new Map<string, HTMLElement>();
const headings = new Map<string, HTMLElement>();

function headingOf(project: string): HTMLElement {
  let heading = headings.get(project);
  if (!heading)
    headings.set(
      project,
      (heading = h('h2', { class: 'project-name', title: project }, project === '' ? 'No known session' : cutLine(project, 48))),
    );
  return heading;
}

const items = new Map<string, { key: string; el: HTMLElement }>();

/** A list's item is made again only when what it shows changed (a change elsewhere redraws nothing here). */
function cachedItem(row: ListRowView, selected: boolean, now: number, onSelect: (id: string) => void): HTMLElement {
  const key = JSON.stringify([row, selected, Math.floor((now - row.changedAt) / 60_000)]);
  const hit = items.get(row.id);
  if (hit && hit.key === key) return hit.el;
  const el = listItem(row, selected, now, onSelect);
  items.set(row.id, { key, el });
  return el;
}

function listItem(row: ListRowView, selected: boolean, now: number, onSelect: (id: string) => void): HTMLElement {
  const s = row.session;
  const state = sessionLabel(s);
  const title = s?.name ?? row.team?.name ?? row.shortId;
  return h(
    'button',
    {
      class: `list-item${selected ? ' selected' : ''}`,
      type: 'button',
      'data-list': row.id,
      'aria-current': selected ? 'true' : undefined,
      onclick: () => onSelect(row.id),
    },
    h(
      'div',
      { class: 'list-line' },
      h('span', { class: `dot ${state.kind}`, title: state.text }),
      h('span', { class: 'list-title agent-text' }, cutLine(title, 40)),
      h('span', { class: `state ${state.kind}` }, state.text),
    ),
    s?.prompt ? h('div', { class: 'list-prompt agent-text' }, cutLine(s.prompt, 90)) : null,
    h(
      'div',
      { class: 'list-meta' },
      s?.branch ? h('span', { class: 'branch agent-text' }, cutLine(s.branch, 28)) : null,
      h('span', { class: 'count' }, `${row.counts.completed}/${row.total}`),
      row.counts.in_progress > 0 ? h('span', { class: 'count active' }, `▶ ${row.counts.in_progress}`) : null,
      h('span', { class: 'when' }, ago(row.changedAt, now)),
    ),
    progress(row),
  );
}
