import type { SessionIndex } from '../sessions/session-index.js';
import type { Task } from '../store/schema.js';
import { type CostUsage, costOfLists, type TaskCost } from './cost-report.js';
import type { ListTarget } from './cost-sources.js';
import { loadPrices, priceFilePath } from './price-file.js';
import { costOfTaskIfCheap } from './task-cost.js';

/** Where a run finds the user's own prices (price-file.ts), and its clock. */
export interface CostSetting {
  env: { XDG_CONFIG_HOME?: string | undefined };
  home: string | undefined;
  now: number;
}

/** What each task of a list cost, beside the list's whole work: `list --cost` and `export --cost`. */
export interface ListTaskCosts {
  /** By task id: the tasks with recorded work, and those deleted since that had some. */
  byTask: ReadonlyMap<string, TaskCost>;
  total: CostUsage;
  /** Work of the list's sessions with no task in progress. */
  unattributed: CostUsage;
}

/** A list's costs as `tasks cost -l <list>` works them out (its sessions' transcripts, kept between runs). */
export function taskCostsOf(sessions: SessionIndex, list: ListTarget, o: CostSetting): ListTaskCosts {
  const report = costOfLists(sessions, [list], { prices: loadPrices(priceFilePath(o.env, o.home)), now: o.now });
  return { byTask: new Map(report.tasks.map((t) => [t.id, t])), total: report.total, unattributed: report.unattributed };
}

/** One task's work for `get`'s Work line, when it is cheap to know (task-cost.ts). Undefined: not cheap now, or no recorded work. */
export function quickWorkOf(sessions: SessionIndex, list: ListTarget, task: Task, o: CostSetting): CostUsage | undefined {
  return costOfTaskIfCheap(sessions, list, task, { prices: loadPrices(priceFilePath(o.env, o.home)), now: o.now });
}
