import { ago } from '../../render/elapsed.js';
import type {
  ActionRequest,
  BoardStatus,
  BoardTask,
  Expectation,
  HistoryEventView,
  ListPayload,
  ListRowView,
  OverviewPayload,
} from '../board-protocol.js';
import { act, type Following, follow, history } from './page-api.js';
import { type CardAction, renderColumns } from './page-columns.js';
import { type DetailAction, renderDetail } from './page-detail.js';
import { askForm, confirmDialog } from './page-dialogs.js';
import { byId, fill, h } from './page-dom.js';
import { matchesPageFilter, NO_FILTER, type PageFilter, parseMetaTerm } from './page-filter.js';
import { renderGraph } from './page-graph.js';
import { progress, renderSidebar, sessionLabel } from './page-sidebar.js';
import { cleanLine, cutLine } from './page-text.js';

/**
 * The board's page: the state (the overview, the list followed, the filters, the task
 * open), kept current by the server's events, drawn by the view modules. Where the page
 * is (list, view, task) lives in the URL's fragment, which no request carries.
 */
interface State {
  overview: OverviewPayload | undefined;
  list: ListPayload | undefined;
  listId: string | undefined;
  view: 'board' | 'graph';
  task: string | undefined;
  events: { task: string; list: string; events: HistoryEventView[] } | undefined;
  filter: PageFilter;
  listQuery: string;
  source: Following | undefined;
}

const state: State = {
  overview: undefined,
  list: undefined,
  listId: undefined,
  view: 'board',
  task: undefined,
  events: undefined,
  filter: NO_FILTER,
  listQuery: '',
  source: undefined,
};

const el = {
  lists: () => byId('lists'),
  head: () => byId('list-head'),
  view: () => byId('view'),
  detail: () => byId('detail'),
  toasts: () => byId('toasts'),
  dialog: () => byId<HTMLDialogElement>('dialog'),
  conn: () => byId('conn'),
};

const readOnly = () => state.overview?.readOnly ?? true;

function readHash(): void {
  const params = new URLSearchParams(location.hash.slice(1));
  state.listId = params.get('list') ?? undefined;
  state.view = params.get('view') === 'graph' ? 'graph' : 'board';
  state.task = params.get('task') ?? undefined;
}

function writeHash(): void {
  const params = new URLSearchParams();
  if (state.listId) params.set('list', state.listId);
  if (state.view === 'graph') params.set('view', 'graph');
  if (state.task) params.set('task', state.task);
  history_replace(`#${params.toString()}`);
}

function history_replace(hash: string): void {
  window.history.replaceState(null, '', hash);
}

function connect(): void {
  state.source?.close();
  state.source = follow(state.listId, {
    overview: (payload) => {
      state.overview = payload;
      byId('read-only').hidden = !payload.readOnly;
      document.body.classList.toggle('read-only', payload.readOnly);
      if (state.listId === undefined && payload.lists[0]) {
        selectList(payload.lists[0].id);
        return;
      }
      drawSidebar();
    },
    row: (row) => {
      if (!state.overview) return;
      const lists = state.overview.lists.filter((l) => l.id !== row.id);
      state.overview = { ...state.overview, lists: [row, ...lists].sort((a, b) => b.changedAt - a.changedAt || a.id.localeCompare(b.id)) };
      sidebarSoon();
    },
    list: (payload) => {
      if (payload.id !== state.listId) return;
      state.list = payload;
      drawMain();
      refreshHistory();
    },
    connection: (s) => {
      const conn = el.conn();
      conn.textContent = s === 'live' ? 'live' : 'reconnecting…';
      conn.className = `conn ${s}`;
    },
  });
}

function selectList(id: string): void {
  if (id === state.listId && state.list) return;
  state.listId = id;
  state.list = undefined;
  state.task = undefined;
  state.events = undefined;
  writeHash();
  drawSidebar();
  drawMain();
  connect();
}

let sidebarTimer: number | undefined;
/** Rows arrive one per change: the sidebar is drawn once for a burst of them. */
function sidebarSoon(): void {
  if (sidebarTimer !== undefined) return;
  sidebarTimer = window.setTimeout(() => {
    sidebarTimer = undefined;
    drawSidebar();
  }, 50);
}

function drawSidebar(): void {
  if (state.overview) renderSidebar(el.lists(), state.overview, state.listId, state.listQuery, selectList);
}

