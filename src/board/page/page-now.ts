import type { NowEventType, NowEventView, NowFeedItem, NowListRef, NowPayload, NowWorkView } from '../board-protocol.js';
import { agoSpan } from './page-ago.js';
import { onPageClock, serverNow } from './page-clock.js';
import { fill, h } from './page-dom.js';
import type { NotifyChoice } from './page-notify.js';
import { aheadWords, seenNote } from './page-stall.js';
import { cutLine } from './page-text.js';

/**
 * The Now view, the page the board opens on: every list at once. What needs a person
 * (a task waiting on one, a stalled task, an agent gone holding work, a list that can
 * never finish or is damaged), the work in progress by whom, lists just finished, and
 * what just happened. Everything in it is what the server sent (core's events, in the
 * words of `tasks notify`); the page only lays it out and links each entry to its list.
 */
export interface NowHandlers {
  open(list: string, task?: string): void;
  /** Carry the list's unfinished work to a live session (`tasks carry`), its dry run first; absent on a read-only board. */
  carry?: ((list: string) => void) | undefined;
  notify(): void;
  notifyChoice: NotifyChoice;
}

const KIND_WORDS: Record<NowEventType, string> = {
  'needs-you': 'waits for you',
  'ready-for-person': 'waits for a person',
  stalled: 'stalled',
  'agent-died': 'agent gone',
  'work-left': 'work left',
  'hook-refused': 'refused by a hook',
  'blocked-cycle': 'blocked forever',
  damage: 'damaged',
  'list-completed': 'finished',
};

function listLink(ref: NowListRef, handlers: NowHandlers, task?: string): HTMLElement {
  const hash = `#list=${encodeURIComponent(ref.list)}${task === undefined ? '' : `&task=${encodeURIComponent(task)}`}`;
  return h(
    'a',
    {
      class: 'now-link',
      href: hash,
      'data-list': ref.list,
      'data-task': task,
      onclick: (e: Event) => {
        e.preventDefault();
        handlers.open(ref.list, task);
      },
    },
    task === undefined ? cutLine(ref.shortId, 40) : `#${task}`,
  );
}

function where(ref: NowListRef, handlers: NowHandlers): HTMLElement {
  return h(
    'span',
    { class: 'now-where' },
    ref.host === undefined ? null : h('span', { class: 'host-chip', title: `on host ${ref.host}` }, cutLine(ref.host, 32)),
    listLink(ref, handlers),
    ref.project ? h('span', { class: 'now-project agent-text' }, cutLine(ref.project, 48)) : null,
  );
}

/**
 * When it happened; where no record says, when the board saw it, said as such ("seen 2
 * min ago"), never as its time. A record dated ahead of its machine's clock (`aheadMs`, of
 * `what`) as a card says a file dated ahead: "seen 2 min ago", why on hover, never "in the future".
 */
function whenSpan(at: number, seen: boolean, list: string, ahead?: { aheadMs?: number; what: string }): HTMLElement {
  const now = serverNow(list);
  if (ahead?.aheadMs !== undefined)
    return h(
      'span',
      { class: 'now-when seen ahead', title: aheadWords(ahead.aheadMs, ahead.what) },
      'seen ',
      agoSpan('now-ago', at, now),
      seenNote(at, list),
    );
  const title = new Date(onPageClock(at, list)).toLocaleString();
  if (!seen) return agoSpan('now-when', at, now, title);
  return h('span', { class: 'now-when seen', title: `first seen by the board ${title}` }, 'seen ', agoSpan('now-ago', at, now));
}

/** A task's last change; for a file dated ahead of its machine's clock, when the board first saw it, saying so. */
function changedWhen(at: number, aheadMs: number | undefined, now: number, list: string): HTMLElement {
  if (aheadMs === undefined) return agoSpan('now-when', at, now);
  return h('span', { class: 'now-when seen ahead', title: aheadWords(aheadMs) }, 'seen ', agoSpan('now-ago', at, now), seenNote(at, list));
}

