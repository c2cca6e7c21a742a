import { TasksError } from '../../core/base/errors.js';
import { parseIsoTime } from '../../core/base/iso-time.js';

/**
 * The run's clock: what time it is for everything a run dates or measures against the
 * calendar (a journal entry's time, "3m ago", `--since 2h`, a claim's age, whether a
 * cached read has settled). The real time, unless `$TASKS_NOW` names another: an ISO
 * 8601 time or milliseconds since the epoch, the same for the whole run. It lets a
 * script show what a command says at a given time, and a test move time without
 * waiting. Waits and deadlines (a lock's retries, `watch --timeout`) keep real time.
 * The one place the variable is read.
 */
export function runClock(env: NodeJS.ProcessEnv): () => number {
  const raw = env.TASKS_NOW;
  if (raw === undefined || raw.trim() === '') return Date.now;
  const value = raw.trim();
  const at = /^\d+$/.test(value) ? Number(value) : parseIsoTime(value);
  if (at === undefined || !Number.isSafeInteger(Math.trunc(at)))
    throw new TasksError(
      'usage',
      `invalid TASKS_NOW "${raw}": expected an ISO 8601 time (2026-12-01T14:30:00Z) or milliseconds since the epoch`,
    );
  return () => at;
}
