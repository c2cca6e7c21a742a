import type {
  ActionRequest,
  BoardStatus,
  BoardTask,
  CostPayload,
  Expectation,
  HistoryPayload,
  ListPayload,
  NowPayload,
  OverviewPayload,
  StackChangeView,
  UndoPreviewPayload,
} from '../board-protocol.js';
import { AGO_TICK_MS, tickAgo } from './page-ago.js';
import {
  act,
  carryPreview,
  cost,
  type Following,
  follow,
  goneLists,
  gonePreview,
  history,
  restorePreview,
  undoPreview,
} from './page-api.js';
import { carryDialog, goneListsDialog, restoreDialog } from './page-carry.js';
import { serverNow, setClock } from './page-clock.js';
import { type CardAction, renderColumns, renderTodos } from './page-columns.js';
import { showConnection } from './page-connection.js';
import { type DetailAction, renderDetail } from './page-detail.js';
import { askForm, confirmDialog } from './page-dialogs.js';
import { byId, fill, h } from './page-dom.js';
import { matchesPageFilter, NO_FILTER, type PageFilter, parseMetaTerm } from './page-filter.js';
import { keepFocus } from './page-focus.js';
import { renderGraph } from './page-graph.js';
import { renderHead } from './page-head.js';
import { showHosts } from './page-hosts.js';
import { startKeys } from './page-keys.js';
import { type NotifyChoice, notifyChoice, notifyNew, toggleNotify } from './page-notify.js';
import { renderNow } from './page-now.js';
import { renderSidebar } from './page-sidebar.js';
import { noteBoardStart, stallsByTime, tickStalls } from './page-stall.js';
import { cutLine } from './page-text.js';
import { startTheme } from './page-theme.js';
import { toast } from './page-toasts.js';

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
  history: { task: string; list: string; payload: HistoryPayload } | undefined;
  /** What undo and redo of the list would do now, for the list and stack shown. */
  preview: { list: string; payload: UndoPreviewPayload } | undefined;
  /** What the list's tasks cost (`tasks cost`), for its head and the task open. */
  cost: CostPayload | undefined;
  filter: PageFilter;
  listQuery: string;
  allTodoWrite: boolean;
  source: Following | undefined;
  /** The Now view's payload: every list at once (shown when no list is chosen). */
  now: NowPayload | undefined;
  notify: NotifyChoice;
}

const state: State = {
  overview: undefined,
  list: undefined,
  listId: undefined,
  view: 'board',
  task: undefined,
  history: undefined,
  preview: undefined,
  cost: undefined,
  filter: NO_FILTER,
  listQuery: '',
  allTodoWrite: false,
  source: undefined,
  now: undefined,
  notify: notifyChoice(),
};

const el = {
  lists: () => byId('lists'),
  head: () => byId('list-head'),
  view: () => byId('view'),
  detail: () => byId('detail'),
  dialog: () => byId<HTMLDialogElement>('dialog'),
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
      noteBoardStart(payload.startedAt, payload.hosts);
      byId('read-only').hidden = !payload.readOnly;
      document.body.classList.toggle('read-only', payload.readOnly);
      showHosts(payload.hosts);
      if (state.list) drawHead();
      drawSidebar();
    },
    row: (row) => {
      if (!state.overview) return;
      const lists = state.overview.lists.filter((l) => l.id !== row.id);
      // The order of tasks lists: newest change first, then by id.
      state.overview = { ...state.overview, lists: [row, ...lists].sort((a, b) => b.changedAt - a.changedAt || a.id.localeCompare(b.id)) };
      sidebarSoon();
      if (row.id === state.listId) drawHead();
    },
    list: (payload) => {
      if (payload.id !== state.listId) return;
      // What stalled between the read and now (a payload kept back a moment) is marked before it is drawn.
      stallsByTime(payload, serverNow(payload.id));
      state.list = payload;
      drawMain();
      refreshHistory();
      refreshPreview();
      refreshCost();
    },
    now: (payload) => {
      state.now = payload;
      drawNowCount();
      notifyNew(payload, openFromNow);
      if (state.listId === undefined) drawNow();
    },
    connection: showConnection,
  });
}

/** The count of what needs a person: in the tab's title (seen from other tabs) and beside "Now". */
function drawNowCount(): void {
  const n = state.now?.ready ? state.now.needsPerson : 0;
  document.title = n > 0 ? `(${n}) tasks board` : 'tasks board';
  const count = byId('now-nav-count');
  count.hidden = n === 0;
  count.textContent = String(n);
}

