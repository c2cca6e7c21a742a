import { TasksError } from '../../core/base/errors.js';
import { parseIsoTime } from '../../core/base/iso-time.js';
import { parseDuration } from './duration-flags.js';

/**
 * Points in time (`log --since/--until`, `undo --since`): an ISO 8601 timestamp
 * (`2026-12-01`, `2026-12-01T14:30`, `2026-12-01T14:30:00Z`; without a zone it is local
 * time), or a duration in the one grammar of duration-flags.ts, meaning that long ago.
 */
export const TIME_HELP = 'an ISO 8601 time (2026-12-01T14:30, local unless it ends in Z or an offset) or a duration ago (90s, 2h, 1d)';

/** The time a flag names, in ms since the epoch; a bad value is a usage error naming the flag. */
export function parseTimeFlag(flag: string, raw: string, now: number): number {
  const value = raw.trim();
  const at = parseIsoTime(value);
  if (at !== undefined) return at;
  try {
    return now - parseDuration(flag, value);
  } catch {
    throw new TasksError('usage', `invalid ${flag} "${raw}": expected ${TIME_HELP}`);
  }
}
