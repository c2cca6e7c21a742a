import { hasKeptEvidence, listsTiedTo, sessionsOfList } from '../sessions/list-sessions.js';
import { isSessionId, type SessionIndex } from '../sessions/session-index.js';
import { sanitizeListId } from '../store/paths.js';
import type { Task } from '../store/schema.js';
import { type CostUsage, costReport } from './cost-report.js';
import { type ListTarget, planCost, planFiles } from './cost-sources.js';
import type { PriceTable } from './prices.js';
import { UsageStore } from './usage-store.js';

/** What a quick look may read of transcripts and journals not kept yet, at most. */
export const QUICK_READ_BYTES = 4 * 1024 * 1024;

/**
 * One task's cost for a quick look at it (`get`): the same figures as `tasks cost`, but
 * only when they are cheap to have: the list's sessions found without reading every
 * transcript (a session's own list: that session and the live ones on it, by their names;
 * a named list: by the evidence kept between runs, else no answer), and at most `maxUnreadBytes` of transcripts and journal not
 * kept from an earlier read (the first `tasks cost` of a list keeps them). Undefined: not
 * cheap now, or the task has no recorded work.
 */
export function costOfTaskIfCheap(
  index: SessionIndex,
  list: ListTarget,
  /** The task as read: its list is not read again (a quick look at one task of 10,000). */
  task: Task,
  opts: { prices: PriceTable; now: number; maxUnreadBytes?: number },
): CostUsage | undefined {
  const budget = opts.maxUnreadBytes ?? QUICK_READ_BYTES;
  // A session's own list: its session (and the live ones on it), found by name as `get` finds them
  // anyway. A named list: its sessions by the evidence kept, or no answer.
  const own = isSessionId(list.id);
  if (!own && !hasKeptEvidence(index, list.id)) return undefined;
  const sessionsOf = (id: string) => sessionsOfList(index, id, own ? {} : { deep: true, kept: true });
  const store = new UsageStore(index.configDir, index.store.cache, index.now, sanitizeListId(list.id));
  if (store.unreadBytes([], [list.dir]) > budget) return undefined;
  // A session tied to another list too (resumed under it): by the evidence kept, as `cost` and `log` find it; none kept, by its names.
  const kept = !own || hasKeptEvidence(index, list.id);
  const plan = planCost(index, [list], sessionsOf, store, (session, id) =>
    kept ? listsTiedTo(index, session, id, { kept: true }) : [...new Set([...index.listsOfSession(session), id])],
  );
  if (store.unreadBytes(planFiles(index, plan), []) > budget) return undefined;
  const report = costReport({
    index,
    lists: [list],
    tasksOf: () => [task],
    sessionsOf,
    store,
    prices: opts.prices,
    now: opts.now,
    plan,
    tasksOnly: true,
  });
  const row = report.tasks.find((t) => t.id === task.id);
  return row === undefined || (row.messages === 0 && row.activeMs === 0) ? undefined : row;
}