function shownTasks(list: ListPayload): BoardTask[] {
  return list.tasks.filter((t) => matchesPageFilter(t, list.facts[t.id], state.filter));
}

function drawMain(): void {
  const list = state.list;
  drawHead(list);
  for (const tab of document.querySelectorAll<HTMLButtonElement>('.tab')) tab.classList.toggle('active', tab.dataset.view === state.view);
  if (!list) {
    el.view().replaceChildren(h('p', { class: 'empty big' }, state.listId ? 'Loading…' : 'Choose a list.'));
    drawDetail();
    return;
  }
  updateOwnerChoices(list);
  const shown = shownTasks(list);
  const t0 = performance.now();
  if (state.view === 'graph') {
    renderGraph(el.view(), list, new Set(shown.map((t) => t.id)), state.filter.all, state.task, { open: openTask });
  } else {
    renderColumns(el.view(), list, shown, state.task, { open: openTask, act: (a, t) => void cardAction(a, t), readOnly: readOnly() });
  }
  document.body.dataset.renderMs = String(Math.round(performance.now() - t0));
  document.body.dataset.listAt = String(list.at);
  drawDetail();
}

function drawHead(list: ListPayload | undefined): void {
  const row: ListRowView | null | undefined = list?.row ?? state.overview?.lists.find((l) => l.id === state.listId);
  if (!row) {
    el.head().replaceChildren();
    return;
  }
  const s = row.session;
  const label = sessionLabel(s);
  const now = Date.now();
  const lastChange = list?.lastChange;
  const stalled = list ? Object.values(list.facts).filter((f) => f.stalledMs !== undefined).length : 0;
  const gone = list ? list.tasks.filter((t) => list.facts[t.id]?.ownerGone).length : 0;
  fill(
    el.head(),
    h(
      'div',
      { class: 'head-main' },
      h('h1', { class: 'list-name agent-text', title: s?.prompt ?? row.id }, s?.prompt ? cutLine(s.prompt, 120) : cutLine(row.id, 80)),
      h(
        'div',
        { class: 'head-meta' },
        h('span', { class: 'tag id', title: row.id }, row.shortId),
        h('span', { class: `tag state ${label.kind}` }, h('span', { class: `dot ${label.kind}` }), label.text),
        s?.project ? h('span', { class: 'tag project agent-text' }, cutLine(s.project, 60)) : null,
        s?.branch ? h('span', { class: 'tag branch agent-text' }, `⎇ ${cutLine(s.branch, 40)}`) : null,
        row.team ? h('span', { class: 'tag team agent-text' }, `team ${cutLine(row.team.name, 30)} (${row.team.members.length})`) : null,
        s?.lastActivity ? h('span', { class: 'tag when' }, `active ${ago(s.lastActivity, now)}`) : null,
      ),
      h(
        'div',
        { class: 'head-progress' },
        progress(row),
        h(
          'span',
          { class: 'progress-text' },
          `${row.counts.completed}/${row.total} done · ${row.counts.in_progress} in progress · ${row.counts.pending} pending`,
        ),
        stalled > 0 ? h('span', { class: 'warn' }, `${stalled} stalled`) : null,
        gone > 0 ? h('span', { class: 'warn red' }, `${gone} held by gone owners (${list?.goneWhy ?? ''})`) : null,
        list && list.problems.length > 0
          ? h('span', { class: 'warn red' }, `${list.problems.length} unreadable file${list.problems.length === 1 ? '' : 's'}`)
          : null,
      ),
    ),
    readOnly()
      ? null
      : h(
          'div',
          { class: 'head-actions' },
          lastChange
            ? h(
                'button',
                {
                  class: 'ghost',
                  id: 'undo',
                  type: 'button',
                  title: `take back ${lastChange.command} by ${lastChange.actor.name} (${lastChange.tasks.map((t) => `#${t}`).join(', ')})`,
                  onclick: () => void undo(),
                },
                // Undoing an undo redoes: say so.
                `${lastChange.command === 'undo' ? '↷ Redo' : `↶ Undo ${cleanLine(lastChange.command)}`} by ${cutLine(lastChange.actor.name, 20)} · ${ago(Date.parse(lastChange.at), now)}`,
              )
            : null,
          h('button', { class: 'primary', id: 'new-task', type: 'button', onclick: () => void createTask() }, '+ New task'),
        ),
  );
}

