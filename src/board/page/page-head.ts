import { compactCount } from '../../render/compact-count.js';
import type {
  CostPayload,
  ListPayload,
  ListRowView,
  OverviewPayload,
  SessionView,
  StackChangeView,
  StackPreview,
  UndoPreviewPayload,
} from '../board-protocol.js';
import { serverNow, setClock } from './page-clock.js';
import { fill, h } from './page-dom.js';
import { lastChangeWords, progress, sessionLabel } from './page-sidebar.js';
import { cleanLine, cutLine } from './page-text.js';

/**
 * The head of a list: its session (the state core gives it, project, branch, prompt),
 * every other session of the list and those that cannot be told apart, the sign of life
 * that keeps its owners from being gone, its progress, stalled work and gone owners; and
 * the list's actions: undo and redo of the change shown, with what each would do now (its
 * dry run) or why it would be refused, releasing the gone owners' tasks, a new task.
 */
export interface HeadHandlers {
  undo(change: StackChangeView): void;
  redo(change: StackChangeView): void;
  releaseGone(): void;
  /** Carry the list's unfinished work to a live session (`tasks carry`), its dry run first. */
  carry(): void;
  /** Rebuild the list from its sessions' transcripts (`tasks restore`), its dry run first. */
  restore(): void;
  create(): void;
  readOnly: boolean;
}

/** `tasks lists`'s note for the lists whose sessions cannot be told apart, when it names this one. */
function unsureNote(row: ListRowView, overview: OverviewPayload | undefined): string | undefined {
  return overview?.unsureNotes.find((n) => (n.split(': ')[0] ?? '').split(', ').includes(row.shortId));
}

function sessionsLine(row: ListRowView, overview: OverviewPayload | undefined): HTMLElement | null {
  const others = row.others;
  const parts: Array<HTMLElement | null> = [];
  if (others.length > 0) {
    const shown = others.map((s) => `${s.sessionId.slice(0, 8)} ${s.stateText}`);
    const more = row.sessionCount > others.length + 1 ? `, +${row.sessionCount - others.length - 1}` : '';
    parts.push(h('span', { class: 'sessions-other' }, `also sessions ${shown.join(' · ')}${more}`));
  }
  const unsure = unsureNote(row, overview);
  if (unsure !== undefined) parts.push(h('span', { class: 'sessions-unsure agent-text' }, cleanLine(unsure)));
  return parts.length === 0 ? null : h('div', { class: 'head-sessions' }, parts);
}

/**
 * The session's last activity, "active 3 min ago"; dated ahead of its machine's clock, as
 * the rest of the board says a time dated ahead ("seen 2 min ago", why on hover), never
 * "active 3 h in the future".
 */
export function activeWords(
  s: Pick<SessionView, 'seenAt' | 'aheadMs'> & { lastActivity: number },
  listId: string,
  now: number,
): { text: string; title?: string } {
  const words = lastChangeWords({ id: listId, changedAt: s.lastActivity, seenAt: s.seenAt, aheadMs: s.aheadMs }, now, 'its last activity');
  return words.title === undefined ? { text: `active ${words.text}` } : words;
}

function activeTag(s: SessionView, listId: string, now: number): HTMLElement | null {
  // None known: nothing said.
  if (!s.lastActivity) return null;
  const { text, title } = activeWords({ ...s, lastActivity: s.lastActivity }, listId, now);
  return h('span', { class: title === undefined ? 'tag when' : 'tag when ahead', title }, text);
}

function kindTag(row: ListRowView): HTMLElement | null {
  if (row.kind === 'todowrite') return h('span', { class: 'tag kind todowrite' }, 'TodoWrite todos · read-only');
  if (row.kind === 'new') return h('span', { class: 'tag kind new' }, 'no tasks yet');
  return null;
}

function previewText(p: StackPreview | undefined): { text: string; refused: boolean } | undefined {
  if (p === undefined || p === null) return undefined;
  if ('refused' in p) return { text: `would be refused: ${p.refused}`, refused: true };
  return { text: p.lines.join('\n'), refused: false };
}

