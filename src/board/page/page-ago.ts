import { ago } from '../../render/elapsed.js';
import { clockOf, serverNow } from './page-clock.js';
import { h } from './page-dom.js';

/**
 * "3 min ago" that stays true: each relative time on the page holds the moment it counts
 * from (`data-ago`), and one timer for the whole page rewrites them all from it, so a
 * card, a Now entry or a line of history moves on without a change and without a redraw,
 * on the server's clock (page-clock.ts), a host's on that host's.
 */

/** How often every relative time is written again: "s ago" is never more than this behind. */
export const AGO_TICK_MS = 5000;

export function agoSpan(cls: string, at: number, now: number, title?: string): HTMLElement {
  return h('span', { class: cls, 'data-ago': at, title }, ago(at, now));
}

/** Every relative time under `root` written again from the time it holds. */
export function tickAgo(root: ParentNode): void {
  for (const el of root.querySelectorAll<HTMLElement>('[data-ago]')) {
    // On a board of hosts, on the clock of the host whose list it is (page-clock.ts).
    const text = ago(Number(el.dataset.ago), serverNow(clockOf(el)));
    if (el.textContent !== text) el.textContent = text;
  }
}
