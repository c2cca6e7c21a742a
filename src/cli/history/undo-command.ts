/**
 * `tasks undo` and `tasks redo` as their commands run them: core's undo across every list
 * the commands changed (history/undo-lists.ts: a carry is taken back in the list carried
 * into and in those carried from, as one step), with what each list's part needs from the
 * run: the words for a change no journal line explains (an agent's, from its transcript),
 * and the run's one journal record (its txn, what it takes back or applies again, the
 * `end` line in each list). Then the outcome, as text or as one JSON document.
 */

import { crashedRunsOf } from '../../core/history/crashed-author.js';
import { movedOnBy } from '../../core/history/last-change.js';
import { undoAcrossLists } from '../../core/history/undo-lists.js';
import type { UndoRequest } from '../../core/history/undo-run.js';
import { sessionsOfList } from '../../core/sessions/list-sessions.js';
import { sessionMovesOf } from '../../core/sessions/session-segments.js';
import { undoJson } from '../../render/history-json.js';
import { renderJson } from '../../render/json.js';
import { renderChangedBy } from '../../render/log-lines.js';
import { renderListRemoved, renderUndoAcross } from '../../render/undo-report.js';
import type { Context } from '../runtime/context.js';

export async function runUndoCommand(
  ctx: Context,
  list: { id: string; dir: string },
  request: Omit<UndoRequest, 'changedBy' | 'recording' | 'end' | 'txns'>,
): Promise<void> {
  const result = await undoAcrossLists({
    configDir: ctx.configDir,
    list,
    request,
    hooks: (listId, dir) => ({
      // The journal's own changes are named by core; here an agent's, or a change no record shows.
      changedBy: (id, _field, since) => {
        const sessions = sessionsOfList(ctx.sessions, listId, { deep: true, goneTasks: true });
        const last = movedOnBy(dir, id, {
          listId,
          sessions,
          movesOf: sessionMovesOf(ctx.sessions, listId),
          since,
          crashedRuns: crashedRunsOf(ctx.sessions, sessions),
        });
        return renderChangedBy({ ...last, event: last.event?.source === 'transcript' ? last.event : undefined });
      },
      recording: (marks) => {
        ctx.journal.txn = marks.txn;
        ctx.journal.marks = { ...(marks.undoes ? { undoes: marks.undoes } : {}), ...(marks.redoes ? { redoes: marks.redoes } : {}) };
      },
      end: () => ctx.journal.end(dir),
    }),
  });
  const dryRun = request.dryRun;
  const ownTxn = dryRun ? result.here.txn : ctx.journal.txnInUse?.();
  for (const part of [{ list: list.id, result: result.here }, ...result.others]) {
    if (part.result.removedList) {
      ctx.io.note(renderListRemoved(part.list, part.result.plan), 'list_removed', { list: part.list });
    }
  }
  for (const p of result.passed) {
    ctx.io.note(`list "${p.list}" is left as it is: ${p.why}`, 'undo_list_passed', { list: p.list, reason: p.why });
  }
  if (ctx.io.json) {
    const others = result.others.map((o) => ({ list: o.list, plan: o.result.plan, times: o.result.times }));
    ctx.io.out(renderJson(undoJson(result.here.plan, { dryRun, txn: ownTxn, times: result.here.times, others })));
  } else {
    ctx.io.out(renderUndoAcross(result, dryRun, (id) => ctx.shortId(id)));
  }
}
