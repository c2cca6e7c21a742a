import fs from 'node:fs';
import path from 'node:path';
import { pushAll } from '../base/many-items.js';
import { allocateIds, assignIds, isTaskId } from '../store/ids.js';
import { fileIds, readHighWaterMark, readList } from '../store/list-read.js';
import type { Task } from '../store/schema.js';
import { taskFileTimes } from '../store/task-times.js';
import { applyImport } from './import-apply.js';
import { type ExistingChange, predictImport, predictWithIds } from './import-materialize.js';
import { planImport, type SkippedItem } from './import-plan.js';
import type { Snapshot } from './import-snapshot.js';

export interface ImportRunOptions {
  chain?: boolean;
  /** Plan and predict ids; write nothing (not even the list folder). */
  dryRun?: boolean;
  /** A clock in ms, to size the batches by how long a hold of the list lock takes. */
  now?: () => number;
  /** Aborted (Ctrl-C): stop between batches, keeping what is written (import-apply.ts). */
  signal?: AbortSignal | undefined;
  /** Give every task a new id, even where the snapshot's own id is free (refs that are ids are kept otherwise). */
  renumber?: boolean | undefined;
  /**
   * The snapshot holds tasks this list had (a restore): each keeps its id wherever no file
   * has it, even at or below the high-water mark.
   */
  sameTasks?: boolean | undefined;
  /** The highest id a record shows the list used (a restore): the mark is raised to it, new ids go above it. */
  markAtLeast?: string | undefined;
  /** When each item (by ref) last changed in the record it comes from: its file keeps that time (a restore). */
  changedAt?: ReadonlyMap<string, number> | undefined;
}

export interface ImportOutcome {
  /** New tasks as their files stand (with dryRun: as they would be written, predicted ids). */
  created: Task[];
  skipped: SkippedItem[];
  /** Existing tasks that gain an edge to a new one. */
  updated: ExistingChange[];
  /**
   * When the snapshot's refs are task ids: each item's old id -> its id in the list (a
   * created task's, or the existing task it was matched with). Undefined for todos.
   */
  ids?: Record<string, string> | undefined;
  /** The snapshot's, the plan's and the write's warnings, in that order. */
  warnings: string[];
}

/**
 * Import a parsed snapshot into a list: read the list (no lock, as agents read), plan
 * (pure), then write in batches under the list lock (import-apply.ts), or, for a dry run,
 * predict the ids the batches would get. Refusals (a cycle) come before any write.
 */
export async function importSnapshot(listDir: string, snapshot: Snapshot, opts: ImportRunOptions = {}): Promise<ImportOutcome> {
  const exists = fs.existsSync(listDir);
  const current = exists ? readList(listDir) : { tasks: [], problems: [] };
  const warnings = [
    ...snapshot.warnings,
    ...current.problems.map((p) => `${p.file} is unreadable (${p.reason}); its subject cannot be matched`),
  ];
  const plan = planImport(current.tasks, snapshot, { chain: Boolean(opts.chain), matchIds: snapshot.refsAreIds === true });
  pushAll(warnings, plan.warnings);
  const keepIds = snapshot.refsAreIds === true && !opts.renumber ? (opts.sameTasks ? 'restore' : 'free') : undefined;
  if (opts.dryRun) {
    // The ids a real run would get, or its refusal past the limit agents count to.
    const name = path.basename(listDir);
    const used = exists ? fileIds(listDir) : [];
    const mark = exists ? readHighWaterMark(listDir) : 0n;
    const { tasks, existing } = keepIds
      ? predictWithIds(
          plan,
          assignIds(
            name,
            used,
            mark,
            plan.create.map((p) => (isTaskId(p.ref) ? p.ref : undefined)),
            { sameTasks: keepIds === 'restore', reservedAbove: opts.markAtLeast === undefined ? undefined : BigInt(opts.markAtLeast) },
          ),
        )
      : predictImport(plan, exists ? (allocateIds(name, used, mark, plan.create.length)[0] ?? '1') : '1');
    return { created: tasks, skipped: plan.skip, updated: existing, ids: idMap(snapshot, plan.skip, plan.create, tasks), warnings };
  }
  const result = await applyImport(listDir, plan, {
    ...(opts.now ? { now: opts.now } : {}),
    signal: opts.signal,
    keepIds,
    markAtLeast: opts.markAtLeast,
    changedAt: opts.changedAt,
  });
  return {
    created: result.created,
    skipped: plan.skip,
    updated: result.existing,
    ids: idMap(snapshot, plan.skip, plan.create, result.created),
    warnings: [...warnings, ...result.warnings],
  };
}

/** Old id -> id in the list, for snapshots whose refs are ids; `created[i]` is the task `planned[i]` became. */
function idMap(
  snapshot: Snapshot,
  skipped: readonly SkippedItem[],
  planned: ReadonlyArray<{ ref: string }>,
  created: readonly Task[],
): Record<string, string> | undefined {
  if (snapshot.refsAreIds !== true) return undefined;
  // fromEntries: a ref such as "__proto__" stays an own key.
  return Object.fromEntries([
    ...planned.flatMap((p, i) => (created[i] === undefined ? [] : [[p.ref, created[i].id] as const])),
    ...skipped.map((s) => [s.ref, s.existingId] as const),
  ]);
}

/** When each task an import created last changed (`updatedAt` in JSON): read back from the files it wrote. */
export function createdTimes(listDir: string, created: readonly Pick<Task, 'id'>[]): Map<string, number> {
  return taskFileTimes(
    listDir,
    created.map((t) => t.id),
  );
}
