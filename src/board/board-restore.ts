import { TasksError } from '../core/base/errors.js';
import { listsView } from '../core/lists/lists-view.js';
import { goneLists, nothingRestored } from '../core/restore/gone-lists.js';
import { restoreList } from '../core/restore/restore-list.js';
import { restoreSources } from '../core/restore/restore-sources.js';
import type { SessionIndex } from '../core/sessions/session-index.js';
import { listDirOf } from '../core/store/paths.js';
import { listWords } from '../render/new-list.js';
import { renderNothingRecorded, renderRestoreReport, renderRestoreSummary } from '../render/restore-report.js';
import { PLAIN } from '../render/style.js';
import { sessionLabel } from './board-carry.js';
import type { GoneListsPayload, GoneListView, RestorePreviewPayload, RestoreSourceView } from './board-protocol.js';
import { type RowsSeen, rowAsSeen, sessionView } from './board-state.js';
import { shortOf } from './board-undo.js';

/**
 * Restoring a list from the board: `tasks -l <list> restore`, the same core run
 * (restore/restore-list.ts: the list's sessions' transcripts replayed, each task under
 * its own id wherever no file has it, nothing written over), its dry run shown first, and
 * recorded in the list's journal as the person's, so that `tasks undo` takes it back. The
 * lists offered are those `tasks lists --all` shows as gone: their folder removed while
 * their sessions' transcripts remain.
 */

/**
 * The gone lists among `tasks lists --all`'s rows (a list some row of its holds is not
 * gone), newest first. One whose last activity is dated ahead of the clock is counted from
 * when the board first saw that time (`seen`, kept from one read to the next), as a
 * list's row in the sidebar is (rowAsSeen).
 */
export async function goneListsPayload(
  index: SessionIndex,
  configDir: string,
  home: string,
  seen: { rows: RowsSeen; now: () => number },
): Promise<GoneListsPayload> {
  const view = listsView(configDir, index, { live: false, gone: await goneLists(index) });
  const now = seen.now();
  const lists = view.lists
    .filter((l) => l.kind === 'gone')
    .map(
      (l): GoneListView => ({
        id: l.id,
        shortId: l.shortId,
        session: l.sessions[0] === undefined ? null : sessionView(l.sessions[0], home),
        sessionCount: l.sessions.length,
        counts: l.counts,
        total: l.total,
        changedAt: l.changedAt,
        mayBeElsewhere: l.mayBeElsewhere === true,
      }),
    )
    .map((l) => rowAsSeen(l, NO_TASKS_SEEN, seen.rows, now));
  // A list no longer gone (restored) is seen anew if it goes again.
  const gone = new Set(lists.map((l) => l.id));
  for (const id of seen.rows.keys()) if (!gone.has(id)) seen.rows.delete(id);
  return { lists };
}

/** A gone list has no task file: its time is its sessions' own. */
const NO_TASKS_SEEN: ReadonlyMap<string, number> = new Map();

/** Where the restore reads: `from` (`--from`, session ids or prefixes), else the transcripts found for the list. */
export interface RestoreContext {
  configDir: string;
  home: string;
  /** The board's folder: where sessions that may hold a list named only in their environment ran. */
  projectDir: string | undefined;
}

async function restore(
  index: SessionIndex,
  configDir: string,
  listId: string,
  from: readonly string[],
  dryRun: boolean,
  signal?: AbortSignal,
) {
  const outcome = await restoreList(index, listDirOf(configDir, listId), listId, {
    from,
    dryRun,
    now: () => performance.now(),
    signal,
  });
  const { created, updated, deleted } = outcome.replay;
  const report = { list: listId, dryRun, ...outcome };
  const body = renderRestoreReport(report, PLAIN);
  return {
    report,
    empty: created + updated + deleted === 0,
    lines: body === '' ? [] : body.split('\n'),
    summary: renderRestoreSummary(report, listInWords(index, configDir, listId)),
  };
}

