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
 * 3. mark each source task `carriedTo: {list, id}` under its own lock, checked against
 *    the task as it was read: a task that changed meanwhile (an agent finished it,
 *    another carry took it) is not taken, and its copy in the target is taken back;
 * 4. with `move`, once every source is marked, delete the marked tasks.
 *
 * All or nothing: a run that cannot finish steps 2 and 3 (Ctrl-C, a lock that stays
 * busy, a disk error) takes back every copy and mark it wrote before it stops
 * (carry-takeback.ts; never a copy an agent on the target has touched since). A copy
 * that stays anyway (such a copy, or a run killed outright) names its source
 * (`carriedFrom`), and the next carry marks that source instead of copying it twice.
 *
 * A target folder the run made and left with no task (every copy taken back) is removed
 * again, journal and all (carry-takeback.ts).
 *
 * Every write goes through writes/, so the journal of each list records it under the
 * run's one txn, each line naming all the lists of the run: one undo takes it back in all.
 */
import { TasksError } from '../base/errors.js';
import { pushAll } from '../base/many-items.js';
import { sameValue } from '../base/same-value.js';
import { goneOwnersOfList } from '../history/list-owners.js';
import { somethingAt } from '../lists/list-folders.js';
import { sessionsOfList, unsureSessionsOf } from '../sessions/list-sessions.js';
import type { SessionIndex } from '../sessions/session-index.js';
import { signsOfLife } from '../sessions/signs-of-life.js';
import { applyImport } from '../snapshots/import-apply.js';
import { predictImport } from '../snapshots/import-materialize.js';
import { allocateIds } from '../store/ids.js';
import { fileIds, readHighWaterMark, readList } from '../store/list-read.js';
import { isMissing } from '../store/not-a-folder.js';
import { listDirOf } from '../store/paths.js';
import type { Task } from '../store/schema.js';
import { deleteTask, patchTask } from '../writes/task-writes.js';
import { type CarryMark, type CarryPlan, planCarry } from './carry-plan.js';
import { type CarrySource, earlierLists, namedSource, type TargetInfo } from './carry-sources.js';
import { type CopyWritten, markedFor, removeIfLeftEmpty, takeBack } from './carry-takeback.js';

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
  /**
   * A list named in errors and warnings, as the caller's other messages name it (`the list
   * of session 7c1e2f30`, `list "plan"`); by default `list` and its short id.
   */
  listWords?: ((id: string) => string) | undefined;
}

export interface CarriedFrom extends CarryPlan {
  source: CarrySource;
  /** Each carried task's id in the target (predicted in a dry run). */
  ids: Record<string, string>;
  /** A live agent works on the source: a real run needs --force (dry runs only; real runs refuse). */
  live?: string | undefined;
  /**
   * Tasks not taken after all: they changed while being carried. Their copies are taken
   * back, save one an agent on the target touched meanwhile (`kept`: it stays, as its work).
   */
  changed: Array<{ id: string; why: string; kept?: { copy: string; why: string } }>;
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
  const words = req.listWords ?? ((id: string) => `list ${short(id)}`);
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
  // A target folder this run makes is removed again if the run ends up taking nothing.
  const makesTarget = !req.dryRun && !somethingAt(target.dir);
  let targetTasks = makesTarget ? [] : somethingAt(target.dir) ? readList(target.dir).tasks : [];
  let nextId: bigint | undefined;
  const run: RunWrites = { written: [] };
  const marked: Array<{ sourceDir: string; done: CarriedFrom }> = [];
  if (!req.dryRun) req.onLists?.([target.id, ...sources.map((s) => s.list).filter((l) => l !== target.id)]);
  for (const source of sources) {
    if (source.list === target.id)
      throw new TasksError('usage', `--from: list "${source.list}" is the list in use; carry brings work from another list into it`);
    const sourceDir = listDirOf(index.configDir, source.list);
    // A live session the transcripts cannot place (two lists of one plan) may be on this one: its work too.
    const life = signsOfLife(index, source.list, [
      ...sessionsOfList(index, source.list, { deep: true }),
      ...unsureSessionsOf(index, source.list),
    ]);
    if (life !== undefined && !req.force && !req.dryRun) {
      throw new TasksError(
        'conflict',
        `${words(source.list)} is in use by a live agent (${life.why}): carrying would take its work; nothing carried (--force carries all the same)`,
        {
          hint: 'add --force to carry all the same',
          details: { list: source.list, live: life.why },
        },
      );
    }
    const gone = life === undefined ? goneOwnersOfList(index, sourceDir, source.list, req.person, { deep: true }) : undefined;
    const read = readList(sourceDir);
    // A file agents skip is no task to carry; said, so that nothing is left behind unseen.
    for (const p of read.problems) outcome.warnings.push(`${words(source.list)}: ${p.file} not carried: ${p.reason}`);
    const plan = planCarry({
      sourceList: source.list,
      source: read.tasks,
      targetList: target.id,
      target: targetTasks,
      ids: req.ids,
      isGone: (owner) => gone?.isGone(owner) ?? false,
    });
    const done: CarriedFrom = {
      ...plan,
      source,
      ids: {},
      changed: [],
      ...(life !== undefined && !req.force ? { live: life.why } : {}),
    };
    outcome.from.push(done);
    for (const c of plan.copied) done.ids[c.source.id] = c.copy;
    if (plan.plan.create.length === 0 && plan.copied.length === 0) continue;
    if (req.dryRun) {
      if (plan.plan.create.length === 0) continue;
      nextId ??= BigInt(
        somethingAt(target.dir) ? (allocateIds(target.id, fileIds(target.dir), readHighWaterMark(target.dir), 1)[0] as string) : '1',
      );
      const predicted = predictImport(plan.plan, String(nextId)).tasks;
      nextId += BigInt(predicted.length);
      plan.plan.create.forEach((p, i) => {
        done.ids[p.ref] = predicted[i]?.id as string;
      });
      pushAll(outcome.created, predicted);
      continue;
    }
    try {
      const kept = await copyAndMark(sourceDir, target, done, run, req);
      pushAll(outcome.created, kept.created);
      pushAll(outcome.warnings, kept.warnings);
    } catch (err) {
      const error = await stopped(err, target, run.written, words);
      if (makesTarget) await removeIfLeftEmpty(target.dir);
      throw error;
    }
    marked.push({ sourceDir, done });
    targetTasks = readList(target.dir).tasks;
  }
  if (req.move) for (const m of marked) pushAll(outcome.warnings, await deleteMarked(m.sourceDir, target, m.done, run, req.signal, words));
  if (makesTarget) await removeIfLeftEmpty(target.dir);
  return outcome;
}

