import { ago, idleFor } from '../../render/elapsed.js';
import type { AgentGoneView, BoardTask, HostStateView, ListPayload, TaskFacts } from '../board-protocol.js';
import { agoSpan } from './page-ago.js';
import { clockOf, hostOf, onPageClock, serverNow } from './page-clock.js';
import { h } from './page-dom.js';

/**
 * Stalled work that time alone brings. The server marks a task in progress stalled once
 * its file has gone unchanged for the stall rule's threshold (`stalledAfterMs`, sent with
 * the list) while no session of the list is at work; between two reads of the list
 * nothing on disk changes, so the page counts the same rule on from each task's last
 * change, on the page's one timer (page-ago.ts), on the server's clock: a task becomes
 * stalled on the page when it does on the server, and its "stalled 35m" goes on counting.
 * A session at work (`atWork`) holds every stall back until the list is read again, as
 * the server does; a change to the task comes as a new read, and the mark goes with it.
 */

/**
 * A time of the list as the page's clock reads it: "14:05:10" today, with its day on an
 * earlier or later one ("12/4/2026, 14:05:10"), which a time of day alone would pass off as
 * today's (a stall two days old, a file dated 1970).
 */
function clock(list: ListPayload, at: number): string {
  const when = new Date(onPageClock(at, list.id));
  return when.toDateString() === new Date().toDateString() ? when.toLocaleTimeString() : when.toLocaleString();
}

/**
 * Since when a task in progress has gone unchanged (server ms), when the list says. A file
 * dated 1970 or before had its time not kept (a tar or zip made without times): since when
 * is not known, and the server never calls it stalled (core/progress/stalled-work.ts).
 */
function unchangedSince(list: ListPayload, t: BoardTask): number | undefined {
  if (t.status !== 'in_progress') return undefined;
  const facts = list.facts[t.id];
  if (facts?.changedAt !== undefined) return facts.changedAt <= 0 ? undefined : facts.changedAt;
  return facts?.stalledMs === undefined ? undefined : list.at - facts.stalledMs;
}

/**
 * The tasks that stalled since the list was read, marked as the server would mark them
 * now (`stalledMs`); true when any did, and so the page must be drawn again. A stall
 * never ends by time: only a read of the list (a change, a session at work) ends it.
 */
export function stallsByTime(list: ListPayload, now: number): boolean {
  if (list.atWork) return false;
  let changed = false;
  for (const t of list.tasks) {
    const facts = list.facts[t.id];
    // Waiting for a person is never stalled, however long (the server says which wait).
    if (facts === undefined || facts.stalledMs !== undefined || facts.waitingFor !== undefined) continue;
    const since = unchangedSince(list, t);
    if (since === undefined || now - since < list.stalledAfterMs) continue;
    facts.stalledMs = now - since;
    changed = true;
  }
  return changed;
}

/** How long, counted on by the timer (tickStalls): a span holding the moment it counts from. */
function idleSpan(since: number, now: number): HTMLElement {
  return h('span', { class: 'idle', 'data-idle-from': since }, idleFor(now - since));
}

/**
 * A file dated ahead of its machine's clock, as `tasks list` says it: "its file is dated
 * 3 h in the future (...)"; the board counts it from when it first saw that time, as
 * `tasks watch` does (stalled-work.ts timesAsSeen), not from a time yet to come.
 */
export function aheadWords(aheadMs: number, what = 'its file'): string {
  return `${what} is dated ${ago(aheadMs, 0)} (ahead of its machine's clock: clock skew, a file copied from another machine, a VM resumed); counted from when the board first saw it`;
}

/** When the board serving the page started (the overview's `startedAt`; none on a board of hosts). */
let boardStartedAt: number | undefined;
/** On a board of hosts: when each host's board started (`h0`), on its clock, as its lists' first sights are. */
const hostStarts = new Map<string, number>();

/** The overview's starts: the board's own, or, on a board of hosts, each host's (in their order: `h0`, `h1`...). */
export function noteBoardStart(at: number | undefined, hosts?: readonly HostStateView[]): void {
  boardStartedAt = at;
  hostStarts.clear();
  for (const [i, x] of (hosts ?? []).entries()) if (x.startedAt !== undefined) hostStarts.set(`h${i}`, x.startedAt);
}

/**
 * How long the board's first look at every list may take after it starts: a file dated
 * ahead that it first saw by then was there before it, and its age is the board's.
 */
export const FIRST_LOOK_MS = 15_000;

/**
 * What follows "seen 2 min ago" of a file dated ahead that the board first saw as it
 * started (a board started again counts from its own start): " (since the board
 * started)", for the age is not the file's; else nothing. A list of a host (`listId`
 * `h0-web`) is judged by its host's board's start, which saw it, as a local board's by its own.
 */
