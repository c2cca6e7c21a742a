/**
 * Carry: the unfinished work of an earlier list brought into the list in use, when the
 * session changes (docs/task-store.md sections 14 and 15: `/clear`, a new session, a fork,
 * plan mode's "clear context" all start an empty list and leave the old one on disk,
 * out of the agent's sight). Where from (carry-sources.ts), what moves and how its
 * dependencies and owners follow (carry-plan.ts, pure), and the writes (this file):
 *
 * 1. refuse a source a live agent still works on (sessions/signs-of-life.ts), unless
 *    forced: carrying would take its work;
 * 2. create the tasks in the target through the import's batches (snapshots/), each
 *    hold of the target's list lock for milliseconds, new ids from the target's own
 *    allocation;
 * 3. mark each source task `carriedTo: {list, id}` (and delete it, `move`) under its own
 *    lock, checked against the task as it was read: a task that changed meanwhile (an
 *    agent finished it, another carry took it) is not taken, and its copy in the target
 *    is removed again.
 *
 * Every write goes through writes/, so the journal of each list records it under the
 * run's one txn, each line naming all the lists of the run: one undo takes it back in all.
 */
import { TasksError } from '../base/errors.js';
import { sameValue } from '../base/same-value.js';
import { goneOwnersOfList } from '../history/list-owners.js';
import { somethingAt } from '../lists/list-folders.js';
import { sessionsOfList } from '../sessions/list-sessions.js';
import type { SessionIndex } from '../sessions/session-index.js';
import { signsOfLife } from '../sessions/signs-of-life.js';
import { applyImport } from '../snapshots/import-apply.js';
import { predictImport } from '../snapshots/import-materialize.js';
import { allocateIds } from '../store/ids.js';
import { fileIds, readHighWaterMark, readList } from '../store/list-read.js';
import { listDirOf } from '../store/paths.js';
import type { Task } from '../store/schema.js';
import { deleteTask, patchTask } from '../writes/task-writes.js';
import { type CarriedTask, type CarryPlan, planCarry } from './carry-plan.js';
import { type CarrySource, earlierLists, namedSource, type TargetInfo } from './carry-sources.js';

export interface CarryRequest {
  target: TargetInfo & { dir: string };
  /** `--from`: lists or sessions; none: the most recent earlier list of the project with unfinished work. */
  from?: readonly string[] | undefined;
  /** Only these task ids (with one source). */
  ids?: readonly string[] | undefined;
  move?: boolean | undefined;
  /** Carry from a list a live agent works on. */
  force?: boolean | undefined;
  dryRun?: boolean | undefined;
  /** Who runs tasks: never a gone owner. */
  person?: string | undefined;
  cwd: string | undefined;
  home: string;
  now?: (() => number) | undefined;
  signal?: AbortSignal | undefined;
  /**
   * Before the first write: every list the run may change, the target first. Their
   * journals record it with them (JournalEntry.lists), so that one undo, in any of them,
   * takes the carry back in all (history/undo-lists.ts).
   */
  onLists?: ((lists: string[]) => void) | undefined;
}

export interface CarriedFrom extends CarryPlan {
  source: CarrySource;
  /** Each carried task's id in the target (predicted in a dry run). */
  ids: Record<string, string>;
  /** A live agent works on the source: a real run needs --force (dry runs only; real runs refuse). */
  live?: string | undefined;
  /** Tasks not taken after all: they changed while being carried. */
  changed: Array<{ id: string; why: string }>;
}

export interface CarryOutcome {
  target: string;
  dryRun: boolean;
  move: boolean;
  from: CarriedFrom[];
  /** The new tasks as written (or as they would be). */
  created: Task[];
  /** Other earlier lists of the project that have unfinished work too (default source only). */
  others: Array<{ list: string; unfinished: number }>;
  warnings: string[];
}

export async function carryWork(index: SessionIndex, req: CarryRequest): Promise<CarryOutcome> {
  const target = req.target;
  const outcome: CarryOutcome = {
    target: target.id,
    dryRun: Boolean(req.dryRun),
    move: Boolean(req.move),
    from: [],
    created: [],
    others: [],
    warnings: [],
  };
  const sources = pickSources(index, req, outcome);
  if (req.ids !== undefined && sources.length > 1) throw new TasksError('usage', 'task ids go with one --from list');
  let targetTasks = somethingAt(target.dir) ? readList(target.dir).tasks : [];
  let nextId: bigint | undefined;
  if (!req.dryRun) req.onLists?.([target.id, ...sources.map((s) => s.list).filter((l) => l !== target.id)]);
  for (const source of sources) {
    if (source.list === target.id)
      throw new TasksError('usage', `--from: list "${source.list}" is the list in use; carry brings work from another list into it`);
    const sourceDir = listDirOf(index.configDir, source.list);
    const life = signsOfLife(index, source.list, sessionsOfList(index, source.list, { deep: true }));
    if (life !== undefined && !req.force && !req.dryRun) {
      throw new TasksError(
        'conflict',
        `list ${short(source.list)} is in use by a live agent (${life.why}): carrying would take its work; nothing carried`,
        {
          hint: 'add --force to carry all the same',
          details: { list: source.list, live: life.why },
        },
      );
    }
    const gone = life === undefined ? goneOwnersOfList(index, sourceDir, source.list, req.person, { deep: true }) : undefined;
    const read = readList(sourceDir);
    // A file agents skip is no task to carry; said, so that nothing is left behind unseen.
    for (const p of read.problems) outcome.warnings.push(`list ${short(source.list)}: ${p.file} not carried: ${p.reason}`);
    const plan = planCarry({
      sourceList: source.list,
      source: read.tasks,
      targetList: target.id,
      target: targetTasks,
      ids: req.ids,
      isGone: (owner) => gone?.isGone(owner) ?? false,
    });
    const done: CarriedFrom = { ...plan, source, ids: {}, changed: [], ...(life !== undefined && !req.force ? { live: life.why } : {}) };
    outcome.from.push(done);
    if (plan.plan.create.length === 0) continue;
    if (req.dryRun) {
      nextId ??= BigInt(
        somethingAt(target.dir) ? (allocateIds(target.id, fileIds(target.dir), readHighWaterMark(target.dir), 1)[0] as string) : '1',
      );
      const predicted = predictImport(plan.plan, String(nextId)).tasks;
      nextId += BigInt(predicted.length);
      plan.plan.create.forEach((p, i) => {
        done.ids[p.ref] = predicted[i]?.id as string;
      });
      outcome.created.push(...predicted);
      continue;
    }
    const written = await applyImport(target.dir, plan.plan, { ...(req.now ? { now: req.now } : {}), signal: req.signal });
    outcome.warnings.push(...written.warnings);
    plan.plan.create.forEach((p, i) => {
      done.ids[p.ref] = written.created[i]?.id as string;
    });
    const kept = await settleSource(sourceDir, target, done, Boolean(req.move));
    outcome.created.push(...written.created.filter((t) => kept.has(t.id)));
    targetTasks = readList(target.dir).tasks;
  }
  return outcome;
}