function sourceView(index: SessionIndex, home: string, sessionId: string): string {
  const s = index.session(sessionId);
  return s === undefined ? `session ${sessionId.slice(0, 8)}` : sessionLabel(s, home);
}

/**
 * `restore --dry-run` (with `--from` when `from` names sessions): what would be written,
 * or why nothing would, in the command's words; the transcripts read, and, when nothing
 * records the list, the sessions of the board's folder that may hold it (the command's
 * suggestion), each one a `--from` the page offers.
 */
export async function restorePreview(
  index: SessionIndex,
  ctx: RestoreContext,
  listId: string,
  from: readonly string[] = [],
): Promise<RestorePreviewPayload> {
  const base = { list: listId, from: [...from], lines: [], summary: '', warnings: [], count: 0 };
  let r: Awaited<ReturnType<typeof restore>>;
  try {
    r = await restore(index, ctx.configDir, listId, from, true);
  } catch (err) {
    // A --from the command refuses (no such session, an ambiguous prefix): its words.
    if (err instanceof TasksError) {
      // Each session named stays offered, checked (unchecking the one refused goes on), and the transcripts found, unchecked.
      const sources: RestoreSourceView[] = from.map((f) => ({ sessionId: f, label: `session ${f}`, why: 'named', changes: null }));
      for (const s of restoreSources(index, listId))
        if (!from.includes(s.sessionId))
          sources.push({ sessionId: s.sessionId, label: sourceView(index, ctx.home, s.sessionId), why: s.why, changes: null });
      return { ...base, sources, none: err.message };
    }
    throw err;
  }
  const sources: RestoreSourceView[] = r.report.sources.map((s) => ({
    sessionId: s.sessionId,
    label: sourceView(index, ctx.home, s.sessionId),
    why: s.why,
    changes: s.changes,
  }));
  // With --from, the transcripts found for the list stay offered (unchecked): the person may go back to them.
  if (from.length > 0)
    for (const s of restoreSources(index, listId))
      if (!sources.some((v) => v.sessionId === s.sessionId))
        sources.push({ sessionId: s.sessionId, label: sourceView(index, ctx.home, s.sessionId), why: s.why, changes: null });
  const candidates = r.empty
    ? nothingRestored(index, { listId, transcriptsRead: r.report.sources.length, from, cwd: ctx.projectDir }).candidates
    : [];
  for (const c of candidates)
    if (!sources.some((s) => s.sessionId === c))
      sources.push({ sessionId: c, label: sourceView(index, ctx.home, c), why: 'candidate', changes: null });
  return {
    ...base,
    // The sessions named, by their full ids (a prefix typed is the session it names).
    from: from.length === 0 ? [] : r.report.sources.filter((s) => s.why === 'named').map((s) => s.sessionId),
    sources,
    lines: r.lines,
    summary: r.summary,
    warnings: r.report.warnings,
    count: r.report.created.length,
    none: r.empty ? renderNothingRecorded(listInWords(index, ctx.configDir, listId), r.report.sources.length) : null,
  };
}

/** The restore itself; refused (404; nothing is written) when the transcripts record no change of the list. */
export async function restoreAction(
  index: SessionIndex,
  configDir: string,
  req: { list: string; from: readonly string[] },
  signal: AbortSignal,
): Promise<{ message: string; lines: string[]; warnings: string[] }> {
  const listId = req.list;
  const r = await restore(index, configDir, listId, req.from, false, signal);
  // As `tasks restore` refuses it: a record with no change of the list writes nothing.
  if (r.empty) throw new TasksError('not_found', renderNothingRecorded(listInWords(index, configDir, listId), r.report.sources.length));
  return { message: r.summary, lines: r.lines, warnings: r.report.warnings };
}

/** The list in a restore's words: `list "build-9"`, or `the list of session 7c1e2f30` (its short id among the lists). */
function listInWords(index: SessionIndex, configDir: string, listId: string): string {
  return listWords(shortOf(configDir, listId)(listId), index.knows(listId));
}
