import fs from 'node:fs';
import { TasksError } from '../core/base/errors.js';
import { crashedRunsOf } from '../core/history/crashed-author.js';
import { movedOnBy } from '../core/history/last-change.js';
import { type PartHooks, undoAcrossLists } from '../core/history/undo-lists.js';
import { listIds } from '../core/lists/list-summary.js';
import { shortIdAmong } from '../core/lists/short-ids.js';
import { sessionsOfList } from '../core/sessions/list-sessions.js';
import type { SessionIndex } from '../core/sessions/session-index.js';
import { sessionMovesOf } from '../core/sessions/session-segments.js';
import { isMissing } from '../core/store/not-a-folder.js';
import { listDirOf } from '../core/store/paths.js';
import { renderChangedBy } from '../render/log-lines.js';
import { renderListRemoved, renderUndoAcross } from '../render/undo-report.js';
import type { StackPreview, UndoPreviewPayload } from './board-protocol.js';
import { stackEnds } from './board-state.js';

/**
 * Undo and redo on the board: `tasks undo` and `tasks redo` (core's undo stack, across
 * every list a command changed: a carry is taken back in the list carried into and in
 * those carried from, as one step), each made only while the change shown is still the
 * one it would take back or apply again, and said in their words: what a dry run would
 * do, what was done, and a refusal naming the task that moved on and who moved it (the
 * journal's record, else the agent whose transcript shows the change, else a change no
 * record shows).
 */

/** What each list's part needs: who changed a task since, as `tasks undo` names them; the action's one journal record. */
function partHooks(index: SessionIndex, record: UndoRecord | undefined): PartHooks {
  return (listId, dir) => ({
    // The journal's own changes are named by core; here an agent's, or a change no record shows.
    changedBy: (id, _field, since) => {
      const sessions = sessionsOfList(index, listId, { deep: true, goneTasks: true });
      const last = movedOnBy(dir, id, {
        listId,
        sessions,
        movesOf: sessionMovesOf(index, listId),
        since,
        crashedRuns: crashedRunsOf(index, sessions),
      });
      return renderChangedBy({ ...last, event: last.event?.source === 'transcript' ? last.event : undefined });
    },
    ...(record === undefined
      ? {}
      : {
          recording: (marks: { txn?: string; undoes?: string[]; redoes?: string[] }) => {
            record.txn = marks.txn;
            record.marks = { ...(marks.undoes ? { undoes: marks.undoes } : {}), ...(marks.redoes ? { redoes: marks.redoes } : {}) };
          },
          end: () => record.end?.(dir),
        }),
  });
}

/** The lists' short ids, as `tasks lists` shows them (`also`: lists a run names that may have no folder yet, as the commands count the list they chose). */
export function shortOf(configDir: string, ...also: string[]): (id: string) => string {
  let known: Set<string> | undefined;
  return (id) => {
    known ??= new Set([...listIds(configDir), ...also]);
    return known.has(id) ? shortIdAmong(id, known) : id;
  };
}

async function preview(index: SessionIndex, configDir: string, listId: string, action: 'undo' | 'redo'): Promise<StackPreview> {
  try {
    const result = await undoAcrossLists({
      configDir,
      list: { id: listId, dir: listDirOf(configDir, listId) },
      request: { action, dryRun: true },
      hooks: partHooks(index, undefined),
    });
    return { lines: renderUndoAcross(result, true, shortOf(configDir)).split('\n') };
  } catch (err) {
    if (isMissing(err)) return null;
    if (err instanceof TasksError) return { refused: err.message };
    throw err;
  }
}

/** What `tasks undo --dry-run` and `tasks redo --dry-run` would say now. */
export async function undoPreview(index: SessionIndex, configDir: string, listId: string): Promise<UndoPreviewPayload> {
  const dir = listDirOf(configDir, listId);
  if (!fs.existsSync(dir)) return { undoTxn: null, redoTxn: null, undo: null, redo: null };
  const ends = stackEnds(dir);
  return {
    undoTxn: ends.undo?.txn ?? null,
    redoTxn: ends.redo?.txn ?? null,
    undo: await preview(index, configDir, listId, 'undo'),
    redo: await preview(index, configDir, listId, 'redo'),
  };
}

/** What an undo tells the action's journal record: the txn to record under and what it takes back; its end. */
export interface UndoRecord {
  txn?: string | undefined;
  marks: { undoes?: string[]; redoes?: string[]; lists?: string[] };
  end?: (listDir: string) => void;
}

/**
 * Undo (or redo) the change shown by its txn: refused (409, nothing written) when it is no
 * longer the one the stack would take, or when a task it touches moved on since.
 */
export async function undoAction(
  index: SessionIndex,
  configDir: string,
  req: { action: 'undo' | 'redo'; list: string; txn: string },
  record: UndoRecord,
): Promise<{ message: string; lines: string[]; notes: string[] }> {
  const dir = listDirOf(configDir, req.list);
  // An undo or redo stopped half-way is finished first, as the next `tasks undo` does: the change shown was it.
  const top = stackEnds(dir).undo;
  const finishing = top?.finishing === true && top.txn === req.txn;
  const result = await undoAcrossLists({
    configDir,
    list: { id: req.list, dir },
    request: { action: req.action, expectTxn: finishing ? undefined : req.txn, dryRun: false },
    hooks: partHooks(index, record),
  });
  const [head = '', ...lines] = renderUndoAcross(result, false, shortOf(configDir)).split('\n');
  const notes = [
    ...[{ list: req.list, result: result.here }, ...result.others].flatMap((part) =>
      part.result.removedList ? [renderListRemoved(part.list, part.result.plan)] : [],
    ),
    ...result.passed.map((p) => `list "${p.list}" is left as it is: ${p.why}`),
  ];
  return { message: head.replace(/:$/, ''), lines, notes };
}
