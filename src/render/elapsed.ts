/**
 * How long ago, and how long for, as a person reads it: in the terminal's tables and
 * notes and on the board's page alike (this file imports nothing, so the page, built
 * for the browser, uses it too).
 */

/** "3 min ago": how long since something changed. */
export function ago(ms: number, now: number): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/** "40s", "45m", "1h05m", "3h": how long a task in progress has gone without a change. */
export function idleFor(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (ms < 60_000) return `${Math.floor(ms / 1000)}s`;
  if (minutes >= 120) return `${Math.floor(minutes / 60)}h`;
  if (minutes >= 60) return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
  return `${minutes}m`;
}
