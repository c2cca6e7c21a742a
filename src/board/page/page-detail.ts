import type { BoardTask, CostView, HistoryEventView, HistoryPayload, ListPayload } from '../board-protocol.js';
import { agoSpan } from './page-ago.js';
import { serverNow, setClock } from './page-clock.js';
import { fill, h } from './page-dom.js';
import { aheadWords, changedFact, goneSinceSpan, seenNote, stallFact } from './page-stall.js';
import { cleanLine, cleanText, cutLine } from './page-text.js';

/**
 * One task in full: subject, status, owner, activeForm, description, what it waits for
 * and what waits for it, metadata, and its history (what `tasks log <id>` shows), with
 * every action the board offers on it.
 */
export type DetailAction = 'start' | 'claim' | 'done' | 'reopen' | 'reassign' | 'release' | 'block' | 'unblock' | 'delete';

export interface DetailHandlers {
  act(action: DetailAction, task: BoardTask): void;
  open(id: string): void;
  close(): void;
  readOnly: boolean;
}

const STATUS_WORD = { pending: 'pending', in_progress: 'in progress', completed: 'done' } as const;

function value(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? 'null');
}

function taskRef(list: ListPayload, id: string, open: (id: string) => void): HTMLElement {
  const t = list.tasks.find((x) => x.id === id);
  return h(
    'button',
    { class: `ref ${t?.status ?? 'missing'}`, type: 'button', onclick: () => t && open(id), disabled: t === undefined },
    `#${cutLine(id, 20)}`,
    t ? h('span', { class: 'ref-subject agent-text' }, ` ${cutLine(t.subject, 50)}`) : ' (missing)',
  );
}

export function renderDetail(
  container: HTMLElement,
  list: ListPayload,
  id: string,
  history: HistoryPayload | undefined,
  handlers: DetailHandlers,
  cost?: CostView,
): void {
  const t = list.tasks.find((x) => x.id === id);
  if (!t) {
    container.replaceChildren(
      h(
        'div',
        { class: 'detail-head' },
        h('h2', {}, `#${cutLine(id, 20)}`),
        h('button', { class: 'close', type: 'button', onclick: handlers.close, 'aria-label': 'close' }, '×'),
      ),
      h('p', { class: 'empty' }, 'This task no longer exists.'),
    );
    return;
  }
  const facts = list.facts[t.id];
  const now = serverNow(list.id);
  setClock(container, list.id);
  const button = (action: DetailAction, label: string, cls = '') =>
    h(
      'button',
      { class: `act act-${action} ${cls}`, type: 'button', 'data-action': action, onclick: () => handlers.act(action, t) },
      label,
    );
  const actions = handlers.readOnly
    ? null
    : h(
        'div',
        { class: 'detail-actions' },
        t.status === 'pending' && !t.owner ? button('claim', 'Assign to me & start', 'primary') : null,
        t.status === 'pending' ? button('start', 'Start', t.owner ? 'primary' : '') : null,
        t.status !== 'completed' ? button('done', 'Done', t.status === 'in_progress' ? 'primary' : '') : null,
        t.status === 'completed' ? button('reopen', 'Reopen', 'primary') : null,
        button('reassign', t.owner ? 'Reassign' : 'Assign'),
        t.owner && t.status !== 'completed' ? button('release', 'Release') : null,
        button('block', 'Block by…'),
        t.blockedBy.length > 0 ? button('unblock', 'Unblock…') : null,
        button('delete', 'Delete', 'danger'),
      );
  const metaEntries = Object.entries(t.metadata ?? {});
  const waitsFor = t.blockedBy;
  const waitedBy = t.blocks;
  fill(
    container,
    h(
      'div',
      { class: 'detail-head' },
      h(
        'span',
        { class: `pill ${facts?.blocked ? 'blocked' : t.status}` },
        facts?.blocked ? `${STATUS_WORD[t.status]} · blocked` : STATUS_WORD[t.status],
      ),
      h('span', { class: 'task-id' }, `#${cutLine(t.id, 20)}`),
      h('button', { class: 'close', type: 'button', onclick: handlers.close, 'aria-label': 'close' }, '×'),
    ),
    h('h2', { class: 'detail-subject agent-text' }, cleanLine(t.subject)),
    t.status === 'in_progress' && t.activeForm
      ? h('p', { class: 'active-form agent-text' }, h('span', { class: 'spinner' }), cleanLine(t.activeForm))
      : null,
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Owner'),
      h(
        'dd',
        { class: `agent-text${facts?.ownerGone ? ' gone' : ''}` },
        t.owner ? `${cleanLine(t.owner)}${facts?.ownerGone ? ` (gone: ${list.goneWhy ?? 'session over'})` : ''}` : 'nobody',
      ),
      ...changedFact(facts, now, list.id),
      facts?.agentGone !== undefined ? h('dt', {}, 'Agent') : null,
      facts?.agentGone !== undefined
        ? h(
            'dd',
            { class: 'gone' },
            `gone: ${cutLine(facts.agentGone.why, 60)} holding it`,
            facts.agentGone.since === null ? null : facts.agentGone.aheadMs === undefined ? ', last at work ' : ', last at work: ',
            facts.agentGone.since === null
              ? null
              : goneSinceSpan({ ...facts.agentGone, since: facts.agentGone.since }, 'when', now, list.id),
          )
        : null,
      ...(facts?.agentGone === undefined ? stallFact(list, t, serverNow(list.id)) : []),
      facts?.waitingFor !== undefined ? h('dt', {}, 'Waiting') : null,
      facts?.waitingFor !== undefined
        ? h(
            'dd',
            { class: 'waiting' },
            `its session waits for a person${facts.waitingFor === null ? '' : ` (${cutLine(facts.waitingFor, 60)})`}`,
          )
        : null,
      cost !== undefined ? h('dt', {}, 'Work') : null,
      cost !== undefined ? h('dd', { class: 'work' }, cost.text) : null,
    ),
    actions,
    h('h3', {}, 'Description'),
    t.description === ''
      ? h('p', { class: 'empty' }, 'No description.')
      : h('pre', { class: 'description agent-text' }, cleanText(t.description)),
    h('h3', {}, `Waits for (${waitsFor.length})`),
    waitsFor.length === 0
      ? h('p', { class: 'empty' }, 'Nothing.')
      : h(
          'div',
          { class: 'refs' },
          waitsFor.map((b) => taskRef(list, b, handlers.open)),
        ),
    h('h3', {}, `Blocks (${waitedBy.length})`),
    waitedBy.length === 0
      ? h('p', { class: 'empty' }, 'Nothing.')
      : h(
          'div',
          { class: 'refs' },
          waitedBy.map((b) => taskRef(list, b, handlers.open)),
        ),
    h('h3', {}, `Metadata (${metaEntries.length})`),
    metaEntries.length === 0
      ? h('p', { class: 'empty' }, 'None.')
      : h(
          'dl',
          { class: 'meta' },
          ...metaEntries.flatMap(([k, v]) => [
            h('dt', { class: 'agent-text' }, cutLine(k, 60)),
            h('dd', { class: 'agent-text' }, cleanText(value(v))),
          ]),
        ),
    h('h3', {}, 'History'),
    history === undefined ? h('p', { class: 'empty' }, 'Loading…') : historyView(history, now, list.id),
  );
}