// Each item's times count on its list's clock: its host's, on a board of hosts (page-clock.ts).
function eventItem(e: NowEventView, handlers: NowHandlers): HTMLElement {
  return h(
    'li',
    { class: `now-item now-${e.type}`, 'data-key': e.key, 'data-type': e.type, 'data-clock': e.list },
    h(
      'div',
      { class: 'now-item-head' },
      h('span', { class: `now-kind ${e.type}` }, KIND_WORDS[e.type]),
      where(e, handlers),
      whenSpan(e.since, e.seen, e.list, { aheadMs: e.aheadMs, what: 'its record' }),
    ),
    h('div', { class: 'now-text agent-text' }, e.text),
    h(
      'div',
      { class: 'now-tasks' },
      ...e.tasks
        .slice(0, 8)
        .map((t) =>
          h('span', { class: 'now-task' }, listLink(e, handlers, t.id), ' ', h('span', { class: 'agent-text' }, cutLine(t.subject, 60))),
        ),
      e.tasks.length > 8 ? h('span', { class: 'now-more' }, `+${e.tasks.length - 8} more`) : null,
    ),
    h(
      'div',
      { class: 'now-item-foot' },
      h('code', { class: 'now-action', title: 'the command that acts on it' }, e.action),
      e.type === 'agent-died' || e.type === 'work-left' ? carryButton(e, handlers) : null,
    ),
  );
}

/**
 * An agent gone holding work: its work may be carried to a live session, as from the
 * list's own page (the carry's dry run, into the session it would go to, comes first,
 * with whatever a real run would meet).
 */
function carryButton(e: NowEventView, handlers: NowHandlers): HTMLElement | null {
  const carry = handlers.carry;
  if (carry === undefined || e.leftWork === 0) return null;
  return h(
    'button',
    {
      type: 'button',
      class: 'ghost small now-carry',
      // By its list: focus comes back to it when the view is drawn again.
      id: `now-carry-${e.list}`,
      'aria-label': `Carry the unfinished work of ${e.shortId}…`,
      title: 'bring the unfinished work into the list a live session uses now (tasks carry), its dry run shown first',
      onclick: () => carry(e.list),
    },
    'Carry…',
  );
}

function workItem(w: NowWorkView, handlers: NowHandlers): HTMLElement {
  const now = serverNow(w.list);
  return h(
    'li',
    { class: 'now-work', 'data-list': w.list, 'data-clock': w.list },
    h('div', { class: 'now-item-head' }, where(w, handlers)),
    h(
      'ul',
      { class: 'now-work-tasks' },
      ...w.tasks.map((t) =>
        h(
          'li',
          {
            class: `now-work-task${t.ownerGone ? ' gone' : ''}${t.stalled ? ' stalled' : ''}${t.waiting ? ' waiting' : ''}`,
            'data-task': t.id,
          },
          // A spinner only for work that goes on: not for a stall, an agent that is gone, or a session waiting for a person.
          t.ownerGone || t.stalled || t.waiting
            ? h(
                'span',
                { class: 'now-mark', title: t.ownerGone ? 'its agent is gone' : t.waiting ? 'its session waits for a person' : 'stalled' },
                t.ownerGone ? '✕' : '⏸',
              )
            : h('span', { class: 'spinner', 'aria-hidden': 'true' }),
          listLink(w, handlers, t.id),
          ' ',
          h('span', { class: 'now-subject agent-text' }, cutLine(t.activeForm ?? t.subject, 80)),
          h('span', { class: 'now-owner agent-text' }, t.owner ? cutLine(t.owner, 30) : 'no owner'),
          // As the list page and `tasks list` say it: an owner gone, or (no owner) the agent that held it.
          t.ownerGone ? h('span', { class: 'now-flag gone' }, t.owner ? 'owner gone' : 'agent gone') : null,
          t.waiting && !t.ownerGone ? h('span', { class: 'now-flag waiting' }, 'waiting for you') : null,
          t.stalled ? h('span', { class: 'now-flag stalled' }, 'stalled') : null,
          t.changedAt === null ? null : changedWhen(t.changedAt, t.aheadMs, now, w.list),
        ),
      ),
    ),
  );
}

