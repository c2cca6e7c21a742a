/** "4m 05s", "1h 02m", "12s": a remaining time for a person (rounded up: never less than is left). */
export function formatDuration(ms: number): string {
  return clock(Math.max(0, Math.ceil(ms / 1000)));
}

/** "4m 05s", "1h 02m", "12s", "4.8s": a time that has passed (rounded down: never more than has passed; tenths under a minute). */
export function formatElapsed(ms: number): string {
  if (ms < 60_000) return `${Math.max(0, Math.floor(ms / 100)) / 10}s`;
  return clock(Math.floor(ms / 1000));
}

function clock(s: number): string {
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m ${String(sec).padStart(2, '0')}s`;
  return `${sec}s`;
}

/**
 * "4s", "1.5s", "500ms", "1h 30m": a limit a person gave (--timeout, --fail-if-stalled,
 * --stalled, --min-age), exactly: a message that names it must name the one given, not a
 * rounding of it.
 */
export function formatLimit(ms: number): string {
  const whole = Math.max(0, Math.round(ms));
  if (whole < 1000) return `${whole}ms`;
  const h = Math.floor(whole / 3_600_000);
  const m = Math.floor((whole % 3_600_000) / 60_000);
  const s = (whole % 60_000) / 1000;
  return [h > 0 ? `${h}h` : '', m > 0 ? `${m}m` : '', s > 0 ? `${s}s` : ''].filter(Boolean).join(' ');
}
