import { listIdOfValue, readBinding } from '../binding/project-binding.js';
import type { ClaudeProcess } from './claude-processes.js';
import type { SessionIndex, SessionInfo } from './session-index.js';

/**
 * The list a live session writes to now, as its agent chooses it (docs/task-store.md
 * section 1): `CLAUDE_CODE_TASK_LIST_ID` from its settings (managed, then `--settings` on
 * its command line, then local, project and user: binding/; they override its
 * environment) or else from the environment it was started with (`/proc/<pid>/environ`);
 * else its team's list; else its own, named by its id, even before its first TaskCreate
 * makes the folder. Its settings are read as they are now: Claude Code reads a changed
 * settings file while it runs, and its next task call goes to the list it names
 * (checked against 2.1.328 and 2.1.332).
 */
export function listOfLiveSession(index: SessionIndex, session: SessionInfo): string {
  const named = namedListOf(index, session.cwd, session.pid);
  if (named !== undefined) return named;
  return index.listsOfSession(session.sessionId).find((l) => l !== session.sessionId) ?? session.sessionId;
}

/** The list a session's settings or its process's environment name; undefined when neither does (or one says none). */
export function namedListOf(index: SessionIndex, cwd: string | undefined, pid: number | undefined): string | undefined {
  const proc = pid === undefined ? undefined : index.probe.claudeProcess?.(pid);
  return namedListOfProcess(index, { cwd: cwd ?? proc?.cwd, listVariable: proc?.listVariable, settingsFlag: proc?.settingsFlag });
}

/**
 * The list a Claude Code process's settings (its `--settings` among them) or its
 * environment name; undefined when neither does, or when the setting is empty (its own list).
 */
export function namedListOfProcess(
  index: SessionIndex,
  p: Pick<ClaudeProcess, 'cwd' | 'listVariable' | 'settingsFlag'>,
): string | undefined {
  const flag = p.settingsFlag !== undefined && p.cwd !== undefined ? { value: p.settingsFlag, cwd: p.cwd } : undefined;
  const bound = p.cwd !== undefined && index.settings !== undefined ? readBinding(p.cwd, index.settings, flag).binding : undefined;
  if (bound !== undefined) return bound.listId;
  return p.listVariable === undefined ? undefined : listIdOfValue(p.listVariable);
}

/** What each index found, kept with the index (a run's): it goes when the index goes. */
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
 * The running sessions a settings change moves (`tasks use`): each of `before` (the live
 * sessions and their lists, read before the change) whose list, read again now, is
 * another. Claude Code reads a changed settings file while it runs: the session's next
 * task call goes to the new list (checked against 2.1.328 and 2.1.332), and its tasks so far stay
 * where they are.
 */
export function sessionsMoved(
  index: SessionIndex,
  before: ReadonlyArray<{ session: SessionInfo; list: string }>,
): Array<{ session: SessionInfo; from: string; to: string }> {
  return before.flatMap(({ session, list }) => {
    const now = listOfLiveSession(index, session);
    return now === list ? [] : [{ session, from: list, to: now }];
  });
}
