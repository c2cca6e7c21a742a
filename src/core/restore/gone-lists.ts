import { TasksError } from '../base/errors.js';
import { isDirectory } from '../base/is-directory.js';
import { readBinding } from '../binding/project-binding.js';
import { goneOwnListsByPrefix } from '../lists/list-choice.js';
import type { ListChoice } from '../lists/list-choice-types.js';
import { mayBeSessionPrefix } from '../lists/short-ids.js';
import { evidenceOf } from '../sessions/list-sessions.js';
import type { SessionIndex, SessionInfo } from '../sessions/session-index.js';
import { cachedTranscriptTasks, memoryCache } from '../sessions/transcript-cache.js';
import { listDirOf } from '../store/paths.js';
import type { Status } from '../store/schema.js';
import { bindingCounts, startsItsOwnList } from './binding-then.js';
import { readRecord } from './restore-list.js';

/**
 * Lists whose folder is gone while their transcripts remain (`tasks lists --all`): the
 * sessions that made tasks (a TaskCreate with its result) whose list has no folder now,
 * that are not live (a live session's list before its first task is a new list, not a
 * gone one), and whose tasks tie them to no list on disk. Their list is the one their
 * settings bind (`tasks use`) where they ran, else their own (their UUID).
 *
 * A transcript never names its list, and a list named only in a session's environment
 * (CLAUDE_CODE_TASK_LIST_ID) leaves no other trace once its folder is gone. A session's
 * own list starts empty: its first Task-tool write is the TaskCreate of #1. A session
 * whose first write is anything else (a TaskCreate of #3, a TaskUpdate of a task it did
 * not make) wrote into a list that was there before it, so its own never existed: it is
 * no gone list, but a session on a list named otherwise (`elsewhere`: restore that list
 * with `-l <name> --from <session>`). A session that did start at #1 in the directory
 * where such a session wrote to a task it made may have been on that list too: its row
 * is `unsure`, never asserted.
 */
export interface GoneList {
  id: string;
  dir: string;
  /** Its sessions, the latest first. */
  sessions: SessionInfo[];
  /** The tasks the record ends with, by status. */
  counts: Record<Status, number>;
  total: number;
  /** The latest activity of its sessions (ms). */
  changedAt: number;
  /** Its sessions may have worked on a list named otherwise instead: their own may never have existed. */
  mayBeElsewhere?: true | undefined;
}

export interface GoneLists {
  lists: GoneList[];
  /** Sessions (latest first) whose Task-tool calls went to a list named only in their environment, its folder gone. */
  elsewhere: SessionInfo[];
}

export async function goneLists(index: SessionIndex): Promise<GoneLists> {
  const evidence = evidenceOf(index);
  const tied = new Set([...evidence.sessionsByList.values()].flat());
  const cache = memoryCache();
  const bySource = new Map<string, SessionInfo[]>();
  const elsewhere: Array<{ session: SessionInfo; touched: Set<string> }> = [];
  const ownStarts: Array<{ session: SessionInfo; list: string; made: Set<string> }> = [];
  const maybeBound = new Set<string>();
  for (const [sessionId, transcript] of index.transcripts()) {
    if (tied.has(sessionId) || evidence.todos.has(sessionId) || index.listsOfSession(sessionId).length > 0) continue;
    const seen = cachedTranscriptTasks(transcript, cache);
    if (!seen.tasks.some((t) => t.created)) continue;
    const session = index.session(sessionId, transcript);
    if (session === undefined || session.state === 'live') continue;
    const writes = seen.writes ?? [];
    const boundNow =
      session.cwd === undefined || index.settings === undefined ? undefined : readBinding(session.cwd, index.settings).binding;
    const ownStart = startsItsOwnList(writes);
    // A binding written since the first write of a session that started a list of its own
    // (a later `tasks use`) may not be the one it ran under: its own list is the one known.
    const bound = boundNow !== undefined && bindingCounts(boundNow.file, writes) ? boundNow : undefined;
    if (bound === undefined && !ownStart) {
      elsewhere.push({ session, touched: new Set([...writes.map((w) => w.id), ...seen.tasks.map((t) => t.id)]) });
      continue;
    }
    const list = bound?.listId ?? sessionId;
    if (isDirectory(listDirOf(index.configDir, list))) continue;
    bySource.set(list, [...(bySource.get(list) ?? []), session]);
    if (bound === undefined) {
      ownStarts.push({ session, list, made: new Set(writes.filter((w) => w.created).map((w) => w.id)) });
      // Its own list, unless the binding read now was there when it ran and its list is gone too: which one it was on is unsure.
      const other = boundNow?.listId;
      if (other !== undefined && other !== list && !isDirectory(listDirOf(index.configDir, other))) maybeBound.add(list);
    }
  }
  // A session that started at #1 where one on a list named otherwise wrote to a task of its ids: which list it was on is unsure.
  const unsure = new Set(
    ownStarts
      .filter((o) =>
        elsewhere.some(
          (e) => e.session.cwd !== undefined && e.session.cwd === o.session.cwd && [...o.made].some((id) => e.touched.has(id)),
        ),
      )
      .map((o) => o.list),
  );
  for (const list of maybeBound) unsure.add(list);
  const found: GoneList[] = [];
  for (const [id, sessions] of bySource) {
    const sorted = [...sessions].sort((a, b) => (b.lastActivity ?? 0) - (a.lastActivity ?? 0));
    const { replay } = await readRecord(
      sorted.flatMap((s) =>
        s.transcript === undefined ? [] : [{ sessionId: s.sessionId, transcript: s.transcript, why: 'own' as const }],
      ),
    );
    const counts: Record<Status, number> = { pending: 0, in_progress: 0, completed: 0 };
    for (const item of replay.items) counts[item.status]++;
    found.push({
      id,
      dir: listDirOf(index.configDir, id),
      sessions: sorted,
      counts,
      total: replay.items.length,
      changedAt: sorted[0]?.lastActivity ?? 0,
      ...(unsure.has(id) ? { mayBeElsewhere: true as const } : {}),
    });
  }
  return {
    lists: found,
    elsewhere: elsewhere.map((e) => e.session).sort((a, b) => (b.lastActivity ?? 0) - (a.lastActivity ?? 0)),
  };
}

