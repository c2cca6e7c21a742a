import { isDirectory } from '../base/is-directory.js';
import { tildePath } from '../base/tilde-path.js';
import { namedListsOf } from '../sessions/list-sessions.js';
import type { SessionIndex } from '../sessions/session-index.js';
import { listDirOf } from '../store/paths.js';
import { projectDirs } from './choice-project.js';
import { lastChange } from './list-folders.js';

/**
 * The lists the sessions of this directory (else of its nearest ancestor that has
 * sessions, as the project rule looks) worked on only because their environment or
 * settings named them (`CLAUDE_CODE_TASK_LIST_ID`, a shared list), the most recently
 * changed first. The project rule takes such a list only while one of its sessions is
 * live; once all have ended, a refusal that said no list is this directory's would
 * mislead, and the list to name is one of these. Reads the sessions' transcripts: for
 * refusals, not for every choice.
 */
export function endedNamedLists(index: SessionIndex, cwd: string | undefined, home: string): { dir: string; lists: string[] } | undefined {
  if (cwd === undefined) return undefined;
  for (const dir of projectDirs(cwd, home)) {
    const here = new Set(index.sessionsIn(dir).map((s) => s.sessionId));
    if (here.size === 0) continue;
    const lists = namedListsOf(index, here)
      .map((n) => n.list)
      .filter((list) => isDirectory(listDirOf(index.configDir, list)));
    if (lists.length === 0) continue;
    const at = new Map(lists.map((l) => [l, lastChange(listDirOf(index.configDir, l))]));
    return { dir, lists: lists.sort((a, b) => (at.get(b) ?? 0) - (at.get(a) ?? 0) || a.localeCompare(b)) };
  }
  return undefined;
}

/** `the sessions of ~/src/app worked on list "shared" (named in their environment or settings) and have all ended`. */
export function endedNamedText(ended: { dir: string; lists: readonly string[] }, home: string): string {
  const lists = ended.lists.map((l) => `"${l}"`);
  const which = lists.length === 1 ? `list ${lists[0]}` : `lists ${lists.slice(0, -1).join(', ')} and ${lists.at(-1)}`;
  return `the sessions of ${tildePath(ended.dir, home)} worked on ${which} (named in their environment or settings) and have all ended`;
}