function drawNow(): void {
  const section = document.activeElement?.closest('.now-section')?.id;
  keepFocus(() =>
    renderNow(el.view(), state.now, {
      open: openFromNow,
      carry: readOnly() ? undefined : (list) => void carry(list),
      notify: () =>
        void toggleNotify(state.now).then((choice) => {
          state.notify = choice;
          drawNow();
        }),
      notifyChoice: state.notify,
    }),
  );
  // An entry gone with its work (carried, released, done): focus stays in its section.
  if (section !== undefined && (document.activeElement === null || document.activeElement === document.body))
    document.getElementById(`${section}-title`)?.focus({ preventScroll: true });
}

/** An entry of the Now view: its list, and its task open. */
function openFromNow(list: string, task?: string): void {
  selectList(list);
  if (task !== undefined) openTask(task);
}

/** Back to the Now view: no list followed. */
function showNow(): void {
  if (state.listId !== undefined) show(undefined);
}

function selectList(id: string): void {
  if (id === state.listId && state.list) return;
  show(id);
}

/** Show a list (undefined: the Now view), with nothing of the one before. */
function show(id: string | undefined): void {
  state.listId = id;
  state.list = undefined;
  state.task = undefined;
  state.history = undefined;
  state.preview = undefined;
  state.cost = undefined;
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
  keepFocus(drawSidebarNow);
}

function drawSidebarNow(): void {
  if (!state.overview) return;
  renderSidebar(
    el.lists(),
    state.overview,
    { selected: state.listId, query: state.listQuery, allTodoWrite: state.allTodoWrite },
    {
      select: selectList,
      showAllTodoWrite: () => {
        state.allTodoWrite = true;
        drawSidebar();
      },
    },
  );
}

function shownTasks(list: ListPayload): BoardTask[] {
  return list.tasks.filter((t) => matchesPageFilter(t, list.facts[t.id], state.filter));
}

/** Every draw keeps focus where the person was (page-focus.ts). */
function drawMain(): void {
  keepFocus(drawMainNow);
}

function drawMainNow(): void {
  const list = state.list;
  drawHead();
  for (const tab of document.querySelectorAll<HTMLButtonElement>('.tab')) {
    tab.classList.toggle('active', tab.dataset.view === state.view);
    tab.setAttribute('aria-selected', String(tab.dataset.view === state.view));
  }
  document.body.classList.toggle('todowrite', list?.kind === 'todowrite');
  document.body.classList.toggle('now-mode', state.listId === undefined);
  // The list's times count on its clock (its host's, on a board of hosts: page-clock.ts).
  setClock(el.view(), state.listId);
  byId('now-nav').classList.toggle('selected', state.listId === undefined);
  if (state.listId === undefined) {
    drawNow();
    drawDetail();
    return;
  }
  if (!list) {
    el.view().replaceChildren(h('p', { class: 'empty big' }, state.listId ? 'Loading…' : 'Choose a list.'));
    drawDetail();
    return;
  }
  const t0 = performance.now();
  if (list.kind === 'todowrite') {
    renderTodos(el.view(), list.todos);
  } else {
    updateOwnerChoices(list);
    const shown = shownTasks(list);
    const empty = emptyListNote(list);
    if (empty !== undefined) {
      el.view().replaceChildren(h('p', { class: 'empty big new-list' }, empty));
    } else if (state.view === 'graph') {
      renderGraph(el.view(), list, new Set(shown.map((t) => t.id)), state.filter.all, state.task, { open: openTask });
    } else {
      renderColumns(el.view(), list, shown, state.task, { open: openTask, act: (a, t) => void cardAction(a, t), readOnly: readOnly() });
    }
  }
  document.body.dataset.renderMs = String(Math.round(performance.now() - t0));
  document.body.dataset.listAt = String(list.at);
  drawDetail();
}

/** A list with no folder yet: whose it will be, and that a task made here makes it. */
function emptyListNote(list: ListPayload): string | undefined {
  if (list.unreadable !== null) return `Not a list: ${list.unreadable}. Agents cannot use it either.`;
  if (list.exists || list.tasks.length > 0) return undefined;
  const binding = state.overview?.binding;
  const live = [list.row?.session, ...(list.row?.others ?? [])].find((s) => s?.state === 'live');
  const whose =
    list.kind === 'new' && live
      ? `session ${live.sessionId.slice(0, 8)} (${live.stateText}) writes its tasks here: it has made none yet.`
      : binding?.list === list.id
        ? `Claude Code sessions started in the board's folder use this list (bound by ${binding.file}); none has made a task yet.`
        : 'This list has no tasks yet.';
  return readOnly() ? whose : `${whose} A task made here makes the list, where its agent reads it.`;
}