/**
 * When a change was made: "3 min ago", its time on hover; recorded at a time dated ahead of
 * its machine's clock, when the board first read it, as a card says a file dated ahead
 * ("seen 2 min ago", why on hover), never "3 h in the future".
 */
function historyWhen(e: HistoryEventView, now: number, listId: string): HTMLElement {
  if (e.seenAt === undefined || e.aheadMs === undefined) return agoSpan('when', Date.parse(e.at), now, e.at);
  // The column is narrow: "(since the board started)" goes with the why, on hover, not onto four lines.
  return h(
    'span',
    { class: 'when ahead', title: `${aheadWords(e.aheadMs, `its record (${e.at})`)}${seenNote(e.seenAt, listId)}` },
    'seen ',
    agoSpan('when-ago', e.seenAt, now),
  );
}

/**
 * What `tasks log <id>` says: its notes (where the record starts, what it reads), then
 * each change, newest first, with who made it (a person, an agent, or "(no record)" with
 * the likely cause) in its words.
 */
function historyView(history: HistoryPayload, now: number, listId: string): HTMLElement {
  return h(
    'div',
    { class: 'history-block' },
    ...history.notes.map((n) => h('p', { class: 'history-note agent-text' }, cleanLine(n))),
    history.events.length === 0
      ? null
      : h(
          'ol',
          { class: 'history' },
          ...[...history.events]
            .reverse()
            .map((e) =>
              h(
                'li',
                { 'data-source': e.source, 'data-op': e.op },
                historyWhen(e, now, listId),
                h('span', { class: `who ${e.who.kind} agent-text` }, cleanLine(e.who.text)),
                h('span', { class: 'what agent-text' }, cleanLine(e.what)),
              ),
            ),
        ),
  );
}
