import { isTasksError } from '../core/base/errors.js';
import { type CostUsage, costOfLists } from '../core/cost/cost-report.js';
import { loadPrices } from '../core/cost/price-file.js';
import type { SessionIndex } from '../core/sessions/session-index.js';
import { listDirOf } from '../core/store/paths.js';
import { costLine, hasWork, tokenTotal } from '../render/cost-cells.js';
import { NO_USAGE } from '../render/cost-json.js';
import type { CostPayload, CostView } from './board-protocol.js';
import type { BoardContext } from './board-state.js';

/**
 * What a list's tasks cost, for the page's list head and task detail: `tasks cost` of the
 * list (core/cost), asked for when the page shows the list and again as it changes, never
 * on the board's live path. A price file that cannot be read is said, not thrown.
 */
export function costPayload(ctx: BoardContext, index: SessionIndex, listId: string): CostPayload {
  // Tabs of one browser ask at once: one answer serves them for a moment.
  const kept = recent.get(index)?.get(listId);
  if (kept !== undefined && ctx.now() - kept.at < SHARED_MS) return kept.payload;
  const payload = workOut(ctx, index, listId);
  let byList = recent.get(index);
  if (byList === undefined) recent.set(index, (byList = new Map()));
  byList.set(listId, { at: ctx.now(), payload });
  return payload;
}

const SHARED_MS = 2000;
const recent = new WeakMap<SessionIndex, Map<string, { at: number; payload: CostPayload }>>();

function workOut(ctx: BoardContext, index: SessionIndex, listId: string): CostPayload {
  const empty = view(NO_USAGE);
  let prices: ReturnType<typeof loadPrices>;
  try {
    prices = loadPrices(ctx.pricesFile);
  } catch (err) {
    if (!isTasksError(err)) throw err;
    return { list: listId, tasks: {}, total: empty, unattributed: empty, pricesDate: '', error: err.message };
  }
  let report: ReturnType<typeof costOfLists>;
  try {
    report = costOfLists(index, [{ id: listId, dir: listDirOf(ctx.configDir, listId) }], { prices, now: ctx.now() });
  } catch (err) {
    // A list whose folder is now a file or a FIFO: the page says why, as for the prices.
    if (!isTasksError(err)) throw err;
    return { list: listId, tasks: {}, total: empty, unattributed: empty, pricesDate: prices.date, error: err.message };
  }
  const tasks: Record<string, CostView> = {};
  for (const t of report.tasks) if (!t.deleted && hasWork(t)) tasks[t.id] = view(t);
  return {
    list: listId,
    tasks,
    total: view(report.total),
    unattributed: view(report.unattributed),
    pricesDate: report.prices.date,
    error: null,
  };
}

function view(u: Omit<CostUsage, 'activeMs' | 'unsureMs'> & { activeMs?: number; unsureMs?: number }): CostView {
  const full: CostUsage = { ...u, activeMs: u.activeMs ?? 0, unsureMs: u.unsureMs ?? 0 };
  return {
    tokens: tokenTotal(full),
    activeMs: full.activeMs,
    messages: full.messages,
    models: [...full.models],
    costUsd: full.costUsd,
    text: costLine(full),
  };
}
