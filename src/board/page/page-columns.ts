import type { AgentGoneView, BoardStatus, BoardTask, ListPayload, TaskFacts, TodoView } from '../board-protocol.js';
import { tickAgo } from './page-ago.js';
import { serverNow } from './page-clock.js';
import { h, reconcile } from './page-dom.js';
import { changedSpan, goneSinceSpan, stallMark, tickStalls } from './page-stall.js';
import { cutLine } from './page-text.js';

/**
 * A list as three columns, pending / in progress / completed, one card a task: its id,
 * subject, owner (marked when gone), the activeForm of work in progress, open blockers
 * and stalled work marked; the action a card offers most (start, done, reopen). Cards
 * are kept by a key of what they show, so a change redraws only the cards it touched.
 */
export type CardAction = 'start' | 'done' | 'reopen';

export interface CardHandlers {
  open(id: string): void;
  act(action: CardAction, task: BoardTask): void;
  readOnly: boolean;
}

export const COLUMNS: ReadonlyArray<{ status: BoardStatus; title: string }> = [
  { status: 'pending', title: 'Pending' },
  { status: 'in_progress', title: 'In progress' },
  { status: 'completed', title: 'Completed' },
];

const cache = new Map<string, { key: string; el: HTMLElement }>();

/** The columns drawn last, kept so that a change moves or replaces only the cards it touched. */
let drawn:
  | {
      list: string;
      root: HTMLElement;
      columns: HTMLElement;
      bodies: Map<BoardStatus, HTMLElement>;
      counts: Map<BoardStatus, HTMLElement[]>;
      switches: Map<BoardStatus, HTMLButtonElement>;
    }
  | undefined;

/**
 * The column a narrow screen shows (the others a tap away in the switcher): chosen once
 * per list, where the work is (in progress, else pending), then the person's.
 */
let current: { list: string; status: BoardStatus } | undefined;

function showColumn(status: BoardStatus): void {
  if (!drawn) return;
  current = { list: drawn.list, status };
  drawn.columns.dataset.current = status;
  for (const [s, button] of drawn.switches) button.setAttribute('aria-pressed', String(s === status));
}

export function renderColumns(
  container: HTMLElement,
  list: ListPayload,
  shown: readonly BoardTask[],
  selected: string | undefined,
  handlers: CardHandlers,
): void {
  const now = serverNow(list.id);
  const seen = new Set<string>();
  if (!drawn || drawn.list !== list.id || !container.contains(drawn.root)) {
    const bodies = new Map<BoardStatus, HTMLElement>();
    const counts = new Map<BoardStatus, HTMLElement[]>();
    const switches = new Map<BoardStatus, HTMLButtonElement>();
    const columns = COLUMNS.map(({ status, title }) => {
      const body = h('div', { class: 'column-body' });
      const count = h('span', { class: 'col-count' });
      const switchCount = h('span', { class: 'switch-count' });
      bodies.set(status, body);
      counts.set(status, [count, switchCount]);
      switches.set(
        status,
        h('button', { type: 'button', 'data-column': status, onclick: () => showColumn(status) }, `${title} `, switchCount),
      );
      return h(
        'section',
        { class: `column col-${status}`, 'data-status': status, 'aria-label': title },
        h('header', { class: 'column-head' }, h('span', { class: `col-dot ${status}` }), title, count),
        body,
      );
    });
    const grid = h('div', { class: 'columns' }, ...columns);
    const root = h(
      'div',
      { class: 'board-wrap' },
      h('div', { class: 'col-switch', role: 'group', 'aria-label': 'Column shown' }, ...switches.values()),
      grid,
    );
    container.replaceChildren(root);
    drawn = { list: list.id, root, columns: grid, bodies, counts, switches };
    const order: BoardStatus[] = ['in_progress', 'pending', 'completed'];
    const first = order.find((status) => shown.some((t) => t.status === status)) ?? 'pending';
    showColumn(current?.list === list.id ? current.status : first);
  }
  for (const { status } of COLUMNS) {
    const tasks = shown.filter((t) => t.status === status);
    const cards: Element[] = tasks.map((t) => {
      const facts = list.facts[t.id];
      // Not the time: a card's "x min ago" moves by itself (page-ago), so a card is redrawn only when it changes.
      const key = JSON.stringify([t, facts, t.id === selected, handlers.readOnly]);
      const cacheKey = `${list.id}\u0000${t.id}`;
      seen.add(cacheKey);
      const hit = cache.get(cacheKey);
      if (hit && hit.key === key) return hit.el;
      const el = card(list, t, facts, t.id === selected, now, handlers);
      cache.set(cacheKey, { key, el });
      return el;
    });
    if (cards.length === 0) cards.push(h('p', { class: 'empty' }, 'Nothing here'));
    reconcile(drawn.bodies.get(status) as HTMLElement, cards);
    for (const count of drawn.counts.get(status) as HTMLElement[]) count.textContent = String(tasks.length);
  }
  for (const key of [...cache.keys()]) if (!seen.has(key)) cache.delete(key);
  // A card kept from an earlier draw says how long ago (and how long stalled) as of now, not as of the last tick.
  tickAgo(drawn.root);
  tickStalls(drawn.root);
}

