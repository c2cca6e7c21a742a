import { listIdOfValue, readBinding } from '../binding/project-binding.js';
import type { SessionIndex, SessionInfo } from './session-index.js';

/**
 * The list a live session writes to now, as its agent chooses it (docs/task-store.md
 * section 1): `CLAUDE_CODE_TASK_LIST_ID` from its settings (which override its
 * environment, binding/) or else from the environment it was started with
 * (`/proc/<pid>/environ`); else its team's list; else its own, named by its id, even
 * before its first TaskCreate makes the folder. Its settings are read as they are now.
 */
export function listOfLiveSession(index: SessionIndex, session: SessionInfo): string {
  const named = namedListOf(index, session.cwd, session.pid);
  if (named !== undefined) return named;
  return index.listsOfSession(session.sessionId).find((l) => l !== session.sessionId) ?? session.sessionId;
}

/** The list a process's settings or environment name; undefined when neither does (or one says none). */
export function namedListOf(index: SessionIndex, cwd: string | undefined, pid: number | undefined): string | undefined {
  const bound = cwd !== undefined && index.settings !== undefined ? readBinding(cwd, index.settings).binding : undefined;
  if (bound !== undefined) return bound.listId;
  const variable = pid === undefined ? undefined : index.probe.claudeProcess?.(pid)?.listVariable;
  return variable === undefined ? undefined : listIdOfValue(variable);
}

const known = new WeakMap<SessionIndex, Array<{ session: SessionInfo; list: string }>>();

/** The running sessions (by their process), each with the list it writes to now; read once per index. */
export function liveSessionLists(index: SessionIndex): Array<{ session: SessionInfo; list: string }> {
  let found = known.get(index);
  if (found !== undefined) return found;
  found = [];
  for (const p of index.processes().values()) {
    const session = index.session(p.sessionId);
    if (session === undefined || session.state !== 'live') continue;
    found.push({ session, list: listOfLiveSession(index, session) });
  }
  known.set(index, found);
  return found;
}

/**
 * The live sessions working in any of `dirs` (the folders a list's sessions ran in): a
 * session there may be about to pick up the work of one that is over (`/clear`, a new
 * session in the same project), so `release --gone` asks for --force while one runs.
 */
export function liveSessionsIn(index: SessionIndex, dirs: readonly string[]): SessionInfo[] {
  const found = new Map<string, SessionInfo>();
  for (const { session } of liveSessionLists(index))
    if (session.cwd !== undefined && dirs.includes(session.cwd)) found.set(session.sessionId, session);
  for (const dir of new Set(dirs)) for (const s of index.sessionsIn(dir)) if (s.state === 'live') found.set(s.sessionId, s);
  return [...found.values()];
}
