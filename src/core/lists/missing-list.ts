import { TasksError } from '../base/errors.js';
import { LIST_ID_VARIABLE } from '../binding/project-binding.js';
import { isSessionId, type SessionIndex } from '../sessions/session-index.js';
import { cachedTranscriptTasks, memoryCache } from '../sessions/transcript-cache.js';
import { brokenLink } from '../store/broken-link.js';
import { listDirOf, sanitizeListId } from '../store/paths.js';
import { refusePathName, sessionListsByPrefix } from './list-choice.js';
import type { ListChoice } from './list-choice-types.js';
import { listIds, MAX_LIST_ID_BYTES } from './list-folders.js';
import { nearNames } from './near-names.js';
import { mayBeSessionPrefix } from './short-ids.js';

/**
 * What to say when the list chosen does not exist, and what a person most likely meant:
 * a list one or two keystrokes away (`build-9` for `build-99`), or the full id of the
 * session UUID list that a short id names. Claude Code reads CLAUDE_CODE_TASK_LIST_ID
 * exactly: a short id there names a new, empty list, so the variable and the binding are
 * named in the message, with the full id to put there.
 */
export interface MissingList {
  /** Existing lists one or two keystrokes from the id. */
  near: string[];
  /** The session UUID list that the id is a unique prefix of (for the variable and the binding). */
  fullId?: string | undefined;
  /** `--list` named a session (by its id or a prefix) that has no task list: `--session` reads what it has. */
  session?: { id: string; todos: boolean } | undefined;
}

export function missingListFacts(configDir: string, choice: ListChoice, index?: SessionIndex): MissingList {
  const ids = listIds(configDir);
  const typed = choice.typed ?? choice.id;
  const near = [...new Set([...nearNames(choice.id, ids), ...sessionListsStartingWith(typed, ids), ...shortIdsNear(typed, ids)])];
  const prefixed = choice.how === 'env' || choice.how === 'binding' ? sessionListsByPrefix(configDir, typed) : [];
  const facts: MissingList = { near, fullId: prefixed.length === 1 ? prefixed[0] : undefined };
  if (choice.how === 'flag' && index !== undefined && mayBeSessionPrefix(typed)) {
    const sessions = index.sessionsByPrefix(typed.trim().toLowerCase());
    if (sessions.length === 1) {
      const id = sessions[0] as string;
      const transcript = index.session(id)?.transcript;
      facts.session = { id, todos: transcript !== undefined && cachedTranscriptTasks(transcript, memoryCache()).todos !== undefined };
    }
  }
  return facts;
}

/**
 * Session lists whose id begins with a typed name of eight digits or more (`12345678`):
 * such a name is always a list's own (short-ids.ts), but one as long as a short id is far
 * likelier the first eight characters of `12345678-1234-...` copied than a build number
 * that happens to begin a session's id (a four-digit one begins one session in 65,536),
 * and an agent will never see a task written to a new list "12345678": the note names
 * that list, as it names a typo.
 */
function sessionListsStartingWith(typed: string, ids: readonly string[]): string[] {
  const t = typed.trim().toLowerCase();
  if (!/^[0-9]{8,}$/.test(t)) return [];
  return ids.filter((id) => isSessionId(id) && id.startsWith(t));
}

/**
 * Session lists whose short id (what `tasks lists` shows: the id's first eight characters
 * or more) is one keystroke from a typed prefix of a session id (`3f2a9c1f` for
 * `3f2a9c1e-...`): the whole UUID is far from it, and a copied short id is how such a list
 * is named.
 */
function shortIdsNear(typed: string, ids: readonly string[]): string[] {
  const t = typed.trim().toLowerCase();
  if (t.length < 8 || !mayBeSessionPrefix(t)) return [];
  return ids.filter((id) => isSessionId(id) && !id.startsWith(t) && nearNames(t, [id.slice(0, t.length)], 1).length > 0);
}

