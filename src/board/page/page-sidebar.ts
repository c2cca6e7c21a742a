import { ago } from '../../render/elapsed.js';
import type { ListRowView, OverviewPayload, SessionView } from '../board-protocol.js';
import { serverNow } from './page-clock.js';
import { h, reconcile } from './page-dom.js';
import { hostHeading } from './page-hosts.js';
import { aheadWords, seenNote } from './page-stall.js';
import { cutLine } from './page-text.js';

/**
 * Every list as `tasks lists` has it, grouped by project (the working directory of the
 * session it shows; lists with no known session last): the groups in the order of their
 * newest list, and within a group the order of `tasks lists` (newest change first). Each
 * with its session's state in the words core gives it ("live, busy", "cleared → …"),
 * branch, prompt and progress; TodoWrite sessions (read-only) past the most recent are
 * behind a "more", as `tasks lists` keeps them behind --all.
 */
export function sessionLabel(s: SessionView | null): { text: string; look: string } {
  if (s === null) return { text: 'no session', look: 'none' };
  return { text: s.stateText, look: s.look };
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

/**
 * A list's last change: "3 min ago"; dated ahead of its machine's clock, when the board
 * first saw it, as its card and the Now view say it ("seen 2 min ago"), and why on hover,
 * never "3 h in the future".
 */
export function lastChangeWords(
  row: Pick<ListRowView, 'changedAt' | 'seenAt' | 'aheadMs'> & { id?: string },
  now: number,
  what = 'its last change',
): { text: string; title?: string } {
  if (row.seenAt === undefined || row.aheadMs === undefined) return { text: ago(row.changedAt, now) };
  return { text: `seen ${ago(row.seenAt, now)}${seenNote(row.seenAt, row.id)}`, title: aheadWords(row.aheadMs, what) };
}

export interface SidebarState {
  selected: string | undefined;
  query: string;
  /** Every TodoWrite session, not only the most recent. */
  allTodoWrite: boolean;
}

export interface SidebarHandlers {
  select(id: string): void;
  showAllTodoWrite(): void;
}

/** The rows shown, in `tasks lists` order: TodoWrite sessions past the most recent left out unless asked for. */
export function visibleRows(overview: OverviewPayload, state: SidebarState): { rows: ListRowView[]; hiddenTodoWrite: number } {
  const needle = state.query.trim().toLowerCase();
  let todoWrite = 0;
  let hiddenTodoWrite = 0;
  const rows = overview.lists.filter((l) => {
    if (l.kind === 'todowrite' && ++todoWrite > overview.todoWriteShown && !state.allTodoWrite && l.id !== state.selected) {
      hiddenTodoWrite++;
      return false;
    }
    if (needle === '') return true;
    const s = l.session;
    return [l.id, s?.project, s?.branch, s?.prompt, s?.name, l.team?.name].some((v) => v?.toLowerCase().includes(needle));
  });
  return { rows, hiddenTodoWrite };
}

/** Rows grouped by project, the groups in order of their first (newest) row; lists with no known session last. */
export function groupByProject(rows: readonly ListRowView[]): Array<[string, ListRowView[]]> {
  const groups = new Map<string, ListRowView[]>();
  for (const row of rows) {
    const key = row.session?.project ?? '';
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  const none = groups.get('');
  groups.delete('');
  return none === undefined ? [...groups] : [...groups, ['', none]];
}

export function renderSidebar(container: HTMLElement, overview: OverviewPayload, state: SidebarState, handlers: SidebarHandlers): void {
  const { rows, hiddenTodoWrite } = visibleRows(overview, state);
  // Sections and items are kept and only moved or replaced where something changed:
  // a change to one list redraws one item, even among hundreds.
  const projectSections = (rows: readonly ListRowView[], host: string): Element[] =>
    groupByProject(rows).map(([project, lists]) => {
      const key = `${host}\n${project}`;
      let section = sectionCache.get(key);
      if (!section) {
        section = h('section', { class: 'project', 'data-project': project });
        sectionCache.set(key, section);
      }
      reconcile(section, [headingOf(key, project), ...lists.map((row) => cachedItem(row, overview, state.selected, handlers))]);
      return section;
    });
  // A board of hosts (-H): a group per host, in the order they were named, each grouped by project within.
  const sections: Element[] =
    overview.hosts === undefined
      ? projectSections(rows, '')
      : overview.hosts.map((x) => {
          const own = rows.filter((r) => r.host === x.label);
          return h(
            'section',
            { class: `host-group ${x.state}`, 'data-host': x.label, 'aria-label': `host ${x.label}` },
            hostHeading(x, own.length),
            ...projectSections(own, x.label),
          );
        });
  const binding = overview.binding;
  if (binding && !overview.lists.some((l) => l.id === binding.list)) sections.unshift(boundItem(binding, state.selected, handlers));
  if (rows.length === 0 && overview.hosts === undefined)
    sections.push(h('p', { class: 'empty' }, overview.lists.length === 0 ? 'No task lists yet.' : 'No list matches.'));
  if (hiddenTodoWrite > 0)
    sections.push(
      h(
        'button',
        { class: 'ghost more-todowrite', type: 'button', onclick: handlers.showAllTodoWrite },
        `${hiddenTodoWrite} older TodoWrite session${hiddenTodoWrite === 1 ? '' : 's'} not shown: show them`,
      ),
    );
  reconcile(container, sections);
}

const sectionCache = new Map<string, HTMLElement>();
const headings = new Map<string, HTMLElement>();

/** A project's heading; `key` tells one host's from another's (one element can be in one place only). */
function headingOf(key: string, project: string): HTMLElement {
  let heading = headings.get(key);
  if (!heading)
    headings.set(
      key,
      (heading = h('h2', { class: 'project-name', title: project }, project === '' ? 'No known session' : cutLine(project, 48))),
    );
  return heading;
}

/** The list this folder is bound to (`tasks use`), before its first task and with no session on it yet. */
function boundItem(binding: NonNullable<OverviewPayload['binding']>, selected: string | undefined, handlers: SidebarHandlers): HTMLElement {
  return h(
    'button',
    {
      class: `list-item bound${binding.list === selected ? ' selected' : ''}`,
      type: 'button',
      'data-list': binding.list,
      title: `bound by ${binding.file} (${binding.scope} settings): Claude Code sessions started here use it`,
      onclick: () => handlers.select(binding.list),
    },
    h(
      'div',
      { class: 'list-line' },
      h('span', { class: 'dot none' }),
      h('span', { class: 'list-title agent-text' }, cutLine(binding.list, 40)),
      h('span', { class: 'kind bound' }, 'bound here'),
    ),
    h('div', { class: 'list-meta' }, h('span', { class: 'count' }, 'no tasks yet')),
  );
}

const items = new Map<string, { key: string; el: HTMLElement }>();

/** A list's item is made again only when what it shows changed (a change elsewhere redraws nothing here). */
function cachedItem(row: ListRowView, overview: OverviewPayload, selected: string | undefined, handlers: SidebarHandlers): HTMLElement {
  const bound = overview.binding?.list === row.id;
  // On its list's clock: its host's, on a board of hosts (page-clock.ts).
  const now = serverNow(row.id);
  const key = JSON.stringify([row, row.id === selected, bound, lastChangeWords(row, now).text]);
  const hit = items.get(row.id);
  if (hit && hit.key === key) return hit.el;
  const el = listItem(row, row.id === selected, bound, now, handlers);
  items.set(row.id, { key, el });
  return el;
}

function listItem(row: ListRowView, selected: boolean, bound: boolean, now: number, handlers: SidebarHandlers): HTMLElement {
  const s = row.session;
  const state = sessionLabel(s);
  // By its own name, which does not move: Claude Code renames a session while it runs (shown below it).
  const title = row.team?.name ?? row.shortId;
  const sessionName = s?.name && s.name !== title ? s.name : undefined;
  return h(
    'button',
    {
      class: `list-item kind-${row.kind}${selected ? ' selected' : ''}`,
      type: 'button',
      'data-list': row.id,
      'data-kind': row.kind,
      'aria-current': selected ? 'true' : undefined,
      onclick: () => handlers.select(row.id),
    },
    h(
      'div',
      { class: 'list-line' },
      h('span', { class: `dot ${state.look}`, title: state.text }),
      h('span', { class: 'list-title agent-text' }, cutLine(title, 40)),
      row.kind === 'todowrite' ? h('span', { class: 'kind todowrite', title: 'TodoWrite todos: read-only' }, 'TodoWrite') : null,
      bound
        ? h('span', { class: 'kind bound', title: 'Claude Code sessions started in the board’s folder use it (tasks use)' }, 'bound here')
        : null,
      h('span', { class: `state ${state.look}` }, state.text),
    ),
    sessionName
      ? h('div', { class: 'list-session-name agent-text', title: 'the name Claude Code gives its session' }, cutLine(sessionName, 60))
      : null,
    s?.prompt ? h('div', { class: 'list-prompt agent-text' }, cutLine(s.prompt, 90)) : null,
    h(
      'div',
      { class: 'list-meta' },
      s?.branch ? h('span', { class: 'branch agent-text' }, cutLine(s.branch, 28)) : null,
      h('span', { class: 'count' }, row.kind === 'new' ? 'no tasks yet' : `${row.counts.completed}/${row.total}`),
      row.counts.in_progress > 0 ? h('span', { class: 'count active' }, `▶ ${row.counts.in_progress}`) : null,
      row.sessionCount > 1 ? h('span', { class: 'sessions' }, `${row.sessionCount} sessions`) : null,
      row.unsure > 0
        ? h('span', { class: 'unsure', title: 'sessions whose transcripts cannot tell this list from another' }, `${row.unsure} unsure`)
        : null,
      lastChangeSpan(row, now),
    ),
    row.kind === 'new' ? null : progress(row),
  );
}

function lastChangeSpan(row: ListRowView, now: number): HTMLElement {
  const { text, title } = lastChangeWords(row, now);
  return h('span', { class: title === undefined ? 'when' : 'when ahead', title }, text);
}