/** "agent gone: session 4aa21e64 crashed 15 min ago", the time moving on by itself (page-ago). */
function agentGoneMark(gone: AgentGoneView, now: number, listId: string): HTMLElement {
  return h(
    'span',
    {
      class: 'mark agent-gone',
      title: `in progress with no owner, and ${gone.why} holding it: no agent is left to finish it; Release… (tasks release --gone) puts it back to pending`,
    },
    `agent gone: ${cutLine(gone.why, 60)}`,
    // "crashed 15 min ago"; dated ahead, "crashed, seen 2 min ago".
    gone.since === null ? null : gone.aheadMs === undefined ? ' ' : ', ',
    gone.since === null ? null : goneSinceSpan({ ...gone, since: gone.since }, 'gone-ago', now, listId),
  );
}

function card(
  list: ListPayload,
  t: BoardTask,
  facts: TaskFacts | undefined,
  selected: boolean,
  now: number,
  handlers: CardHandlers,
): HTMLElement {
  const marks: HTMLElement[] = [];
  if (facts?.blocked) marks.push(h('span', { class: 'mark blocked' }, `blocked by ${facts.openBlockers.map((b) => `#${b}`).join(', ')}`));
  if (facts && facts.missingBlockers.length > 0 && t.status !== 'completed')
    marks.push(
      h(
        'span',
        { class: 'mark missing', title: 'names tasks that do not exist (they do not block)' },
        facts.missingBlockers.map((b) => `#${cutLine(b, 12)}?`).join(' '),
      ),
    );
  // Its agent is gone (the session that held it is over): said in place of a stall, in red, as `tasks list` does.
  const stalled = facts?.agentGone === undefined ? stallMark(list, t, serverNow(list.id)) : agentGoneMark(facts.agentGone, now, list.id);
  if (stalled !== null) marks.push(stalled);
  // Its session waits for a person (a permission prompt): not stalled; it is someone's turn.
  if (facts?.waitingFor !== undefined)
    marks.push(
      h(
        'span',
        { class: 'mark waiting', title: 'in progress; its session waits for a person' },
        facts.waitingFor === null ? 'waiting for you' : `waiting: ${cutLine(facts.waitingFor, 30)}`,
      ),
    );
  if (facts?.ready) marks.push(h('span', { class: 'mark ready' }, 'ready'));
  if (facts?.internal) marks.push(h('span', { class: 'mark internal' }, 'internal'));
  const metaKeys = Object.keys(t.metadata ?? {}).filter((k) => k !== '_internal');
  if (metaKeys.length > 0)
    // Not `meta`: that is the detail's grid of keys and values (board.css).
    marks.push(h('span', { class: 'mark meta-count', title: metaKeys.map((k) => cutLine(k, 40)).join(', ') }, `${metaKeys.length} meta`));
  const action: { name: CardAction; label: string } | undefined =
    t.status === 'pending'
      ? { name: 'start', label: 'Start' }
      : t.status === 'in_progress'
        ? { name: 'done', label: 'Done' }
        : { name: 'reopen', label: 'Reopen' };
  return h(
    'article',
    {
      class: `card ${t.status}${facts?.blocked ? ' is-blocked' : ''}${facts?.agentGone !== undefined ? ' is-agent-gone' : facts?.stalledMs !== undefined ? ' is-stalled' : ''}${facts?.waitingFor !== undefined ? ' is-waiting' : ''}${selected ? ' selected' : ''}`,
      'data-task': t.id,
      tabindex: 0,
      onclick: () => handlers.open(t.id),
      // Enter or Space on the card opens it; on its button, the button acts (and the card is left alone).
      onkeydown: (e: Event) => {
        const key = (e as KeyboardEvent).key;
        if (e.target !== e.currentTarget || (key !== 'Enter' && key !== ' ')) return;
        e.preventDefault();
        handlers.open(t.id);
      },
    },
    h(
      'div',
      { class: 'card-top' },
      h('span', { class: 'task-id' }, `#${cutLine(t.id, 20)}`),
      t.owner
        ? h(
            'span',
            { class: `owner${facts?.ownerGone ? ' gone' : ''}`, title: facts?.ownerGone ? "this owner's session is over" : 'owner' },
            `@${cutLine(t.owner, 24)}${facts?.ownerGone ? ' (gone)' : ''}`,
          )
        : null,
    ),
    h('div', { class: 'subject agent-text' }, cutLine(t.subject, 140)),
    t.status === 'in_progress' && t.activeForm
      ? h('div', { class: 'active-form agent-text' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), cutLine(t.activeForm, 100))
      : null,
    marks.length > 0 ? h('div', { class: 'marks' }, marks) : null,
    h(
      'div',
      { class: 'card-foot' },
      changedSpan(facts, now, list.id),
      handlers.readOnly
        ? null
        : h(
            'button',
            {
              class: `act act-${action.name}`,
              type: 'button',
              'data-action': action.name,
              'aria-label': `${action.label} #${cutLine(t.id, 20)}`,
              onclick: (e: Event) => {
                e.stopPropagation();
                handlers.act(action.name, t);
              },
            },
            action.label,
          ),
    ),
  );
}

/**
 * A TodoWrite session's todos (the older system: kept in its transcript, no file, no id):
 * the same three columns, read-only, each todo as its session last wrote it.
 */
export function renderTodos(container: HTMLElement, todos: readonly TodoView[]): void {
  drawn = undefined;
  const columns = COLUMNS.map(({ status, title }) => {
    const mine = todos.filter((t) => t.status === status);
    return h(
      'section',
      { class: `column col-${status}`, 'data-status': status },
      h(
        'header',
        { class: 'column-head' },
        h('span', { class: `col-dot ${status}` }),
        title,
        h('span', { class: 'col-count' }, String(mine.length)),
      ),
      h(
        'div',
        { class: 'column-body' },
        ...(mine.length === 0
          ? [h('p', { class: 'empty' }, 'Nothing here')]
          : mine.map((t) =>
              h(
                'article',
                { class: `card todo ${t.status}` },
                h('div', { class: 'subject agent-text' }, cutLine(t.content, 140)),
                t.status === 'in_progress' && t.activeForm
                  ? h(
                      'div',
                      { class: 'active-form agent-text' },
                      h('span', { class: 'spinner', 'aria-hidden': 'true' }),
                      cutLine(t.activeForm, 100),
                    )
                  : null,
              ),
            )),
      ),
    );
  });
  container.replaceChildren(
    h(
      'p',
      { class: 'todo-note' },
      'TodoWrite todos, as the session last wrote them: read-only (they live in its transcript, not in a list).',
    ),
    h('div', { class: 'columns' }, ...columns),
  );
}
