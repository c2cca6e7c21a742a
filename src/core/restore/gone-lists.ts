import { isDirectory } from '../base/is-directory.js';
import { readBinding } from '../binding/project-binding.js';
import { evidenceOf } from '../sessions/list-sessions.js';
import type { SessionIndex, SessionInfo } from '../sessions/session-index.js';
import { cachedTranscriptTasks, memoryCache } from '../sessions/transcript-cache.js';
import { listDirOf } from '../store/paths.js';
import type { Status } from '../store/schema.js';
import { readRecord } from './restore-list.js';

/**
 * Lists whose folder is gone while their transcripts remain (`tasks lists --all`): the
 * sessions that made tasks (a TaskCreate with its result) whose list has no folder now,
 * that are not live (a live session's list before its first task is a new list, not a
 * gone one), and whose tasks tie them to no list on disk. Their list is the one their
 * settings bind (`tasks use`) where they ran, else their own (their UUID). A session that
 * worked on a list named only in its environment shows under its own id: restore it
 * with `-l <name> --from <session>`.
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
}

export async function goneLists(index: SessionIndex): Promise<GoneList[]> {
  const evidence = evidenceOf(index);
  const tied = new Set([...evidence.sessionsByList.values()].flat());
  const cache = memoryCache();
  const bySource = new Map<string, SessionInfo[]>();
  for (const [sessionId, transcript] of index.transcripts()) {
    if (tied.has(sessionId) || evidence.todos.has(sessionId) || index.listsOfSession(sessionId).length > 0) continue;
    const seen = cachedTranscriptTasks(transcript, cache);
    if (!seen.tasks.some((t) => t.created)) continue;
    const session = index.session(sessionId, transcript);
    if (session === undefined || session.state === 'live') continue;
    const bound = session.cwd === undefined || index.settings === undefined ? undefined : readBinding(session.cwd, index.settings).binding;
    const list = bound?.listId ?? sessionId;
    if (isDirectory(listDirOf(index.configDir, list))) continue;
    bySource.set(list, [...(bySource.get(list) ?? []), session]);
  }
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
    });
  }
  return found;
}
