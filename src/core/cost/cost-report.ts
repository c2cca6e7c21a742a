import { listsTiedTo, sessionsOfList } from '../sessions/list-sessions.js';
import type { SessionIndex, SessionInfo } from '../sessions/session-index.js';
import { readList } from '../store/list-read.js';
import { isMissing } from '../store/not-a-folder.js';
import { sanitizeListId } from '../store/paths.js';
import type { Task, Status as TaskStatus } from '../store/schema.js';
import { type Grouping, tallyBy, WHOLE } from './cost-groups.js';
import { attribute, type Window } from './cost-rule.js';
import { type CostPlan, type ListTarget, planCost, readCostSources, taskKey } from './cost-sources.js';
import { costOf, type PriceTable } from './prices.js';
import { UsageStore } from './usage-store.js';
import { Tally } from './usage-tally.js';

/**
 * `tasks cost`'s use case: the cost rule (cost-rule.ts) applied to one list or several,
 * summed by task, owner, list and session, with the unattributed work and the whole, and
 * priced (prices.ts). Tasks are those on disk, and those that are gone (deleted, or the
 * list reset) whose cost is known: reported by id, marked deleted, with the subject the
 * records last gave them. A task with no recorded work is reported with zeros.
 */
export interface CostUsage {
  tokens: { input: number; output: number; cacheRead: number; cacheCreation: number };
  activeMs: number;
  /** Of activeMs, the time in which a session may have had no process: one crashed, and no record says where it ended. */
  unsureMs: number;
  messages: number;
  /** Most tokens first. */
  models: string[];
  /** null: some model of it has no known price. */
  costUsd: number | null;
}

export interface TaskCost extends CostUsage {
  list: string;
  id: string;
  subject: string | null;
  owner: string | null;
  /** null: the task is gone. */
  status: TaskStatus | null;
  deleted: boolean;
}

export interface SessionCost extends CostUsage {
  session: string;
  lists: string[];
  /** Of its messages, those with no task in progress. */
  unattributed: CostUsage;
}

export interface CostReport {
  tasks: TaskCost[];
  owners: Array<CostUsage & { owner: string | null }>;
  lists: Array<CostUsage & { list: string }>;
  sessions: SessionCost[];
  unattributed: CostUsage & { sessions: number };
  total: CostUsage;
  window: Window;
  prices: { date: string; source: string; file: string | null };
  /** Models used that the price table does not know (their costs are null). */
  unpriced: string[];
  /** The same, each with what of it has no price ("claude-sonnet-4-5 (over 200,000 prompt tokens)"), for a person. */
  unpricedParts: string[];
}

export interface CostQuery {
  index: SessionIndex;
  lists: readonly ListTarget[];
  /** Each list's tasks on disk now. */
  tasksOf: (list: ListTarget) => readonly Task[];
  /** Each list's sessions (sessions/list-sessions.ts). */
  sessionsOf: (listId: string) => readonly SessionInfo[];
  /** Every list a session of this list is tied to (sessions/list-sessions.ts listsTiedTo). */
  tiedTo?: ((sessionId: string, listId: string) => readonly string[]) | undefined;
  store: UsageStore;
  prices: PriceTable;
  now: number;
  window?: Window;
  /** The sessions and journals to read, when already worked out (cost-sources.ts planCost). */
  plan?: CostPlan | undefined;
  /** Only the tasks (and the total): no sums by owner, list or session (a quick look at one task). */
  tasksOnly?: boolean;
}

function usageOf(tally: Tally | undefined, prices: PriceTable, unpriced: { models: Set<string>; parts: Set<string> }): CostUsage {
  const t = tally ?? new Tally();
  const tokens = t.tokens();
  const cost = costOf(prices, t.buckets);
  for (const m of cost.unpriced) unpriced.models.add(m);
  for (const p of cost.unpricedParts) unpriced.parts.add(p);
  return {
    tokens: { input: tokens.input, output: tokens.output, cacheRead: tokens.cacheRead, cacheCreation: tokens.cacheCreation },
    activeMs: Math.round(t.activeMs),
    unsureMs: Math.min(Math.round(t.unsureMs), Math.round(t.activeMs)),
    messages: t.messages,
    models: t.models(),
    costUsd: cost.usd,
  };
}