/** The head: the overview's row (kept current by every change) over the list's own, which may be older. */
function drawHead(): void {
  keepFocus(drawHeadNow);
}

function drawHeadNow(): void {
  const list = state.list;
  const row = state.overview?.lists.find((l) => l.id === state.listId) ?? (list?.id === state.listId ? list?.row : undefined);
  const preview = state.preview?.list === state.listId ? state.preview?.payload : undefined;
  renderHead(
    el.head(),
    row,
    list?.id === state.listId ? list : undefined,
    state.overview,
    preview,
    {
      undo: (change) => void undoRedo('undo', change),
      redo: (change) => void undoRedo('redo', change),
      releaseGone: () => void releaseGone(),
      carry: () => {
        if (state.listId) void carry(state.listId);
      },
      restore: () => {
        const list = state.listId;
        if (list) void restore(list, state.overview?.lists.find((l) => l.id === list)?.shortId ?? list);
      },
      create: () => void createTask(),
      readOnly: readOnly(),
    },
    state.cost?.list === state.listId ? state.cost : undefined,
  );
}

function updateOwnerChoices(list: ListPayload): void {
  const select = byId<HTMLSelectElement>('f-owner');
  const owners = [...new Set(list.tasks.map((t) => t.owner).filter((o): o is string => Boolean(o)))].sort();
  const key = owners.join('\u0000');
  if (select.dataset.key === key) return;
  select.dataset.key = key;
  const current = select.value;
  fill(
    select,
    h('option', { value: '' }, 'any owner'),
    owners.map((o) => h('option', { value: o }, cutLine(o, 40))),
  );
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
  state.history = undefined;
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
        state.history = { task, list: listId, payload };
        drawDetail();
      });
    },
    now ? 0 : 250,
  );
}

let costTimer: number | undefined;
let costAsked = 0;
/**
 * What the list's tasks cost, again once the list changed: at most every few seconds (it
 * reads the list's sessions' transcripts, the new parts of them).
 */
function refreshCost(): void {
  const list = state.list;
  if (!list || list.kind === 'todowrite' || costTimer !== undefined) return;
  const id = list.id;
  const wait = Math.max(0, costAsked + COST_EVERY_MS - Date.now());
  costTimer = window.setTimeout(() => {
    costTimer = undefined;
    costAsked = Date.now();
    void cost(id).then((payload) => {
      if (payload === undefined || state.listId !== id) return;
      state.cost = payload;
      drawHead();
      drawDetail();
    });
  }, wait);
}

const COST_EVERY_MS = 3000;

let previewTimer: number | undefined;
/** The undo and redo dry runs again, shortly after the list changed (what they would do depends on the files). */
function refreshPreview(): void {
  const list = state.list;
  if (!list || readOnly() || list.kind === 'todowrite') return;
  window.clearTimeout(previewTimer);
  if (!list.undo && !list.redo) {
    state.preview = { list: list.id, payload: { undoTxn: null, redoTxn: null, undo: null, redo: null } };
    return;
  }
  const id = list.id;
  previewTimer = window.setTimeout(() => {
    void undoPreview(id).then((payload) => {
      if (payload === undefined || state.listId !== id) return;
      state.preview = { list: id, payload };
      drawHead();
    });
  }, 120);
}

function drawDetail(): void {
  keepFocus(drawDetailNow);
}

