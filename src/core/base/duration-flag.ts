import { TasksError } from './errors.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;

/**
 * `90s`, `5m`, `1h`, `1h30m`, `500ms`; a bare number is seconds. Returns milliseconds.
 * Pure; a bad value is a usage error naming the flag.
 */
export function parseDuration(raw: string, flag = '--timeout'): number {
  const value = raw.trim().toLowerCase();
  const bad = () => new TasksError('usage', `invalid ${flag} "${raw}": expected a duration like 90s, 5m, 1h or 1h30m`);
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  if (value === '') throw bad();
  let total = 0;
  let at = 0;
  PART.lastIndex = 0;
  for (let m = PART.exec(value); m; m = PART.exec(value)) {
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    at = PART.lastIndex;
  }
  if (at !== value.length) throw bad();
  if (!Number.isFinite(total) || total > 365 * UNIT_MS.d!) throw bad();
  return Math.round(total);
}
