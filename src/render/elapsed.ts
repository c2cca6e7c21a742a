/**
 * How long ago, and how long for, as a person reads it: in the terminal's tables and
 * notes and on the board's page alike (this file imports nothing, so the page, built
 * for the browser, uses it too).
 */

/**
 * "3 min ago": how long since something changed. A time a second or more ahead of `now`
 * (a file stamped by a clock ahead of this one: skew, a copy from another machine, a VM
 * resumed) is "3 h in the future": a zero or negative age would hide the skew. A time
 * of 1970 or before is its date ("1970-01-01").
 */
export function ago(ms: number, now: number): string {
  // The epoch or before: a file whose time was not kept (a tar or zip made without times).
  // Its age would be the clock's, not the file's: the date says what is known.
  if (ms <= 0) return new Date(ms).toISOString().slice(0, 10);
  const s = Math.round((now - ms) / 1000);
  if (s <= -1) return `${span(-s)} in the future`;
  return `${span(Math.max(0, s))} ago`;
}

/**
 * Whole seconds as "12s", "5 min", "3 h", "2 d", each to the nearest unit as a person
 * reads it (2 h 59 min is "3 h", not "2 h"); one rounded up to a whole next unit is said
 * in it ("1 h", never "60 min").
 */
function span(s: number): string {
  if (s < 60) return `${s}s`;
  const minutes = Math.round(s / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.round(s / 3600);
  if (hours < 24) return `${hours} h`;
  return `${Math.round(s / 86400)} d`;
}

/** Is `ms` ahead of `now` by as much as `ago` tells as the future? */
export function isAhead(ms: number, now: number): boolean {
  return Math.round((now - ms) / 1000) <= -1;
}

/**
 * "40s", "45m", "1h05m", "3h": how long a task in progress has gone without a change,
 * to the nearest minute, and past 2 h to the nearest hour (2 h 59 min is "3h").
 */
export function idleFor(ms: number): string {
  if (ms < 60_000) return `${Math.floor(ms / 1000)}s`;
  const minutes = Math.round(ms / 60_000);
  if (minutes >= 120) return `${Math.round(ms / 3_600_000)}h`;
  if (minutes >= 60) return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
  return `${minutes}m`;
}