export function seenNote(seenAt: number, listId?: string): string {
  const host = hostOf(listId);
  const startedAt = host === undefined ? boardStartedAt : hostStarts.get(host);
  return startedAt !== undefined && seenAt - startedAt <= FIRST_LOOK_MS ? ' (since the board started)' : '';
}

/** A card's "3 min ago" (its file's last change); for a file dated ahead, "seen 2 min ago", saying why. */
export function changedSpan(facts: TaskFacts | undefined, now: number, listId: string): HTMLElement {
  if (facts?.changedAt === undefined) return h('span', { class: 'when' });
  if (facts.aheadMs === undefined) return agoSpan('when', facts.changedAt, now);
  return h(
    'span',
    { class: 'when ahead', title: aheadWords(facts.aheadMs) },
    'seen ',
    agoSpan('when-ago', facts.changedAt, now),
    seenNote(facts.changedAt, listId),
  );
}

/**
 * When an agent gone was last at work: "15 min ago"; its session's last activity dated
 * ahead of its machine's clock (`aheadMs`), when the board first saw it, as a card says a
 * file dated ahead ("seen 2 min ago", why on hover), never "3 h in the future".
 */
export function goneSinceSpan(gone: AgentGoneView & { since: number }, cls: string, now: number, listId: string): HTMLElement {
  if (gone.aheadMs === undefined) return agoSpan(cls, gone.since, now);
  return h(
    'span',
    { class: `${cls} ahead`, title: aheadWords(gone.aheadMs, "its session's last activity") },
    'seen ',
    agoSpan(`${cls}-ago`, gone.since, now),
    seenNote(gone.since, listId),
  );
}

/** The detail's "Changed" line, saying so for a file dated ahead. */
export function changedFact(facts: TaskFacts | undefined, now: number, listId: string): HTMLElement[] {
  if (facts?.changedAt === undefined) return [];
  if (facts.aheadMs === undefined) return [h('dt', {}, 'Changed'), h('dd', {}, agoSpan('when', facts.changedAt, now))];
  return [
    h('dt', {}, 'Changed'),
    h('dd', { class: 'ahead' }, `${aheadWords(facts.aheadMs)}, `, agoSpan('when', facts.changedAt, now), seenNote(facts.changedAt, listId)),
  ];
}

/** What a stalled task's mark and detail say of when it stalled and what ends it. */
function stallTitle(list: ListPayload, t: BoardTask, since: number): string {
  const ahead = list.facts[t.id]?.aheadMs;
  return `in progress, ${ahead === undefined ? '' : `${aheadWords(ahead)}: seen `}unchanged since ${clock(list, since)}, and no session at work: stalled since ${clock(list, since + list.stalledAfterMs)} (after ${idleFor(list.stalledAfterMs)} without a change); a change to the task, or a session at work, ends it`;
}

/** A card's mark, "stalled 35m", for a task the list (or the timer since) found stalled. */
export function stallMark(list: ListPayload, t: BoardTask, now: number): HTMLElement | null {
  const since = unchangedSince(list, t);
  if (list.facts[t.id]?.stalledMs === undefined || since === undefined) return null;
  return h('span', { class: 'mark stalled', title: stallTitle(list, t, since) }, 'stalled ', idleSpan(since, now));
}

/**
 * The detail's line on stalling, for a task in progress: since when it is stalled and
 * what ends it; else when it will stall if nothing changes, or that a session at work
 * holds it back. Nothing for any other task.
 */
export function stallFact(list: ListPayload, t: BoardTask, now: number): HTMLElement[] {
  const since = unchangedSince(list, t);
  // A task waiting for a person: the detail's Waiting line says it all.
  if (since === undefined || list.facts[t.id]?.waitingFor !== undefined) return [];
  if (list.facts[t.id]?.stalledMs !== undefined)
    return [
      h('dt', {}, 'Stalled'),
      h(
        'dd',
        { class: 'stalled', title: stallTitle(list, t, since) },
        idleSpan(since, now),
        ` without a change, and no session at work: stalled since ${clock(list, since + list.stalledAfterMs)}`,
      ),
    ];
  const text = list.atWork
    ? 'not while a session of the list is at work'
    : `at ${clock(list, since + list.stalledAfterMs)} if nothing changes and no session is at work`;
  return [h('dt', {}, 'Stalls'), h('dd', { class: 'stalls' }, text)];
}

/** Every "35m" of a stall under `root` counted on from the moment it holds. */
export function tickStalls(root: ParentNode): void {
  for (const el of root.querySelectorAll<HTMLElement>('[data-idle-from]')) {
    const text = idleFor(serverNow(clockOf(el)) - Number(el.dataset.idleFrom));
    if (el.textContent !== text) el.textContent = text;
  }
}