function updateOwnerChoices(list: ListPayload): void {
  const select = byId<HTMLSelectElement>('f-owner');
  const owners = [...new Set(list.tasks.map((t) => t.owner).filter((o): o is string => Boolean(o)))].sort();
  const key = owners.join('\u0000');
  if (select.dataset.key === key) return;
  select.dataset.key = key;
  const current = select.value;
  select.replaceChildren(h('option', { value: '' }, 'any owner'), ...owners.map((o) => h('option', { value: o }, cutLine(o, 40))));
  select.value = owners.includes(current) ? current : '';
}

function openTask(id: string): void {
  state.task = id;
  writeHash();
  drawMain();
  refreshHistory(true);
}

function closeTask(): void {
  state.task = undefined;
  state.events = undefined;
  writeHash();
  drawMain();
}

let historyTimer: number | undefined;
function refreshHistory(now = false): void {
  const { task, listId } = state;
  if (!task || !listId) return;
  window.clearTimeout(historyTimer);
  historyTimer = window.setTimeout(
    () => {
      void history(listId, task).then((payload) => {
        if (state.task !== task || state.listId !== listId) return;
        state.events = { task, list: listId, events: payload.events };
        drawDetail();
      });
    },
    now ? 0 : 250,
  );
}

function drawDetail(): void {
  const panel = el.detail();
  if (!state.task || !state.list) {
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  const events = state.events?.task === state.task && state.events.list === state.list.id ? state.events.events : undefined;
  renderDetail(panel, state.list, state.task, events, {
    act: (a, t) => void detailAction(a, t),
    open: openTask,
    close: closeTask,
    readOnly: readOnly(),
  });
}

function expectOf(t: BoardTask): Expectation {
  return { status: t.status, owner: t.owner ? t.owner : null };
}

async function send(request: ActionRequest, taskId?: string): Promise<boolean> {
  document.body.classList.add('busy');
  const { status, result } = await act(request);
  document.body.classList.remove('busy');
  if (result.ok) {
    toast('ok', result.message);
    return true;
  }
  if (status === 409) {
    const e = result.error;
    const what =
      e.precondition === 'if-owner' || e.precondition === 'if-unowned'
        ? `it is now owned by ${e.actual ?? 'nobody'}; the card showed ${e.expected ?? 'nobody'}`
        : e.precondition === 'if-status'
          ? `it is now ${e.actual}; the card showed ${e.expected}`
          : e.message;
    toast(
      'conflict',
      `Conflict${taskId ? ` on #${taskId}` : ''}: changed meanwhile, ${what}. Nothing was written; the board shows it as it is now.`,
    );
    if (taskId) flagConflict(taskId);
    return false;
  }
  toast('error', result.error.message);
  return false;
}

function flagConflict(id: string): void {
  for (const node of document.querySelectorAll(`[data-task="${CSS.escape(id)}"]`)) {
    node.classList.add('conflict');
    window.setTimeout(() => node.classList.remove('conflict'), 4000);
  }
}

async function cardAction(action: CardAction, t: BoardTask): Promise<void> {
  if (!state.listId) return;
  await send({ action, list: state.listId, id: t.id, expect: expectOf(t) }, t.id);
}

function parseIds(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.replace(/^#/, ''))
    .filter((s) => s !== '');
}

async function detailAction(action: DetailAction, t: BoardTask): Promise<void> {
  const list = state.listId;
  if (!list || !state.list) return;
  const expect = expectOf(t);
  const dialog = el.dialog();
  switch (action) {
    case 'start':
    case 'done':
    case 'reopen':
    case 'release':
      await send({ action, list, id: t.id, expect }, t.id);
      return;
    case 'reassign': {
      const owners = [...new Set(state.list.tasks.map((x) => x.owner).filter((o): o is string => Boolean(o)))].sort();
      const answer = await askForm(
        dialog,
        `Assign #${t.id}`,
        [{ name: 'owner', label: 'Owner', value: t.owner ?? '', placeholder: 'an agent or a person', options: owners, required: true }],
        'Assign',
        t.owner ? { label: 'Unassign', value: { owner: '' } } : undefined,
      );
      if (answer === undefined) return;
      await send({ action: 'reassign', list, id: t.id, expect, owner: answer.owner?.trim() ? answer.owner.trim() : null }, t.id);
      return;
    }
    case 'block': {
      const answer = await askForm(
        dialog,
        `#${t.id} waits for…`,
        [{ name: 'by', label: 'Task ids', placeholder: '2, 3', required: true }],
        'Block',
      );
      if (answer === undefined) return;
      await send({ action: 'block', list, id: t.id, expect, by: parseIds(answer.by ?? '') }, t.id);
      return;
    }
    case 'unblock': {
      const answer = await askForm(
        dialog,
        `#${t.id} stops waiting for…`,
        [{ name: 'by', label: 'Task ids (empty: all of them)', value: t.blockedBy.join(', ') }],
        'Unblock',
      );
      if (answer === undefined) return;
      await send({ action: 'unblock', list, id: t.id, expect, by: parseIds(answer.by ?? '') }, t.id);
      return;
    }
    case 'delete': {
      const yes = await confirmDialog(
        dialog,
        `Delete #${t.id}?`,
        `“${cutLine(t.subject, 120)}” will be deleted, and its id never handed out again. Undo brings it back.`,
        'Delete',
      );
      if (!yes) return;
      if (await send({ action: 'delete', list, id: t.id, expect }, t.id)) closeTask();
      return;
    }
  }
}

async function createTask(): Promise<void> {
  const list = state.listId;
  if (!list) return;
  const answer = await askForm(
    el.dialog(),
    'New task',
    [
      { name: 'subject', label: 'Subject', placeholder: 'Run the tests', required: true },
      { name: 'description', label: 'Description', multiline: true },
      { name: 'owner', label: 'Owner (optional)' },
      { name: 'blockedBy', label: 'Waits for (task ids, optional)', placeholder: '2, 3' },
    ],
    'Create',
  );
  if (answer === undefined) return;
  await send({
    action: 'create',
    list,
    subject: answer.subject ?? '',
    description: answer.description ?? '',
    owner: answer.owner?.trim() || undefined,
    blockedBy: parseIds(answer.blockedBy ?? ''),
  });
}

async function undo(): Promise<void> {
  const change = state.list?.lastChange;
  if (!state.listId || !change) return;
  await send({ action: 'undo', list: state.listId, txn: change.txn });
}

function toast(kind: 'ok' | 'conflict' | 'error', text: string): void {
  const node = h('div', { class: `toast ${kind}`, role: kind === 'ok' ? 'status' : 'alert' }, text);
  el.toasts().append(node);
  // The latest few: a burst of changes does not bury the page.
  while (el.toasts().childElementCount > 3) el.toasts().firstElementChild?.remove();
  window.setTimeout(() => node.remove(), kind === 'ok' ? 3000 : 9000);
}

function readFilters(): void {
  const form = byId<HTMLFormElement>('filters');
  const statuses = [...form.querySelectorAll<HTMLInputElement>('input[name=status]:checked')].map((i) => i.value as BoardStatus);
  const checked = (id: string) => byId<HTMLInputElement>(id).checked;
  const owner = byId<HTMLSelectElement>('f-owner').value;
  const meta = byId<HTMLInputElement>('f-meta')
    .value.split(/\s+/)
    .filter((t) => t !== '')
    .map(parseMetaTerm)
    .filter((m): m is readonly [string, string] => m !== undefined);
  state.filter = {
    statuses,
    owner: owner === '' ? undefined : owner,
    unowned: checked('f-unowned'),
    ready: checked('f-ready'),
    blocked: checked('f-blocked'),
    stalled: checked('f-stalled'),
    all: checked('f-all'),
    search: byId<HTMLInputElement>('f-search').value,
    meta,
  };
  drawMain();
}

function start(): void {
  readHash();
  const form = byId<HTMLFormElement>('filters');
  form.addEventListener('input', readFilters);
  form.addEventListener('change', readFilters);
  form.addEventListener('submit', (e) => e.preventDefault());
  byId<HTMLInputElement>('list-search').addEventListener('input', (e) => {
    state.listQuery = (e.target as HTMLInputElement).value;
    drawSidebar();
  });
  for (const tab of document.querySelectorAll<HTMLButtonElement>('.tab')) {
    tab.addEventListener('click', () => {
      state.view = tab.dataset.view === 'graph' ? 'graph' : 'board';
      writeHash();
      drawMain();
    });
  }
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && state.task && !el.dialog().open) closeTask();
  });
  // "3 min ago" stays true without any event.
  window.setInterval(() => {
    drawSidebar();
    if (state.list) drawHead(state.list);
  }, 30_000);
  drawMain();
  connect();
}

start();
