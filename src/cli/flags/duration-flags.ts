import { TasksError } from '../../core/base/errors.js';

/**
 * Durations: one grammar for every duration flag (--timeout, --fail-if-stalled,
 * --stalled, --since, --stale-after). A number and a unit, or several in a row (`1h30m`):
 * ms, s, m or min, h, d; a bare number is seconds; decimals work (`1.5h`); any case;
 * at most 365 days. `off` or `never` only where a flag can be switched off.
 * The root help and the README say it once (DURATION_HELP); flags' help points there.
 */
export const DURATION_HELP = `Durations (--timeout, --fail-if-stalled, --stalled, --since, --stale-after):
  500ms, 90s, 15m (or 15min), 1h, 1h30m, 2d; a bare number is seconds, decimals work (1.5h).
  --stale-after also takes off (or never) to switch its check off.`;

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000 };
const PART = /(\d+(?:\.\d+)?)(ms|min|m|s|h|d)/gy;
const MAX_MS = 365 * UNIT_MS.d!;

function invalid(flag: string, raw: string, offToo: boolean): TasksError {
  return new TasksError('usage', `invalid ${flag} "${raw}": expected a duration like 90s, 15m, 1h30m or 2d${offToo ? ', or off' : ''}`);
}

function toMs(value: string): number | undefined {
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  if (value === '') return undefined;
  let total = 0;
  let at = 0;
  PART.lastIndex = 0;
  for (let m = PART.exec(value); m; m = PART.exec(value)) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    at = PART.lastIndex;
  }
  return at === value.length ? total : undefined;
}

/** A duration flag's value in milliseconds; a bad value is a usage error naming the flag. */
export function parseDuration(flag: string, raw: string): number {
  const ms = toMs(raw.trim().toLowerCase());
  if (ms === undefined || !Number.isFinite(ms) || ms > MAX_MS) throw invalid(flag, raw, false);
  return Math.round(ms);
}

/** For a flag that can be switched off: `off` / `never` -> undefined. */
export function parseDurationOrOff(flag: string, raw: string): number | undefined {
  const value = raw.trim().toLowerCase();
  if (value === 'off' || value === 'never') return undefined;
  const ms = toMs(value);
  if (ms === undefined || !Number.isFinite(ms) || ms > MAX_MS) throw invalid(flag, raw, true);
  return Math.round(ms);
}