/** What a real run has written so far, all sources together: taken back whole if it cannot finish. */
interface RunWrites {
  written: CopyWritten[];
}

/**
 * Copy a source's tasks into the target, then mark each in its source under its own
 * lock, only if it is still as it was read; one that changed meanwhile is not taken,
 * and its copy is taken back (carry-takeback.ts: only if no agent touched it). A task an
 * earlier run copied but did not mark is marked, not copied again. Any other failure
 * (Ctrl-C, a lock that stays busy, a disk error) is thrown, the writes recorded in
 * `run` for the caller to take back. Returns the copies that stand.
 */
async function copyAndMark(
  sourceDir: string,
  target: { id: string; dir: string },
  done: CarriedFrom,
  run: RunWrites,
  req: CarryRequest,
): Promise<{ created: Task[]; warnings: string[] }> {
  const planned = new Map(done.plan.create.map((p) => [p.ref, p]));
  // The target ids a copy's edges may name as written: the source's copies and the tasks carried there before.
  const edges = new Set<string>(
    done.plan.create.flatMap((p) => [...p.blockedBy, ...p.blocks]).flatMap((e) => (e.kind === 'existing' ? [e.id] : [])),
  );
  const ofSource: CopyWritten[] = [];
  const record = (w: CopyWritten) => {
    ofSource.push(w);
    run.written.push(w);
  };
  const base = { sourceDir, sourceList: done.source.list };
  const written =
    done.plan.create.length === 0
      ? { created: [] as Task[], warnings: [] as string[] }
      : await applyImport(target.dir, done.plan, {
          ...(req.now ? { now: req.now } : {}),
          signal: req.signal,
          onCreated: (ref, id) => {
            edges.add(id);
            done.ids[ref] = id;
            record({ ...base, sourceId: ref, copyId: id, planned: planned.get(ref), edges });
          },
        });
  for (const c of done.copied) record({ ...base, sourceId: c.source.id, copyId: c.copy });
  const warnings = [...written.warnings];
  const asRead = new Map([...done.carried, ...done.copied].map((c) => [c.source.id, c.source]));
  const standing = new Set(ofSource.map((w) => w.copyId));
  // Marked in the source's id order, whatever order the copies were made in.
  const rank = new Map([...done.carried, ...done.copied].map((c, i) => [c.source.id, i]));
  for (const w of [...ofSource].sort((a, b) => (rank.get(a.sourceId) ?? 0) - (rank.get(b.sourceId) ?? 0))) {
    if (req.signal?.aborted) throw new TasksError('interrupted', 'interrupted');
    const mark = { list: target.id, id: w.copyId };
    try {
      await patchTask(sourceDir, w.sourceId, { metadata: { carriedTo: mark } }, unchangedSince(asRead.get(w.sourceId) as Task));
      w.mark = mark;
      w.sourceWithoutMetadata = asRead.get(w.sourceId)?.metadata === undefined;
    } catch (err) {
      if (!(err instanceof TasksError) || (err.code !== 'conflict' && !isMissing(err))) throw err;
      run.written.splice(run.written.indexOf(w), 1);
      standing.delete(w.copyId);
      const back = await takeBack(target.dir, [w]);
      const why = err.code === 'not_found' ? 'deleted while it was carried' : err.message;
      const kept = back.kept[0];
      done.changed.push({ id: w.sourceId, why, ...(kept === undefined ? {} : { kept: { copy: kept.copy, why: kept.why } }) });
    }
  }
  const created = written.created.filter((t) => standing.has(t.id));
  return { created, warnings };
}

