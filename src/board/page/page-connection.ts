import { byId } from './page-dom.js';

/**
 * The link to the board: a small badge while it is live, and a banner that no one can
 * miss once the board has not answered for a moment (stopped, or its machine asleep).
 * The page keeps trying on its own; when the board is back it is drawn afresh, and the
 * banner goes.
 */

/** A blip (a restart of the stream) is not worth a banner. */
const BANNER_AFTER_MS = 1500;

let since: number | undefined;
let timer: number | undefined;

export function showConnection(state: 'live' | 'reconnecting'): void {
  const conn = byId('conn');
  conn.textContent = state === 'live' ? 'live' : 'reconnecting…';
  conn.className = `conn ${state}`;
  const banner = byId('down');
  if (state === 'live') {
    since = undefined;
    if (timer !== undefined) window.clearTimeout(timer);
    timer = undefined;
    banner.hidden = true;
    document.body.classList.remove('board-down');
    return;
  }
  since ??= Date.now();
  timer ??= window.setTimeout(() => {
    timer = undefined;
    if (since === undefined) return;
    banner.hidden = false;
    document.body.classList.add('board-down');
    const at = new Date(since).toLocaleTimeString();
    byId('down-text').textContent =
      `The board is not answering since ${at}: it was stopped, or its machine is asleep. What this page shows may be out of date. ` +
      'It reconnects by itself when the board is back (run tasks board again: the same URL for the same user and config folder).';
  }, BANNER_AFTER_MS);
}