function drawDetailNow(): void {
  const panel = el.detail();
  if (!state.task || !state.list || state.list.kind === 'todowrite') {
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  const h = state.history?.task === state.task && state.history.list === state.list.id ? state.history.payload : undefined;
  const work = state.cost?.list === state.list.id ? state.cost.tasks[state.task] : undefined;
  renderDetail(
    panel,
    state.list,
    state.task,
    h,
    { act: (a, t) => void detailAction(a, t), open: openTask, close: closeTask, readOnly: readOnly() },
    work,
  );
}

function expectOf(t: BoardTask): Expectation {
  return { status: t.status, owner: t.owner ? t.owner : null };
}

/** Whether a refusal was a precondition the card showed (status, owner): said as the card's conflict. */
function cardConflict(e: { precondition?: string; expected?: string | null; actual?: string | null }): string | undefined {
  if (e.precondition === 'if-owner' || e.precondition === 'if-unowned')
    return `it is now owned by ${e.actual ?? 'nobody'}; the card showed ${e.expected ?? 'nobody'}`;
  if (e.precondition === 'if-status') return `it is now ${e.actual}; the card showed ${e.expected}`;
  return undefined;
}

async function send(request: ActionRequest, taskId?: string): Promise<boolean> {
  document.body.classList.add('busy');
  const { status, result } = await act(request);
  document.body.classList.remove('busy');
  if (result.ok) {
    toast('ok', { message: result.message, lines: result.lines, notes: result.notes, warnings: result.warnings });
    return true;
  }
  const e = result.error;
  if (e.code === 'hook') {
    // A hook said no: its reasons; done and create may be made again without hooks (as --no-hooks).
    const again =
      e.withoutHooks && (request.action === 'done' || request.action === 'create')
        ? {
            label: `${request.action === 'done' ? 'Done' : 'Create'} without hooks`,
            action: 'without-hooks',
            onclick: () => void send({ ...request, hooks: false }, taskId),
          }
        : undefined;
    toast('error', { message: `${e.message}. Nothing was written.`, lines: e.details, warnings: e.warnings, button: again });
    return false;
  }
  if (status === 409) {
    const what = cardConflict(e);
    const message =
      what === undefined
        ? `Conflict${taskId ? ` on #${taskId}` : ''}: ${e.message}`
        : `Conflict${taskId ? ` on #${taskId}` : ''}: changed meanwhile, ${what}. Nothing was written; the board shows it as it is now.`;
    toast('conflict', { message, warnings: e.warnings });
    if (taskId) flagConflict(taskId);
    return false;
  }
  toast('error', { message: e.message, warnings: e.warnings });
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
  if (action === 'start' && !(await startAnyway(t))) return;
  await send({ action, list: state.listId, id: t.id, expect: expectOf(t) }, t.id);
}

/** Start on a task with open blockers: said first, as `tasks start` says it (agents may start such a task too). */
async function startAnyway(t: BoardTask): Promise<boolean> {
  const open = state.list?.facts[t.id]?.openBlockers ?? [];
  if (open.length === 0) return true;
  return confirmDialog(
    el.dialog(),
    `Start #${t.id} while it waits?`,
    `#${t.id} is blocked by ${open.map((id) => `#${id}`).join(', ')}, not done yet. Starting it does not remove them (agents may start such a task too).`,
    'Start anyway',
  );
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
    case 'claim':
      await send({ action: 'claim', list, id: t.id, expect }, t.id);
      return;
    case 'start':
      if (!(await startAnyway(t))) return;
      await send({ action, list, id: t.id, expect }, t.id);
      return;
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

async function undoRedo(action: 'undo' | 'redo', change: StackChangeView): Promise<void> {
  if (!state.listId) return;
  await send({ action, list: state.listId, txn: change.txn });
}

/** `release --gone`: what it would release (its dry run), then, confirmed, that; a live session asks for a second yes (--force). */
async function releaseGone(): Promise<void> {
  const list = state.listId;
  if (!list) return;
  const plan = await gonePreview(list);
  if (plan === undefined) return;
  if (plan.targets.length === 0) {
    toast('conflict', plan.none ?? 'no unfinished task is held by a gone owner; nothing released');
    return;
  }
  // A task with no owner was held by a session now over: it goes back to pending.
  const tasks = plan.targets
    .map((t) => `#${t.id} ${cutLine(t.subject, 60)} (${t.owner === '' ? 'no owner' : cutLine(t.owner, 24)})`)
    .join('\n');
  const body = `Their owners are gone (${plan.why ?? ''}). Each goes back to pending with no owner, if its owner still holds it:\n${tasks}${
    plan.live ? `\n\nBut ${plan.live}.` : ''
  }`;
  const yes = await confirmDialog(
    el.dialog(),
    `Release ${plan.targets.length} task${plan.targets.length === 1 ? '' : 's'} of gone owners?`,
    body,
    plan.live ? 'Release anyway' : 'Release',
  );
  if (!yes) return;
  await send({ action: 'release-gone', list, ids: plan.targets.map((t) => t.id), force: plan.live !== null });
}

/** `tasks carry`: its dry run into a live session (a choice when there are several), then, confirmed, the carry; a live agent on the list asks for a second yes (--force). */
async function carry(list: string): Promise<void> {
  const name = state.overview?.lists.find((l) => l.id === list)?.shortId ?? list;
  const back = document.activeElement as HTMLElement | null;
  const first = await carryPreview(list);
  if (first === undefined) {
    toast('error', 'the board did not answer; nothing carried');
    return;
  }
  const choice = await carryDialog(el.dialog(), name, first, (to) => carryPreview(list, to));
  if (choice !== undefined) await send({ action: 'carry', list, to: choice.to, force: choice.force });
  // The view may have been drawn again meanwhile (the same button, by its id), or the entry gone with the work: focus stays in its section.
  const again = back?.isConnected ? back : back?.id ? document.getElementById(back.id) : null;
  if (again) again.focus();
  else document.querySelector<HTMLElement>('#now-needs-title')?.focus();
}

/** `tasks lists --all`'s gone lists; one chosen: restored (below). */
async function restoreGone(): Promise<void> {
  const back = document.activeElement as HTMLElement | null;
  const payload = await goneLists();
  if (payload === undefined) {
    toast('error', 'the board did not answer');
    return;
  }
  const list = await goneListsDialog(el.dialog(), payload, readOnly());
  if (list === undefined) back?.focus();
  else await restore(list, payload.lists.find((l) => l.id === list)?.shortId ?? list, back);
}

/** `tasks restore`: its dry run (from the transcripts found, or those the person chose: --from), then, confirmed, the restore, and the list shown. */
async function restore(list: string, shortId: string, back = document.activeElement as HTMLElement | null): Promise<void> {
  const preview = await restorePreview(list);
  if (preview === undefined) {
    toast('error', 'the board did not answer; nothing restored');
    return;
  }
  const from = await restoreDialog(el.dialog(), preview, shortId, (f) => restorePreview(list, f));
  if (from === undefined) {
    back?.focus();
    return;
  }
  if (await send({ action: 'restore', list, from })) selectList(list);
  else back?.focus();
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

/** The lists, on a narrow screen: a drawer over the board, opened by the top bar's button. */
function showLists(open: boolean): void {
  document.body.classList.toggle('lists-open', open);
  byId('sidebar-toggle').setAttribute('aria-expanded', String(open));
  if (open) byId('list-search').focus();
}

function keyHandlers(): Parameters<typeof startKeys>[1] {
  const taskOf = (id: string) => state.list?.tasks.find((t) => t.id === id);
  const run = (action: 'start' | 'done', id: string) => {
    const t = taskOf(id);
    if (t && !readOnly() && state.list?.kind !== 'todowrite') void cardAction(action, t);
  };
  return {
    current: () => document.activeElement?.closest('#view [data-task]')?.getAttribute('data-task') ?? state.task,
    open: openTask,
    start: (id) => run('start', id),
    done: (id) => run('done', id),
    // The detail's "Assign to me & start": claimed as the person, as an agent claims it; a task that cannot be claimed is refused in the claim rule's words.
    assignToMe: (id) => {
      const t = taskOf(id);
      if (t && !readOnly() && state.list?.kind !== 'todowrite') void detailAction('claim', t);
    },
    toggleGraph: () => {
      state.view = state.view === 'graph' ? 'board' : 'graph';
      writeHash();
      drawMain();
    },
    close: () => {
      if (document.body.classList.contains('lists-open')) {
        showLists(false);
        byId('sidebar-toggle').focus();
        return true;
      }
      if (!state.task) return false;
      const id = state.task;
      closeTask();
      // Back to the task's card (or node), where the person came from.
      document.querySelector<HTMLElement>(`#view [data-task="${CSS.escape(id)}"]`)?.focus();
      return true;
    },
  };
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
  startTheme();
  startKeys(el.dialog(), keyHandlers());
  const toggle = byId('sidebar-toggle');
  toggle.addEventListener('click', () => showLists(!document.body.classList.contains('lists-open')));
  el.lists().addEventListener('click', (e) => {
    if ((e.target as Element).closest('[data-list]')) showLists(false);
  });
  byId('now-nav').addEventListener('click', showNow);
  byId('gone-nav').addEventListener('click', () => void restoreGone());
  // "3 min ago" stays true without any event.
  window.setInterval(() => {
    drawSidebar();
    drawHead();
  }, 30_000);
  // Every other relative time (cards, Now, a task's history, a stall's length) holds its moment and is rewritten here.
  window.setInterval(() => {
    tickAgo(document.body);
    // A task in progress stalls with time alone, nothing on disk changing: drawn again when one does.
    if (state.list !== undefined && state.list.id === state.listId && stallsByTime(state.list, serverNow(state.list.id))) drawMain();
    tickStalls(document.body);
  }, AGO_TICK_MS);
  drawMain();
  connect();
}

start();
