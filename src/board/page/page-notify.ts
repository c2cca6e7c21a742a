import { earlierClaim } from '../../core/notify/earlier-claim.js';
import type { NowEventView, NowPayload } from '../board-protocol.js';
import { serverNow } from './page-clock.js';

/**
 * Browser notifications of the Now view's events (the events of `tasks notify`), opt-in:
 * permission is asked only when the person clicks "Notify me". Each event is shown once:
 * the keys shown are kept in the page's storage (so a reload, or a second tab, does not
 * show them again), and a key is forgotten when its condition clears, so an event that
 * comes back is shown again, as `tasks notify` sends it again.
 */
export type NotifyChoice = 'unsupported' | 'denied' | 'off' | 'on';

const WANTED = 'tasks-board-notify';
const SHOWN = 'tasks-board-notified';

function storage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

export function notifyChoice(): NotifyChoice {
  if (typeof Notification !== 'function') return 'unsupported';
  if (Notification.permission === 'denied') return 'denied';
  return Notification.permission === 'granted' && storage()?.getItem(WANTED) === 'on' ? 'on' : 'off';
}

/** The click on "Notify me" (or on "Notifications on", which turns them off). */
export async function toggleNotify(current: NowPayload | undefined): Promise<NotifyChoice> {
  if (typeof Notification !== 'function') return 'unsupported';
  if (notifyChoice() === 'on') {
    storage()?.setItem(WANTED, 'off');
    return 'off';
  }
  const permission = Notification.permission === 'granted' ? 'granted' : await Notification.requestPermission();
  if (permission !== 'granted') return notifyChoice();
  storage()?.setItem(WANTED, 'on');
  // What is on the page already is not news: from now on, what begins.
  if (current?.ready) remember(new Set(eventsOf(current).map((e) => e.key)));
  return 'on';
}

function eventsOf(p: NowPayload): NowEventView[] {
  return [...p.died, ...p.waiting, ...p.stalled, ...p.problems, ...p.finished];
}

function remembered(): Set<string> {
  try {
    const v = JSON.parse(storage()?.getItem(SHOWN) ?? '[]') as unknown;
    return new Set(Array.isArray(v) ? v.filter((k): k is string => typeof k === 'string') : []);
  } catch {
    return new Set();
  }
}

function remember(keys: Set<string>): void {
  storage()?.setItem(SHOWN, JSON.stringify([...keys]));
}

/**
 * Was `key` shown under the key an earlier version gave it? The keys kept were the events
 * current at the last payload, shown by then: claimed now, as notify's rule reads a claim.
 * A host's keys on a board of hosts (`h0:`) are matched among that host's. "Now" is on the
 * clock the event's times are (its list's: the board's, or its host's), not the browser's,
 * which may be behind it: a death that ended a minute ago there would pass for a later one.
 */
function shownBefore(e: NowEventView, shown: ReadonlySet<string>): boolean {
  const key = e.key;
  const prefix = /^h\d{1,3}:/.exec(key)?.[0] ?? '';
  const now = serverNow(e.list);
  const sent: Record<string, number> = {};
  for (const k of shown) if (k.startsWith(prefix) && (prefix !== '' || !/^h\d{1,3}:/.test(k))) sent[k.slice(prefix.length)] = now;
  return earlierClaim(key.slice(prefix.length), sent) !== undefined;
}

/** Show what began since the last payload (any tab's), then keep exactly the keys active now. */
export function notifyNew(p: NowPayload, open: (list: string, task?: string) => void): void {
  if (!p.ready || notifyChoice() !== 'on') return;
  const shown = remembered();
  const active = eventsOf(p);
  for (const e of active) {
    if (shown.has(e.key) || shownBefore(e, shown)) continue;
    const n = new Notification(e.title, { body: `${e.text}\n${e.action}`, tag: e.key });
    n.onclick = () => {
      window.focus();
      open(e.list, e.tasks[0]?.id);
    };
  }
  remember(new Set(active.map((e) => e.key)));
}
