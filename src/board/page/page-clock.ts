/**
 * The server's clock on the page. Every time the page shows is one the server read (a
 * task file's time, a transcript's last entry), so ages count on the server's clock: a
 * browser on a machine whose clock differs from the one serving the files would
 * otherwise call a change made a minute ago "2 h in the future" or "3 h ago". Each
 * payload that carries the server's time (`at`: the overview, a list, the Now view)
 * updates the offset; until the first, the page's own clock stands in.
 *
 * On a board of hosts (`tasks board -H`), each host's times are its own clock's: the
 * board sends each host's clock as it gets it (`host-clock`), and a time of a host's list
 * (a page id `h0-web`) counts on that host's clock, not on the machine serving the page.
 * An element counts on the clock its closest `data-clock` names (a list's page id).
 */

/** The server's clock less the page's, as of the last payload. */
let skew = 0;
/** On a board of hosts: each host's clock (`h0`) less the page's. */
const hostSkews = new Map<string, number>();

export function noteServerTime(at: number): void {
  skew = at - Date.now();
}

/** A host's clock, as the board of hosts sends it: `h0`, and its time. */
export function noteHostTime(host: string, at: number): void {
  hostSkews.set(host, at - Date.now());
}

/** The host of a list on a board of hosts (its page id `h0-web`: `h0`); none on a board of this machine. */
export const hostOf = (listId: string | undefined): string | undefined =>
  listId === undefined ? undefined : /^(h\d{1,3})-/.exec(listId)?.[1];

/** The offset of the clock that the list `listId` (a page id) is counted on. */
function skewOf(listId: string | undefined): number {
  const host = hostOf(listId);
  return (host === undefined ? undefined : hostSkews.get(host)) ?? skew;
}

/** Now on the server's clock; on a board of hosts, on the clock of the host of `listId`. */
export const serverNow = (listId?: string): number => Date.now() + skewOf(listId);

/** A server time on the page's clock (to show as a time of day here). */
export const onPageClock = (at: number, listId?: string): number => at - skewOf(listId);

/** The times under `el` count on the clock of the list `listId` (none: the server's). */
export function setClock(el: HTMLElement, listId: string | undefined): void {
  if (listId === undefined) delete el.dataset.clock;
  else el.dataset.clock = listId;
}

/** The list whose clock an element's times count on: its closest `data-clock`. */
export const clockOf = (el: Element): string | undefined => el.closest<HTMLElement>('[data-clock]')?.dataset.clock;
