import fs from 'node:fs';
import path from 'node:path';
import { TasksError } from '../base/errors.js';
import { sameValue } from '../base/same-value.js';
import { JOURNAL_FILE, PREVIOUS_JOURNAL_FILE } from '../history/journal.js';
import { withListLock } from '../locks/locks.js';
import { materializeTask } from '../snapshots/import-materialize.js';
import type { PlannedTask } from '../snapshots/import-plan.js';
import { isMissing } from '../store/not-a-folder.js';
import { HIGH_WATER_MARK, LIST_LOCK_TARGET } from '../store/paths.js';
import type { Task } from '../store/schema.js';
import { deleteTask, type Guard, rewriteTask } from '../writes/task-writes.js';
import type { CarryMark } from './carry-plan.js';

/**
 * Taking back what a carry wrote, when it cannot finish (Ctrl-C, a lock that stays busy,
 * a disk error) or when a source task changed while it was carried. A carry is all or
 * nothing: copies without marks would be copied again by the next run, and marks without
 * copies would hide work.
 *
 * A copy is deleted only if it is still exactly as the run wrote it, checked under its
 * lock: once an agent on the target list has touched it (started it, claimed it, edited
 * it, linked it to other work), it is that agent's work and stays, and its source keeps
 * its mark (or, unmarked, is marked by the next carry, which finds the copy by its
 * `carriedFrom`). A source's mark is removed only once its copy is gone, and only if it is
 * still this run's.
 */
export interface CopyWritten {
  sourceDir: string;
  sourceList: string;
  sourceId: string;
  copyId: string;
  /** The copy as this run planned it; undefined for a copy an earlier run made (only the mark is this run's). */
  planned?: PlannedTask | undefined;
  /** The target ids the copy's edges may name as this run wrote them. */
  edges?: ReadonlySet<string> | undefined;
  /** Set once this run has marked the source task. */
  mark?: CarryMark | undefined;
  /** The source task had no metadata before its mark: taking the mark back leaves none. */
  sourceWithoutMetadata?: boolean | undefined;
}

export interface TakeBackResult {
  /** Copies left in the target: an agent changed them, or their lock stayed busy. */
  kept: Array<{ copy: string; sourceList: string; sourceId: string; why: string }>;
  /** Copies deleted. */
  removed: number;
}

/** Take back each copy (and then its mark), newest first; what cannot be taken back is said, never forced. */
export async function takeBack(targetDir: string, written: readonly CopyWritten[]): Promise<TakeBackResult> {
  const result: TakeBackResult = { kept: [], removed: 0 };
  for (const w of [...written].reverse()) {
    let gone = w.planned === undefined;
    if (w.planned !== undefined) {
      try {
        await deleteTask(targetDir, w.copyId, asWritten(w.planned, w.copyId, w.edges ?? new Set()));
        result.removed++;
        gone = true;
      } catch (err) {
        if (isMissing(err)) gone = true;
        else result.kept.push({ copy: w.copyId, sourceList: w.sourceList, sourceId: w.sourceId, why: reason(err) });
      }
    }
    if (!gone || w.mark === undefined) continue;
    try {
      await rewriteTask(w.sourceDir, w.sourceId, (t) => withoutMark(t, w.sourceWithoutMetadata === true), markedFor(w.mark));
    } catch {
      // Changed or deleted by its agent meanwhile: the mark is its now.
    }
  }
  return result;
}

/**
 * Refuse (conflict) a copy that is no longer as this run wrote it: any field but its
 * edges differs, or an edge names a task the run did not link it to.
 */
export function asWritten(planned: PlannedTask, id: string, edges: ReadonlySet<string>): Guard {
  const expected = materializeTask(planned, id, () => undefined);
  const withoutEdges = (t: Task) => ({ ...t, blocks: [], blockedBy: [] });
  return (current) => {
    const same =
      sameValue(withoutEdges(current), withoutEdges(expected)) && [...current.blocks, ...current.blockedBy].every((x) => edges.has(x));
    if (!same) {
      const owner = current.owner ? `, owner ${current.owner}` : '';
      throw new TasksError('conflict', `changed in its new list since it was copied (now ${current.status}${owner})`, {
        details: { id: current.id },
      });
    }
  };
}

/** Refuse (conflict) a source task that no longer carries this run's mark. */
export function markedFor(mark: CarryMark): Guard {
  return (current) => {
    if (!sameValue(current.metadata?.carriedTo, mark)) {
      throw new TasksError('conflict', 'changed while it was carried', { details: { id: current.id } });
    }
  };
}

/** The task as it was before its mark: the mark's key gone, and the metadata too if the mark brought it. */
function withoutMark(t: Task, noMetadataBefore: boolean): Task {
  const { carriedTo: _mark, ...metadata } = t.metadata ?? {};
  const { metadata: _all, ...rest } = t;
  return noMetadataBefore && Object.keys(metadata).length === 0 ? (rest as Task) : { ...rest, metadata };
}

function reason(err: unknown): string {
  if (err instanceof TasksError && err.code === 'busy') return 'its lock stayed busy';
  return err instanceof Error ? err.message : String(err);
}

/** What a list folder made by a run holds besides tasks: its lock, its mark, its journal. */
const BOOKKEEPING = new Set([LIST_LOCK_TARGET, `${LIST_LOCK_TARGET}.lock`, HIGH_WATER_MARK, JOURNAL_FILE, PREVIOUS_JOURNAL_FILE]);

/**
 * A target folder this run made, left with no task in it (every copy taken back): removed,
 * journal and all, so that no empty list stays behind and `tasks undo` meets no entry
 * that changed nothing. Under the list lock, and only while it holds nothing but the
 * run's bookkeeping (a task anyone wrote meanwhile keeps it). The folder is renamed
 * away first, so that no agent ever sees it half removed; one that writes to the list
 * later makes it anew. Returns whether it was removed.
 */
export async function removeIfLeftEmpty(listDir: string): Promise<boolean> {
  try {
    return await withListLock(listDir, (stillHeld) => {
      if (!stillHeld() || !fs.readdirSync(listDir).every((name) => BOOKKEEPING.has(name))) return false;
      const away = path.join(path.dirname(listDir), `.${path.basename(listDir)}.removed-${process.pid}-${Date.now()}`);
      fs.renameSync(listDir, away);
      fs.rmSync(away, { recursive: true, force: true });
      return true;
    });
  } catch {
    // Busy, gone already, unreadable: an empty list stays, which does no harm.
    return false;
  }
}