/**
 * With --move, the marked tasks are deleted once every source is marked (a delete cleans
 * its id out of the others' edges, which must not count as a change of a task still to
 * be marked). The carry stands by then: a task that cannot be deleted (its lock stays
 * busy, Ctrl-C) stays in its list, marked, and is said; one its agent changed since it
 * was marked keeps its place and its copy is taken back.
 */
async function deleteMarked(
  sourceDir: string,
  target: { id: string; dir: string },
  done: CarriedFrom,
  run: RunWrites,
  signal: AbortSignal | undefined,
  words: (id: string) => string,
): Promise<string[]> {
  const warnings: string[] = [];
  const left: string[] = [];
  for (const w of run.written.filter((x) => x.sourceDir === sourceDir && x.mark !== undefined)) {
    const mark = w.mark as CarryMark;
    if (signal?.aborted) {
      left.push(w.sourceId);
      continue;
    }
    try {
      await deleteTask(sourceDir, w.sourceId, markedFor(mark));
    } catch (err) {
      if (err instanceof TasksError && (err.code === 'conflict' || isMissing(err))) {
        const back = await takeBack(target.dir, [w]);
        const why = err.code === 'not_found' ? 'deleted while it was carried' : err.message;
        const kept = back.kept[0];
        done.changed.push({ id: w.sourceId, why, ...(kept === undefined ? {} : { kept: { copy: kept.copy, why: kept.why } }) });
      } else if (err instanceof TasksError) {
        left.push(w.sourceId);
      } else {
        throw err;
      }
    }
  }
  if (left.length > 0) {
    warnings.push(
      `${words(done.source.list)}: ${left.map((id) => `#${id}`).join(', ')} carried but not deleted (${signal?.aborted ? 'interrupted' : 'its lock stayed busy'}): marked there as carried (metadata.carriedTo)`,
    );
  }
  return warnings;
}

/**
 * A run that cannot finish takes back all it wrote (carry-takeback.ts), then says so in
 * the error it stops with: nothing carried, or which copies stay because an agent on the
 * target changed them (a carry run again marks their sources, and copies nothing twice).
 */
async function stopped(
  err: unknown,
  target: { id: string; dir: string },
  written: CopyWritten[],
  words: (id: string) => string,
): Promise<unknown> {
  const back = await takeBack(target.dir, written);
  if (!(err instanceof TasksError)) return err;
  const what = err.code === 'interrupted' ? 'carry interrupted' : `carry stopped: ${err.message}`;
  const took = back.removed === 0 ? '' : ` (the ${back.removed === 1 ? 'copy' : `${back.removed} copies`} made were taken back)`;
  if (back.kept.length === 0) {
    return new TasksError(err.code, `${what}; nothing carried${took}`, {
      ...(err.hint ? { hint: err.hint } : {}),
      details: { ...err.details, takenBack: back.removed },
    });
  }
  const kept = back.kept.map((k) => `#${k.copy}`).join(', ');
  return new TasksError(
    err.code,
    `${what}${took}; ${back.kept.length === 1 ? 'one copy stays' : `${back.kept.length} copies stay`} in ${words(target.id)} (${kept}): ${back.kept[0]?.why}`,
    {
      hint: 'tasks carry again marks their sources without copying anything twice; tasks undo takes the carry back',
      details: { ...err.details, takenBack: back.removed, kept: back.kept.map((k) => k.copy) },
    },
  );
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

/** Refuse (conflict) a source task that is no longer as it was read: its status, owner or edges changed, or it was carried. */
function unchangedSince(was: Task): (current: Task) => void {
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

function short(list: string): string {
  return /^[0-9a-f]{8}-/.test(list) ? list.slice(0, 8) : list;
}
