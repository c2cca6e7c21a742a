import { TasksError } from '../../core/base/errors.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * `90s`, `15m`, `1h`, `2d`, `500ms` (a bare number is seconds) -> milliseconds;
 * `off` / `never` -> undefined (the check is switched off).
 */
export function parseDuration(flag: string, raw: string): number | undefined {
  const value = raw.trim().toLowerCase();
  if (value === 'off' || value === 'never') return undefined;
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|min|h|d)?$/.exec(value);
  if (!m) throw new TasksError('usage', `invalid ${flag} "${raw}": expected a duration like 90s, 15m, 1h, 2d, or off`);
  return Math.round(Number(m[1]) * (UNIT_MS[m[2] ?? 's'] as number));
}