/** Not found (exit 3): the list, where its name came from, and what was probably meant. */
export function missingListError(configDir: string, choice: ListChoice, index?: SessionIndex): TasksError {
  // A link in the list's place that leads nowhere: the list is there by name, its folder is not.
  const broken = brokenLink(choice.dir);
  if (broken !== undefined) {
    return new TasksError('not_found', `list folder ${choice.dir} is ${broken}`, {
      hint: 'make or mount what it points to, or remove the link; agents cannot use this list either',
      details: { list: choice.id, path: choice.dir },
    });
  }
  if (choice.how === 'flag-prefix' && index !== undefined && index.transcriptOf(choice.id) !== undefined) {
    // A session's own list whose folder is gone: its transcripts can bring it back.
    const typed = (choice.typed ?? choice.id).trim();
    return new TasksError(
      'not_found',
      `list folder ${choice.dir} does not exist: session ${choice.id}'s list is gone; tasks -l ${typed} restore rebuilds it from its transcripts`,
      { details: { list: choice.id, sessionId: choice.id, command: `tasks -l ${typed} restore` } },
    );
  }
  const { near, fullId, session } = missingListFacts(configDir, choice, index);
  if (session !== undefined) {
    const typed = (choice.typed ?? choice.id).trim();
    const has = session.todos
      ? `keeps its todos with TodoWrite, not in a task list: tasks --session ${typed} list reads them`
      : `has no task list (tasks --session ${typed} names the session)`;
    // The folder the session's list would have: named by its whole id, not by the prefix typed.
    return new TasksError('not_found', `list folder ${listDirOf(configDir, session.id)} does not exist: session ${session.id} ${has}`, {
      details: { list: choice.id, sessionId: session.id },
    });
  }
  const where =
    choice.how === 'env'
      ? ` (named by ${LIST_ID_VARIABLE}="${choice.typed ?? choice.id}")`
      : choice.how === 'binding'
        ? ` (bound by ${choice.binding?.file ?? 'the settings'})`
        : choice.how === 'flag' && choice.typed !== undefined && choice.typed !== choice.id
          ? ` (a list id keeps letters, digits, - and _, as Claude Code's does: ${JSON.stringify(choice.typed)} is ${JSON.stringify(choice.id)})`
          : '';
  const meant =
    fullId !== undefined
      ? `; did you mean ${fullId}? Claude Code reads ${choice.how === 'env' ? 'this variable' : LIST_ID_VARIABLE} exactly`
      : near.length > 0
        ? `; did you mean ${near.join(' or ')}?`
        : '';
  return new TasksError('not_found', `list folder ${choice.dir} does not exist${where}${meant}`, {
    hint: fullId !== undefined || near.length > 0 ? undefined : 'tasks lists shows the lists there are',
    details: {
      list: choice.id,
      ...(near.length > 0 ? { suggestions: near } : {}),
      ...(fullId !== undefined ? { fullId } : {}),
      ...(choice.how === 'env' ? { variable: LIST_ID_VARIABLE } : {}),
    },
  });
}

/**
 * The list id that `tasks use <name>` binds: the list of exactly that name; else the
 * session UUID list a unique prefix names (one that cannot be a name: short-ids.ts), in
 * full (Claude Code reads the variable exactly, so `7baec0ff` must be written out), a
 * live session's before its first task too (with `index`); else the new name itself,
 * with the existing lists it is near (a typo shows at once).
 */
export function listToBind(configDir: string, raw: string, index?: SessionIndex): { id: string; exists: boolean; near: string[] } {
  const typed = raw.trim();
  if (typed === '') throw new TasksError('usage', 'the list id is empty');
  refusePathName(typed);
  const id = sanitizeListId(typed);
  if (id.length > MAX_LIST_ID_BYTES)
    throw new TasksError('usage', `the list id is ${id.length} bytes long; a list folder name can hold at most ${MAX_LIST_ID_BYTES}`);
  const ids = listIds(configDir);
  if (ids.includes(id)) return { id, exists: true, near: [] };
  const prefixed = sessionListsByPrefix(configDir, typed, index);
  if (prefixed.length === 1) return { id: prefixed[0] as string, exists: ids.includes(prefixed[0] as string), near: [] };
  if (prefixed.length > 1) {
    throw new TasksError('usage', `list prefix "${typed}" is ambiguous: ${prefixed.join(', ')}`, {
      hint: 'type more of the list id',
      details: { candidates: prefixed },
    });
  }
  return { id, exists: false, near: nearNames(id, ids) };
}