function feedItem(f: NowFeedItem, handlers: NowHandlers): HTMLElement {
  return h(
    'li',
    { class: `now-feed-item ${f.kind}`, 'data-clock': f.list },
    whenSpan(f.at, f.seen, f.list, { aheadMs: f.aheadMs, what: f.kind === 'change' ? 'its file' : 'its record' }),
    where(f, handlers),
    // A change's words follow its task's id; an event's name their tasks themselves.
    f.kind === 'change'
      ? f.task === null
        ? null
        : listLink(f, handlers, f.task)
      : h('span', { class: `now-kind ${f.kind}` }, KIND_WORDS[f.kind]),
    ' ',
    h('span', { class: 'now-text agent-text' }, f.text),
  );
}

function section(id: string, title: string, count: number, empty: string, items: HTMLElement[]): HTMLElement {
  return h(
    'section',
    { class: 'now-section', id, 'aria-labelledby': `${id}-title` },
    h(
      'h2',
      { class: 'now-title', id: `${id}-title`, tabindex: -1 },
      title,
      count > 0 ? h('span', { class: 'now-count' }, String(count)) : null,
    ),
    items.length === 0 ? h('p', { class: 'now-empty' }, empty) : h('ul', { class: 'now-list' }, items),
  );
}

function notifyButton(handlers: NowHandlers): HTMLElement {
  const c = handlers.notifyChoice;
  if (c === 'unsupported') return h('span', { class: 'now-notify-state' }, 'this browser has no notifications');
  if (c === 'denied')
    return h('span', { class: 'now-notify-state' }, 'notifications are blocked for this page (the browser’s site settings)');
  return h(
    'button',
    {
      class: c === 'on' ? 'ghost small' : 'primary small',
      id: 'now-notify',
      type: 'button',
      'aria-pressed': c === 'on' ? 'true' : 'false',
      title: 'the same events as tasks notify, as browser notifications, each once',
      onclick: handlers.notify,
    },
    c === 'on' ? 'Notifications on' : 'Notify me',
  );
}

export function renderNow(container: HTMLElement, payload: NowPayload | undefined, handlers: NowHandlers): void {
  if (payload === undefined || !payload.ready) {
    fill(container, h('p', { class: 'empty big' }, 'Looking at every list…'));
    return;
  }
  const needs = [...payload.died, ...payload.waiting, ...payload.stalled, ...payload.problems];
  const running = payload.working.reduce((n, w) => n + w.tasks.length, 0);
  fill(
    container,
    h(
      'div',
      { class: 'now' },
      h(
        'div',
        { class: 'now-top' },
        h('h1', { class: 'now-heading' }, 'Now'),
        h(
          'span',
          { class: 'now-summary' },
          `${payload.needsPerson} need${payload.needsPerson === 1 ? 's' : ''} a person · ${running} in progress · ${payload.finished.length} finished in the last day`,
        ),
        notifyButton(handlers),
      ),
      section(
        'now-needs',
        'Needs a person',
        needs.length,
        'Nothing waits for a person.',
        needs.map((e) => eventItem(e, handlers)),
      ),
      section(
        'now-working',
        'In progress',
        running,
        'No task is in progress.',
        payload.working.map((w) => workItem(w, handlers)),
      ),
      section(
        'now-finished',
        'Just finished',
        payload.finished.length,
        'No list finished in the last day.',
        payload.finished.map((e) => eventItem(e, handlers)),
      ),
      section(
        'now-feed',
        'Activity',
        0,
        'Nothing has happened since the board started.',
        payload.feed.slice(0, 50).map((f) => feedItem(f, handlers)),
      ),
    ),
  );
}