const byListAndId = (a: { list: string; id: string }, b: { list: string; id: string }) =>
  a.list !== b.list ? (a.list < b.list ? -1 : 1) : a.id.length - b.id.length || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function costReport(q: CostQuery): CostReport {
  const plan = q.plan ?? planCost(q.index, q.lists, q.sessionsOf, q.store, q.tiedTo);
  const sources = readCostSources(q.index, plan, q.store, q.now);
  q.store.retainRead();
  const window = q.window ?? {};
  const { messages, spells } = attribute(sources.works, sources.marks, window);
  const onDisk = new Map<string, Task>();
  for (const list of q.lists) for (const t of q.tasksOf(list)) onDisk.set(taskKey(list.id, t.id), t);
  const homeList = (session: string) => sources.sessionLists.get(session)?.[0];
  const ownerOf = (key: string): string | null => {
    const t = onDisk.get(key);
    if (t !== undefined) return t.owner === undefined || t.owner === '' ? null : t.owner;
    return sources.deleted.get(key)?.[1] ?? null;
  };
  const by = (g: Grouping) => tallyBy(messages, spells, g);
  const none = new Map<string, Tally>();
  const tasks = by({ share: taskKey, unattributed: () => undefined });
  const owners = q.tasksOnly ? none : by({ share: (l, t) => `o${ownerOf(taskKey(l, t)) ?? ''}`, unattributed: () => undefined });
  const lists = q.tasksOnly ? none : by({ share: (l) => l, unattributed: (s, list) => list ?? homeList(s) });
  const sessions = q.tasksOnly ? none : by({ share: (_l, _t, s) => s, unattributed: (s) => s });
  const unattributedBySession = q.tasksOnly ? none : by({ share: () => undefined, unattributed: (s) => s });
  const whole = q.tasksOnly ? undefined : by(WHOLE).get('');
  const unpriced = { models: new Set<string>(), parts: new Set<string>() };
  const priced = (t: Tally | undefined) => usageOf(t, q.prices, unpriced);

  const taskRows: TaskCost[] = [];
  const keys = new Set([...onDisk.keys(), ...tasks.keys()]);
  for (const key of keys) {
    const cut = key.indexOf('\u0000');
    const list = key.slice(0, cut);
    const id = key.slice(cut + 1);
    const file = onDisk.get(key);
    const gone = sources.deleted.get(key);
    taskRows.push({
      list,
      id,
      subject: file?.subject ?? gone?.[0] ?? sources.subjects.get(key) ?? null,
      owner: ownerOf(key),
      status: file?.status ?? null,
      deleted: file === undefined,
      ...priced(tasks.get(key)),
    });
  }
  taskRows.sort(byListAndId);
  const ownerRows = [...owners]
    .map(([group, t]) => ({ owner: group.slice(1) === '' ? null : group.slice(1), ...priced(t) }))
    .sort((a, b) => (a.owner ?? '\uffff').localeCompare(b.owner ?? '\uffff'));
  const listRows = q.lists.map((l) => ({ list: l.id, ...priced(lists.get(l.id)) }));
  const sessionRows: SessionCost[] = [...sources.sessions.keys()].map((id) => ({
    session: id,
    lists: sources.sessionLists.get(id) ?? [],
    ...priced(sessions.get(id)),
    unattributed: priced(unattributedBySession.get(id)),
  }));
  const unattributed = new Tally();
  let withUnattributed = 0;
  for (const t of unattributedBySession.values()) {
    unattributed.merge(t);
    if (t.messages > 0) withUnattributed++;
  }
  return {
    tasks: taskRows,
    owners: ownerRows,
    lists: listRows,
    sessions: sessionRows,
    unattributed: { ...priced(unattributed), sessions: withUnattributed },
    total: priced(whole),
    window,
    prices: { date: q.prices.date, source: q.prices.source, file: q.prices.file ?? null },
    unpriced: [...unpriced.models].sort(),
    unpricedParts: [...unpriced.parts].sort(),
  };
}

/**
 * The cost of these lists as `tasks cost` reports it: their sessions found by what their
 * transcripts show (from the evidence kept between runs where there is one:
 * sessions/list-sessions.ts), their tasks as on disk, what was read kept in the list's
 * own shard of the persistent cache (`all`: one for every list).
 */
export function costOfLists(
  index: SessionIndex,
  lists: readonly ListTarget[],
  opts: { prices: PriceTable; now: number; window?: Window; all?: boolean },
): CostReport {
  const store = new UsageStore(index.configDir, index.store.cache, index.now, opts.all ? undefined : shardNameOf(lists));
  return costReport({
    index,
    lists,
    tasksOf: (l) => tasksOnDisk(l.dir),
    // Every list: the evidence of every session, worked out once (and kept); one list: from what is kept.
    sessionsOf: (id) => sessionsOfList(index, id, opts.all ? { deep: true } : { deep: true, kept: true }),
    tiedTo: (session, id) => listsTiedTo(index, session, id, opts.all ? {} : { kept: true }),
    store,
    prices: opts.prices,
    now: opts.now,
    window: opts.window,
  });
}

const shardNameOf = (lists: readonly ListTarget[]) => (lists.length === 1 ? sanitizeListId((lists[0] as ListTarget).id) : undefined);

/** A list's tasks now; none when its folder is gone (a reset or deleted list's cost is still known). */
export function tasksOnDisk(dir: string): Task[] {
  try {
    return readList(dir).tasks;
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
}
