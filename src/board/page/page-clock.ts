/**
 * The server's clock on the page. Every time the page shows is one the server read (a
 * task file's time, a transcript's last entry), so ages count on the server's clock: a
 * browser on a machine whose clock differs from the one serving the files would
 * otherwise call a change made a minute ago "2 h in the future" or "3 h ago". Each
 * payload that carries the server's time (`at`: the overview, a list, the Now view)
 * updates the offset; until the first, the page's own clock stands in.
 */

/** The server's clock less the page's, as of the last payload. */
let skew = 0;

export function noteServerTime(at: number): void {
  skew = at - Date.now();
}

/** Now on the server's clock. */
export const serverNow = (): number => Date.now() + skew;

/** A server time on the page's clock (to show as a time of day here). */
export const onPageClock = (at: number): number => at - skew;
