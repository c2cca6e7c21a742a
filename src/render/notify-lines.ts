import type { DesktopVia } from '../core/notify/deliver.js';
import type { Delivery } from '../core/notify/notifier.js';
import { renderJsonLine } from './json.js';
import type { Style } from './style.js';
import { oneLine } from './text.js';

/** How `tasks notify` reports: a line per notification sent (stdout), or one JSON object per line with --json. */

const clock = (iso: string) => iso.slice(11, 19);

/**
 * `07:12:03  list-completed  a1b2c3d4  -> desktop (notify-send)  Done: list a1b2c3d4 (~/app)`.
 * The text (a target as given, a list id, a title made of what agents wrote) is filtered
 * before it is coloured: filtered after, the colours' own ESC went too.
 */
export function renderDelivery(d: Delivery, style: Style): string {
  const m = d.message;
  const to = d.via === d.target || d.target.startsWith(`${d.via}:`) ? d.target : `${d.target} (${d.via})`;
  const outcome = d.ok ? style.green('sent') : style.red('failed');
  const text = oneLine(`${m.event}  ${m.shortId}  -> ${to}  ${m.title}`);
  return `${style.dim(oneLine(clock(m.at)))}  ${outcome}  ${text}`;
}

/** --json: `{"at","outcome":"sent"|"failed","target","via","attempts","error"?,"notification":{...}}`. */
export function deliveryJson(d: Delivery, at: number): string {
  return renderJsonLine({
    at: new Date(at).toISOString(),
    outcome: d.ok ? 'sent' : 'failed',
    target: d.target,
    via: d.via,
    attempts: d.attempts,
    ...(d.error === undefined ? {} : { error: d.error }),
    ...(d.againInMs === undefined ? {} : { againInMs: d.againInMs }),
    notification: d.message,
  });
}

export function renderRetry(r: {
  target: string;
  event: string;
  list: string;
  error: string;
  attempt: number;
  tries: number;
  inMs: number;
}): string {
  return `${r.target}: ${r.event} of list ${r.list} not sent (${r.error}); trying again in ${Math.round(r.inMs / 100) / 10}s (try ${r.attempt + 1} of ${r.tries})`;
}

export function renderFailed(d: Delivery): string {
  const tries = d.attempts === 1 ? '1 try' : `${d.attempts} tries`;
  const again = d.againInMs === undefined ? '' : `; trying again in ${waitText(d.againInMs)} if it still holds`;
  return `${d.target}: ${d.message.event} of list ${d.message.shortId} could not be sent after ${tries}: ${d.error ?? 'unknown error'}${again}`;
}

/** "1.5s", "40s", "2 min", "15 min". */
function waitText(ms: number): string {
  return ms < 60_000 ? `${Math.round(ms / 100) / 10}s` : `${Math.round(ms / 60_000)} min`;
}

const DESKTOP_WORDS: Record<DesktopVia, string> = {
  'notify-send': 'desktop notifications through notify-send (D-Bus)',
  osascript: 'desktop notifications through osascript (Notification Center)',
  terminal:
    'no desktop notifier found (notify-send with a D-Bus session, osascript): desktop notifications ring the terminal (bell and OSC 9)',
};

export function renderStarted(s: {
  lists: readonly string[];
  shown: (id: string) => string;
  events: readonly string[];
  targets: readonly string[];
  desktop: DesktopVia | undefined;
  once: boolean;
  /** Lists named that do not exist (yet): followed as soon as their folder appears. */
  missing?: readonly string[] | undefined;
}): string {
  const missing = s.missing ?? [];
  const lists =
    s.lists.length === 1 && missing.includes(s.lists[0] as string)
      ? `list ${s.shown(s.lists[0] as string)} (it does not exist yet: waiting for its folder to appear)`
      : s.lists.length === 0
        ? s.once
          ? 'no lists (none to look at)'
          : 'no lists yet (new ones are followed as they appear)'
        : s.lists.length <= 5
          ? `${s.lists.length === 1 ? 'list' : 'lists'} ${s.lists.map(s.shown).join(', ')}`
          : `${s.lists.length} lists`;
  const verb = s.once ? 'looking once at' : 'following';
  const desktop = s.desktop === undefined ? '' : `; ${DESKTOP_WORDS[s.desktop]}`;
  // Targets are as given (an exec: command may hold anything), list ids are folder names: no control characters.
  return oneLine(`notify: ${verb} ${lists}; telling ${s.events.join(', ')} to ${s.targets.join(', ')}${desktop}`);
}

/** The desktop fallback: a bell, and OSC 9 (iTerm2, WezTerm, kitty, Windows Terminal show it as a notification). */
export function terminalBell(title: string, text: string): string {
  const clean = `${title}: ${text}`.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').slice(0, 200);
  return `\u0007\u001b]9;${clean}\u0007`;
}