function stackButton(
  id: 'undo' | 'redo',
  change: StackChangeView,
  preview: StackPreview | undefined,
  at: { now: number; listId: string },
  onclick: () => void,
): HTMLElement {
  const p = previewText(preview);
  // When it was made; recorded ahead of its machine's clock, when the board first saw it ("seen 2 min ago"), never "in the future".
  const when = lastChangeWords(
    { id: at.listId, changedAt: Date.parse(change.at), seenAt: change.seenAt, aheadMs: change.aheadMs },
    at.now,
    'this change',
  );
  const what = change.finishing
    ? `↶ Finish the interrupted ${change.command}`
    : `${id === 'undo' ? '↶ Undo' : '↷ Redo'} ${cleanLine(change.command)} by ${cutLine(change.actor.name, 20)} · ${when.text}`;
  const title = p?.text ?? `${id} ${change.command} by ${change.actor.name} (${change.tasks.map((t) => `#${t}`).join(', ')})`;
  return h(
    'button',
    {
      class: `ghost stack${p?.refused ? ' refused' : ''}`,
      id,
      type: 'button',
      'data-txn': change.txn,
      title: when.title === undefined || change.finishing ? title : `${title}\n${when.title}`,
      onclick,
    },
    what,
  );
}

/** The dry runs' words under the buttons: the first steps, or the refusal. */
function previewBlock(preview: UndoPreviewPayload | undefined, list: ListPayload): HTMLElement | null {
  if (preview === undefined) return null;
  const rows: HTMLElement[] = [];
  for (const [key, change] of [
    ['undo', list.undo],
    ['redo', list.redo],
  ] as const) {
    const p = preview[key];
    // A preview of another change than the one shown (the list moved on since it was read) is not shown.
    if (change === null || p === null || p === undefined || preview[`${key}Txn`] !== change.txn) continue;
    if ('refused' in p)
      rows.push(h('div', { class: `preview refused`, 'data-for': key }, `${key}: would be refused: ${cleanLine(p.refused)}`));
    else {
      const steps = p.lines.slice(1, 4).map((l) => l.trim());
      const more = p.lines.length > 4 ? ` … (${p.lines.length - 4} more)` : '';
      rows.push(
        h('div', { class: 'preview', 'data-for': key }, `${cleanLine(p.lines[0] ?? '')} ${steps.map(cleanLine).join('; ')}${more}`),
      );
    }
  }
  return rows.length === 0 ? null : h('div', { class: 'stack-preview' }, rows);
}

/** What the agents' work on the list cost (`tasks cost`), when any is recorded. */
function costLine(cost: CostPayload | undefined): HTMLElement | null {
  if (cost === undefined) return null;
  if (cost.error !== null) return h('div', { class: 'head-cost warn' }, `cost: ${cleanLine(cost.error)}`);
  if (cost.total.messages === 0 && cost.total.activeMs === 0) return null;
  // The part with no task in progress, by its tokens alone: its whole line again read as a second total.
  const unattributed =
    cost.unattributed.tokens === 0
      ? ''
      : cost.unattributed.tokens === cost.total.tokens
        ? ', all of it with no task in progress'
        : ` (${compactCount(cost.unattributed.tokens)} tokens of it with no task in progress)`;
  return h(
    'div',
    { class: 'head-cost', title: `estimated at Anthropic's API prices as of ${cost.pricesDate}` },
    `agents' work: ${cost.total.text}${unattributed}`,
  );
}

/**
 * Whether to offer a carry: a list whose session is over (ended, crashed, or cleared by
 * /clear) with unfinished work not carried before; no live session, so no agent's work is
 * offered to be taken (the carry's own dry run says what a real run would meet).
 */
function mayCarry(row: ListRowView, list: ListPayload): boolean {
  if (row.kind !== 'tasks' || list.life !== null) return false;
  if ([row.session, ...row.others].some((s) => s?.state === 'live')) return false;
  return list.tasks.some(
    (t) =>
      t.status !== 'completed' &&
      !list.facts[t.id]?.internal &&
      (t.metadata as { carriedTo?: unknown } | undefined)?.carriedTo === undefined,
  );
}

