import { TasksError } from '../base/errors.js';
import { isDirectory } from '../base/is-directory.js';
import { projectDirs, sessionListsByPrefix } from '../lists/list-choice.js';
import { clearOf } from '../sessions/cleared-lists.js';
import type { SessionIndex, SessionInfo } from '../sessions/session-index.js';
import { listDirOf, sanitizeListId } from '../store/paths.js';

/**
 * Where carried work comes from (docs/task-store.md sections 10 and 15):
 * - named (`--from`): a list by its exact name or a unique prefix of a session UUID
 *   list, or a session by its id or a unique prefix (its list);
 * - else the earlier lists of this project, newest first: the lists of the sessions the
 *   target's process ran before `/clear` (`cleared -> <id>` in `tasks lists`), then those
 *   of the sessions that ran in the project's directory and ended.
 */
export interface CarrySource {
  list: string;
  /** The session it belongs to, when known. */
  session?: SessionInfo | undefined;
  why: 'named' | 'cleared' | 'ended';
}

export interface TargetInfo {
  id: string;
  /** The directory whose sessions chose it (the project rule), when it did. */
  projectDir?: string | undefined;
  /** Lists of the sessions its process ran before `/clear`, newest first. */
  replaced?: readonly string[] | undefined;
}

export function namedSource(index: SessionIndex, raw: string): CarrySource {
  const typed = raw.trim();
  if (typed === '') throw new TasksError('usage', '--from: the list or session is empty');
  const exact = sanitizeListId(typed);
  if (isDirectory(listDirOf(index.configDir, exact))) return { list: exact, session: index.ownersOfList(exact)[0], why: 'named' };
  const lists = sessionListsByPrefix(index.configDir, typed);
  if (lists.length > 1) {
    throw new TasksError('usage', `--from: "${typed}" is the start of ${lists.length} lists: ${lists.slice(0, 5).join(', ')}`, {
      hint: 'type more of it',
      details: { candidates: lists },
    });
  }
  if (lists.length === 1) {
    const list = lists[0] as string;
    return { list, session: index.ownersOfList(list)[0], why: 'named' };
  }
  const sessions = index.sessionsByPrefix(typed.toLowerCase());
  if (sessions.length > 1) {
    throw new TasksError('usage', `--from: session prefix "${typed}" is ambiguous: ${sessions.slice(0, 5).join(', ')}`, {
      hint: 'type more of the session id',
      details: { candidates: sessions },
    });
  }
  const sessionId = sessions[0];
  const list = sessionId === undefined ? undefined : index.listsOfSession(sessionId)[0];
  if (sessionId !== undefined && list !== undefined) return { list, session: index.session(sessionId), why: 'named' };
  throw new TasksError(
    'not_found',
    sessionId === undefined
      ? `--from: no list or session "${typed}" under ${index.configDir}`
      : `--from: session ${sessionId} has no task list`,
    { hint: 'tasks lists shows the lists and their sessions', details: { from: typed } },
  );
}

/** The earlier lists of the target's project, newest first (the `/clear` predecessors first), the target left out. */
export function earlierLists(index: SessionIndex, target: TargetInfo, cwd: string | undefined, home: string): CarrySource[] {
  const found: CarrySource[] = [];
  const seen = new Set<string>([target.id]);
  const add = (list: string, why: CarrySource['why'], session?: SessionInfo) => {
    if (seen.has(list) || !isDirectory(listDirOf(index.configDir, list))) return;
    seen.add(list);
    found.push({ list, session: session ?? index.ownersOfList(list)[0], why });
  };
  // Only a sure /clear puts a list first; one taken from times alone (cleared-lists.ts) is
  // just an earlier session of the project, in its place by time.
  for (const list of target.replaced ?? []) if (clearOf(index.session(list))?.sure === true) add(list, 'cleared');
  // The project: the one the list was chosen by, else (a list named with -l or --session)
  // the folder its own session ran in, else this directory's.
  const dir =
    target.projectDir ??
    index.ownersOfList(target.id).find((s) => s.cwd !== undefined)?.cwd ??
    (cwd === undefined ? undefined : projectDirs(cwd, home).find((d) => index.sessionsIn(d).length > 0));
  if (dir === undefined) return found;
  const ended = index
    .sessionsIn(dir, (id) => index.listsOfSession(id).length > 0)
    .filter((s) => s.state !== 'live')
    .sort((a, b) => (b.lastActivity ?? 0) - (a.lastActivity ?? 0));
  for (const s of ended) {
    const list = index.listsOfSession(s.sessionId)[0];
    if (list !== undefined) add(list, clearOf(s)?.sure === true ? 'cleared' : 'ended', s);
  }
  return found;
}