/**
 * The sessions that may have worked on a list named only in their environment, for a
 * restore of such a list that nothing records: the ones that ran in `dir`, not live, used
 * the Task tools, and have no list of their own on disk nor tasks that tie them to a
 * list there; latest first, at most `limit`.
 */
export function sessionsWithoutList(index: SessionIndex, dir: string, limit = 5): SessionInfo[] {
  const evidence = evidenceOf(index);
  const tied = new Set([...evidence.sessionsByList.values()].flat());
  return index
    .sessionsIn(dir, (id) => !tied.has(id) && index.listsOfSession(id).length === 0)
    .filter((s) => s.state !== 'live' && s.transcript !== undefined && index.transcriptTasks(s.transcript).usesTasks)
    .sort((a, b) => (b.lastActivity ?? 0) - (a.lastActivity ?? 0))
    .slice(0, limit);
}

/**
 * A restore that found nothing to restore, and what may have been meant: with no
 * transcript read, a `-l` that is a session's short id whose list folder is gone
 * (`meant`: restored by `--session`), or, with no `--from`, the sessions that ran in `cwd`
 * and may hold a list named only in their environment (`candidates`).
 */
export function nothingRestored(
  index: SessionIndex,
  o: { listId: string; transcriptsRead: number; from: readonly string[]; cwd: string | undefined },
): { meant?: string | undefined; candidates: string[] } {
  if (o.transcriptsRead > 0) return { candidates: [] };
  const typed = o.listId.toLowerCase();
  const meant = mayBeSessionPrefix(typed) ? index.sessionsByPrefix(typed) : [];
  if (meant.length === 1) return { meant: meant[0], candidates: [] };
  const candidates = o.from.length === 0 && o.cwd !== undefined ? sessionsWithoutList(index, o.cwd).map((s) => s.sessionId) : [];
  return { candidates };
}

/**
 * `-l <short id>` names the list folder there that begins with it; a gone list (`tasks lists
 * --all`) whose session begins with it too may be the one a restore meant, and restoring the
 * other would only raise its mark. Refused, naming both, before anything is written.
 */
export function refuseAmbiguousPrefix(index: SessionIndex, choice: ListChoice): void {
  if (choice.how !== 'flag-prefix' || !choice.exists || choice.typed === undefined) return;
  const gone = goneOwnListsByPrefix(index, choice.typed).filter((id) => id !== choice.id);
  if (gone.length === 0) return;
  const candidates = [choice.id, ...gone];
  throw new TasksError(
    'usage',
    `list prefix "${choice.typed}" is ambiguous for restore: ${candidates.join(', ')} (${gone.length === 1 ? 'the last has' : 'all but the first have'} no folder)`,
    { hint: 'type more of the list id (tasks lists --all shows them)', details: { candidates } },
  );
}
