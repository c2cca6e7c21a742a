import { TasksError } from '../base/errors.js';
import type { SessionIndex } from '../sessions/session-index.js';
import type { Task } from '../store/schema.js';
import { type CostUsage, costOfLists, type TaskCost } from './cost-report.js';
import type { ListTarget } from './cost-sources.js';
import { loadPrices, priceFilePath } from './price-file.js';
import type { PriceTable } from './prices.js';
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

/** `get`'s Work line: the task's work, or why there is none to show beside the task. */
export interface QuickWork {
  /** Undefined: not cheap to know now, or no recorded work. */
  work?: CostUsage | undefined;
  /** The user's price file cannot be read (its message): a look at a task still shows it, without its cost. */
  priceFileProblem?: { message: string; file: string } | undefined;
}

/** One task's work for `get`'s Work line, when it is cheap to know (task-cost.ts). */
export function quickWorkOf(sessions: SessionIndex, list: ListTarget, task: Task, o: CostSetting): QuickWork {
  const file = priceFilePath(o.env, o.home);
  let prices: PriceTable;
  try {
    prices = loadPrices(file);
  } catch (err) {
    if (err instanceof TasksError && file !== undefined) return { priceFileProblem: { message: err.message, file } };
    throw err;
  }
  return { work: costOfTaskIfCheap(sessions, list, task, { prices, now: o.now }) };
}