/** The named sources, or the most recent earlier list with unfinished work (the others are noted). */
function pickSources(index: SessionIndex, req: CarryRequest, outcome: CarryOutcome): CarrySource[] {
  if (req.from !== undefined && req.from.length > 0) return req.from.map((raw) => namedSource(index, raw));
  const earlier = earlierLists(index, req.target, req.cwd, req.home);
  if (earlier.length === 0) {
    throw new TasksError('not_found', `no earlier list of this project to carry work from (list in use: ${short(req.target.id)})`, {
      hint: 'name one: tasks carry --from <list or session> (tasks lists --here shows them)',
    });
  }
  const withWork = earlier
    .map((source) => ({ source, unfinished: carryable(listDirOf(index.configDir, source.list)) }))
    .filter((x) => x.unfinished > 0);
  const [first, ...rest] = withWork;
  outcome.others = rest.map((x) => ({ list: x.source.list, unfinished: x.unfinished }));
  return [first?.source ?? (earlier[0] as CarrySource)];
}

function carryable(dir: string): number {
  try {
    return planCarry({ sourceList: '', source: readList(dir).tasks, targetList: '', target: [], isGone: () => false }).carried.length;
  } catch {
    return 0;
  }
}

/**
 * Mark each carried task in its source, under its own lock, only if it is still as it
 * was read; one that changed meanwhile is not taken, and its copy in the target is
 * deleted again. With `move`, the marked tasks are deleted after all are marked (a
 * delete cleans its id out of the others' edges, which must not count as a change of a
 * task still to be marked). Returns the target ids that stand.
 */
async function settleSource(
  sourceDir: string,
  target: { id: string; dir: string },
  done: CarriedFrom,
  move: boolean,
): Promise<Set<string>> {
  const kept = new Set(Object.values(done.ids));
  const notTaken = async (id: string, newId: string, err: unknown) => {
    if (!(err instanceof TasksError) || (err.code !== 'conflict' && err.code !== 'not_found')) throw err;
    done.changed.push({ id, why: err.code === 'not_found' ? 'deleted while it was carried' : err.message });
    kept.delete(newId);
    await deleteTask(target.dir, newId).catch(() => undefined);
  };
  const marked: Array<{ id: string; newId: string; mark: { list: string; id: string } }> = [];
  for (const c of done.carried) {
    const newId = done.ids[c.source.id];
    if (newId === undefined) continue;
    const mark = { list: target.id, id: newId };
    try {
      await patchTask(sourceDir, c.source.id, { metadata: { carriedTo: mark } }, unchangedSince(c));
      marked.push({ id: c.source.id, newId, mark });
    } catch (err) {
      await notTaken(c.source.id, newId, err);
    }
  }
  if (!move) return kept;
  // Marked first, then deleted: the journal of the source names where each task went.
  for (const { id, newId, mark } of marked) {
    try {
      await deleteTask(sourceDir, id, markedFor(mark));
    } catch (err) {
      await patchTask(sourceDir, id, { metadata: { carriedTo: null } }, markedFor(mark)).catch(() => undefined);
      await notTaken(id, newId, err);
    }
  }
  return kept;
}

/** Refuse (conflict) a source task that is no longer as it was read: its status, owner or edges changed, or it was carried. */
function unchangedSince(c: CarriedTask): (current: Task) => void {
  const was = c.source;
  return (current) => {
    const mark = current.metadata?.carriedTo;
    const same =
      mark === undefined &&
      current.status === was.status &&
      (current.owner ?? '') === (was.owner ?? '') &&
      sameValue(current.blockedBy, was.blockedBy) &&
      sameValue(current.subject, was.subject);
    if (!same) {
      throw new TasksError(
        'conflict',
        mark !== undefined ? 'carried meanwhile by another run' : `changed while it was carried (now ${current.status})`,
        { details: { id: was.id } },
      );
    }
  };
}

/** Refuse (conflict) deleting a source task that is no longer the one this run marked. */
function markedFor(mark: { list: string; id: string }): (current: Task) => void {
  return (current) => {
    if (!sameValue(current.metadata?.carriedTo, mark)) {
      throw new TasksError('conflict', 'changed while it was carried', { details: { id: current.id } });
    }
  };
}

function short(list: string): string {
  return /^[0-9a-f]{8}-/.test(list) ? list.slice(0, 8) : list;
}