export function renderHead(
  container: HTMLElement,
  row: ListRowView | null | undefined,
  list: ListPayload | undefined,
  overview: OverviewPayload | undefined,
  preview: UndoPreviewPayload | undefined,
  handlers: HeadHandlers,
  cost?: CostPayload,
): void {
  if (!row) {
    container.replaceChildren();
    return;
  }
  const s = row.session;
  const label = sessionLabel(s);
  const now = serverNow(row.id);
  setClock(container, row.id);
  // A task whose agent is gone is counted as such, not as stalled (its card says so in place of the stall).
  const stalled = list ? Object.values(list.facts).filter((f) => f.stalledMs !== undefined && f.agentGone === undefined).length : 0;
  const agentGone = list ? Object.values(list.facts).filter((f) => f.agentGone !== undefined).length : 0;
  const waiting = list ? Object.values(list.facts).filter((f) => f.waitingFor !== undefined).length : 0;
  const gone = list ? list.tasks.filter((t) => list.facts[t.id]?.ownerGone).length : 0;
  const bound = overview?.binding?.list === row.id ? overview.binding : null;
  const writable = !handlers.readOnly && row.kind !== 'todowrite';
  fill(
    container,
    h(
      'div',
      { class: 'head-main' },
      // By the list's own name, which stays; the session's name and latest prompt, which move, below it.
      h('h1', { class: 'list-name agent-text', title: row.id }, cutLine(row.team?.name ?? row.shortId, 80)),
      s?.name || s?.prompt
        ? h(
            'div',
            { class: 'head-prompt agent-text', title: s.prompt ?? '' },
            [s.name, s.prompt ? cutLine(s.prompt, 120) : null].filter(Boolean).join(' · '),
          )
        : null,
      h(
        'div',
        { class: 'head-meta' },
        row.host === undefined ? null : h('span', { class: 'tag host', title: `on host ${row.host}` }, `host ${cutLine(row.host, 40)}`),
        h('span', { class: 'tag id', title: row.id }, row.shortId),
        h('span', { class: `tag state ${label.look}` }, h('span', { class: `dot ${label.look}` }), label.text),
        kindTag(row),
        s?.project ? h('span', { class: 'tag project agent-text' }, cutLine(s.project, 60)) : null,
        s?.branch ? h('span', { class: 'tag branch agent-text' }, `⎇ ${cutLine(s.branch, 40)}`) : null,
        row.team ? h('span', { class: 'tag team agent-text' }, `team ${cutLine(row.team.name, 30)} (${row.team.members.length})`) : null,
        bound
          ? h('span', { class: 'tag bound', title: `bound by ${bound.file} (${bound.scope} settings)` }, 'bound here (tasks use)')
          : null,
        s ? activeTag(s, row.id, now) : null,
      ),
      sessionsLine(row, overview),
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
        waiting > 0 ? h('span', { class: 'warn waiting-count' }, `${waiting} waiting for a person`) : null,
        gone > 0 ? h('span', { class: 'warn red gone-count' }, `${gone} held by gone owners (${list?.goneWhy ?? ''})`) : null,
        agentGone > 0
          ? h('span', { class: 'warn red agent-gone-count' }, `${agentGone} in progress with no agent left (its session is over)`)
          : null,
        (gone > 0 || agentGone > 0) && writable
          ? h('button', { class: 'ghost small', id: 'release-gone', type: 'button', onclick: handlers.releaseGone }, 'Release…')
          : null,
        // A list left empty (Claude Code deletes the task files once every task is done) may be rebuilt from its transcripts.
        writable && list?.exists && list.tasks.length === 0 && list.unreadable === null && row.kind === 'tasks' && row.session !== null
          ? h(
              'button',
              {
                class: 'ghost small',
                id: 'restore',
                type: 'button',
                title: "rebuild the list from its sessions' transcripts (tasks restore), its dry run shown first",
                onclick: handlers.restore,
              },
              'Restore…',
            )
          : null,
        writable && list && mayCarry(row, list)
          ? h(
              'button',
              {
                class: 'ghost small',
                id: 'carry',
                type: 'button',
                title: 'bring the unfinished work into the list a live session uses now (tasks carry), its dry run shown first',
                onclick: handlers.carry,
              },
              s?.replacedBy ? `Carry to ${s.replacedBy.slice(0, 8)}…` : 'Carry…',
            )
          : null,
        list?.life && gone === 0 && list.tasks.some((t) => t.owner && t.status !== 'completed')
          ? h('span', { class: 'life', title: 'no owner is gone while a sign of life remains' }, `at work: ${cleanLine(list.life.why)}`)
          : null,
        list && list.problems.length > 0
          ? h('span', { class: 'warn red' }, `${list.problems.length} unreadable file${list.problems.length === 1 ? '' : 's'}`)
          : null,
      ),
      costLine(cost),
      writable && list ? previewBlock(preview, list) : null,
    ),
    writable
      ? h(
          'div',
          { class: 'head-actions' },
          list?.undo
            ? stackButton('undo', list.undo, preview?.undoTxn === list.undo.txn ? preview.undo : undefined, { now, listId: row.id }, () =>
                list.undo ? handlers.undo(list.undo) : undefined,
              )
            : null,
          list?.redo
            ? stackButton('redo', list.redo, preview?.redoTxn === list.redo.txn ? preview.redo : undefined, { now, listId: row.id }, () =>
                list.redo ? handlers.redo(list.redo) : undefined,
              )
            : null,
          h('button', { class: 'primary', id: 'new-task', type: 'button', onclick: handlers.create }, '+ New task'),
        )
      : null,
  );
}
