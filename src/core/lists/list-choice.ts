/**
 * Lists: which lists exist (list-folders.ts), which one a command works on (this file,
 * docs/task-store.md sections 1, 10, 11 and 15, through the session index of sessions/
 * and the project binding of binding/), a summary of each for `tasks lists`
 * (list-summary.ts), the filters that narrow a list's tasks (task-filter.ts), and the
 * short forms of session UUIDs (short-ids.ts).
 *
 * Kept free of zod and of task parsing (list-summary.ts re-exports it), so that shell
 * completion can choose a list as every command does without loading them.
 */
import path from 'node:path';
import { TasksError } from '../base/errors.js';
import { isDirectory } from '../base/is-directory.js';
import { tildePath } from '../base/tilde-path.js';
import { LIST_ID_VARIABLE, listIdOfValue, readBinding } from '../binding/project-binding.js';
import { evidenceOfSessions, sessionsOfList } from '../sessions/list-sessions.js';
import { listOfLiveSession, liveSessionLists } from '../sessions/live-lists.js';
import { isSessionId, SessionIndex, type SessionInfo } from '../sessions/session-index.js';
import { movedLists } from '../sessions/session-moves.js';
import { listDirOf, sanitizeListId, tasksRoot } from '../store/paths.js';
import { byProject, isBelow } from './choice-project.js';
import { endedNamedLists, endedNamedText } from './ended-named-lists.js';
import type { ChoiceRule, ChooseListOptions, ListChoice } from './list-choice-types.js';
import { lastChange, listIds, MAX_LIST_ID_BYTES, requireConfigDir, somethingAt } from './list-folders.js';
import { mayBeSessionPrefix, shortIds } from './short-ids.js';

export { isBelow, projectDirs } from './choice-project.js';
export type { ChoiceRule, ChooseListOptions, ListChoice } from './list-choice-types.js';
export {
  lastChange,
  listIds,
  requireConfigDir,
  requireTasksRootFolder,
  unusableListEntries,
} from './list-folders.js';

/**
 * Which list a command works on, first rule that applies (docs/design.md: never guess
 * silently):
 * 1. `--list`: the list of that name, else the one session UUID list it is a prefix of;
 * 2. `--session`: that session's list (a live one's as it writes now; a TodoWrite
 *    session's todos, for reads);
 * 3. `$CLAUDE_CODE_TASK_LIST_ID`, as Claude Code reads it (trimmed; empty is unset);
 * 4. the binding: `CLAUDE_CODE_TASK_LIST_ID` in the settings Claude Code reads for
 *    sessions started here (`tasks use`; binding/);
 * 5. the project: the live sessions of the current directory, else of its nearest
 *    ancestor with sessions (never the home directory or above, unless the command runs
 *    there): the list a live session writes to, even before it exists; with none live,
 *    the most recently active session's list (choice-project.ts);
 * 6. the only list; else, for a read, the most recently changed one.
 * A change refuses (usage, the candidates in details) wherever rules 5 and 6 leave more
 * than one candidate; a dry run never does, and carries what a real run needs instead.
 * The config folder must exist.
 */
export function chooseList(configDir: string, opts: ChooseListOptions): ListChoice {
  requireConfigDir(configDir);
  if (!opts.dryRun || !opts.forWrite) return choose(configDir, opts);
  try {
    return choose(configDir, opts);
  } catch (err) {
    if (!(err instanceof TasksError) || (err.code !== 'usage' && err.code !== 'not_found')) throw err;
    return { ...choose(configDir, { ...opts, forWrite: false }), writeRefusal: err };
  }
}

function choose(configDir: string, opts: ChooseListOptions): ListChoice {
  const index = opts.index ?? new SessionIndex(configDir);
  if (opts.flag !== undefined) {
    // Trimmed, as Claude Code trims the variable: `-l " build-9"` is build-9.
    const flag = opts.flag.trim();
    refusePathName(flag);
    return opts.exact ? named(configDir, flag, 'flag') : byFlag(configDir, flag, index);
  }
  if (opts.session !== undefined) return bySession(configDir, index, opts.session, opts.forWrite);
  const bound = opts.settings !== undefined && opts.cwd !== undefined ? readBinding(opts.cwd, { ...opts.settings, configDir }) : undefined;
  const warnings = bound?.problems.map((p) => `${p}; Claude Code skips it too`) ?? [];
  const fromEnv = opts.env === undefined ? undefined : listIdOfValue(opts.env);
  if (fromEnv !== undefined) {
    const choice = { ...named(configDir, fromEnv, 'env'), typed: opts.env, warnings };
    const binding = bound?.binding;
    if (binding !== undefined && binding.listId !== fromEnv) {
      warnings.push(
        `${LIST_ID_VARIABLE} is "${opts.env}" here, but Claude Code sessions started here use ${binding.listId === undefined ? 'their own lists' : `"${binding.listId}"`}: ${binding.file} overrides the environment`,
      );
    }
    return choice;
  }
  if (bound?.binding?.listId !== undefined) {
    const choice = named(configDir, bound.binding.listId, 'binding');
    // A bound list before its first task: the one Claude Code sessions started here will make.
    const fresh = choice.exists ? undefined : true;
    return { ...choice, typed: bound.binding.value, binding: bound.binding, warnings, fresh };
  }
  const chosen = byProject(configDir, index, opts) ?? byRecency(configDir, index, opts);
  return { ...chosen, warnings: [...warnings, ...chosen.warnings] };
}

/**
 * `-l .`, `-l ../`, `tasks use .` and the like are a folder's path, typed where a list's id goes: the
 * sanitizing rule would make them the lists "-" and "--", which nobody meant, and suggest
 * one-character names beside them. Usage, said as it is.
 */
export function refusePathName(raw: string): void {
  if (!/^[./]+$/.test(raw)) return;
  throw new TasksError('usage', `${JSON.stringify(raw)} is a folder's path, not a list name`, {
    hint: 'tasks lists shows the lists there are',
    details: { list: raw },
  });
}

/** A choice of the list of exactly this id (sanitized as Claude Code sanitizes it). */
export function named(configDir: string, raw: string, how: ChoiceRule): ListChoice {
  if (raw === '') throw new TasksError('usage', 'the list id is empty');
  const id = sanitizeListId(raw);
  // Sanitized ids are ASCII: characters are bytes.
  if (id.length > MAX_LIST_ID_BYTES) {
    throw new TasksError('usage', `the list id is ${id.length} bytes long; a list folder name can hold at most ${MAX_LIST_ID_BYTES}`);
  }
  const dir = listDirOf(configDir, id);
  // Anything in the way (a file, a dangling link) counts as there: the command's own
  // read or write then says precisely what is wrong with it.
  return { id, dir, how, exists: somethingAt(dir), warnings: [], ...(id === raw ? {} : { typed: raw }) };
}

/**
 * `--list`: the list of exactly that name. Names are never matched by prefix (`build-9` is
 * not `build-99`); only a session UUID list may be named by a unique prefix, as git takes
 * short hashes, and only by one that cannot be a name (short-ids.ts: `4821` is list 4821,
 * as the variable would make it, even where a session's id begins with 4821). A live
 * session that has made no task yet is named so too: the list it will write.
 */
function byFlag(configDir: string, raw: string, index: SessionIndex): ListChoice {
  const exact = named(configDir, raw, 'flag');
  if (exact.exists) return exact;
  // A list `tasks use` moved a running session to, before its first task: reads see it empty, a change makes it.
  if (movedLists(configDir).has(exact.id)) return { ...exact, fresh: true, movedTo: true };
  const matches = sessionListsByPrefix(configDir, raw, index);
  if (matches.length === 1) {
    const id = matches[0] as string;
    const choice = named(configDir, id, 'flag-prefix');
    // A live session's list before its first task: reads see it empty, a change makes it.
    return { ...choice, typed: raw, fresh: choice.exists ? undefined : true, session: choice.exists ? undefined : index.session(id) };
  }
  if (matches.length > 1) {
    throw new TasksError('usage', `list prefix "${raw}" is ambiguous: ${matches.join(', ')}`, {
      hint: 'type more of the list id',
      details: { candidates: matches },
    });
  }
  // A session's own list whose folder is gone (`tasks lists --all`): its UUID's, as --session names it, never a new list named by the short id.
  const gone = goneOwnList(index, raw);
  if (gone !== undefined) return { ...named(configDir, gone, 'flag-prefix'), typed: raw };
  return exact;
}

/**
 * The session that `typed` is a unique prefix of (one that cannot be a name), when that
 * session made tasks with TaskCreate and its own list has no folder: the list `tasks
 * lists --all` shows as gone under that short id.
 */
function goneOwnList(index: SessionIndex, typed: string): string | undefined {
  const prefix = typed.trim().toLowerCase();
  if (!mayBeSessionPrefix(prefix)) return undefined;
  const sessions = index.sessionsByPrefix(prefix);
  if (sessions.length !== 1) return undefined;
  const id = sessions[0] as string;
  return isGoneOwnList(index, id) ? id : undefined;
}

/** Whether this session made tasks with TaskCreate and its own list has no folder (`tasks lists --all`: gone). */
function isGoneOwnList(index: SessionIndex, id: string): boolean {
  const transcript = index.transcriptOf(id);
  if (transcript === undefined || index.listsOfSession(id).length > 0) return false;
  return index.transcriptTasks(transcript).writes?.some((w) => w.created) === true;
}

/**
 * The gone lists (isGoneOwnList) whose session `typed` is a prefix of: a list `-l` named by
 * a prefix is the folder there that begins with it, and `restore`, which is for gone lists,
 * asks whether one of these was meant instead.
 */
export function goneOwnListsByPrefix(index: SessionIndex, typed: string): string[] {
  const prefix = typed.trim().toLowerCase();
  if (!mayBeSessionPrefix(prefix)) return [];
  return index.sessionsByPrefix(prefix).filter((id) => isGoneOwnList(index, id));
}

/**
 * The session UUID lists whose id starts with `typed` (empty unless it can only start a
 * UUID: short-ids.ts); with `index`, also the lists live sessions will write before their
 * first task, named by their ids.
 */
export function sessionListsByPrefix(configDir: string, typed: string, index?: SessionIndex): string[] {
  const prefix = typed.trim().toLowerCase();
  if (!mayBeSessionPrefix(prefix)) return [];
  const found = listIds(configDir).filter((id) => isSessionId(id) && id.startsWith(prefix));
  if (index !== undefined) {
    for (const { session, list } of liveSessionLists(index))
      if (list === session.sessionId && list.startsWith(prefix) && !found.includes(list)) found.push(list);
  }
  return found.sort();
}

function bySession(configDir: string, index: SessionIndex, raw: string, forWrite: boolean): ListChoice {
  if (raw === '') throw new TasksError('usage', 'the session id is empty');
  const matches = index.sessionsByPrefix(raw.toLowerCase());
  if (matches.length > 1) {
    throw new TasksError('usage', `session prefix "${raw}" is ambiguous: ${matches.join(', ')}`, {
      hint: 'type more of the session id',
      details: { candidates: matches },
    });
  }
  const sessionId = matches[0];
  if (sessionId === undefined) {
    throw new TasksError('not_found', `no session "${raw}" under ${configDir}`, { hint: 'tasks lists shows the sessions that have lists' });
  }
  const session = index.session(sessionId);
  const list = session?.state === 'live' ? listOfLiveSession(index, session) : index.listsOfSession(sessionId)[0];
  if (list !== undefined && (session?.state === 'live' || isDirectory(listDirOf(configDir, list)))) {
    return { ...named(configDir, list, 'session'), session, fresh: !isDirectory(listDirOf(configDir, list)) || undefined };
  }
  // Ended, with no list of its own: the lists its transcript ties it to (a list its environment named).
  if (session !== undefined && session.state !== 'live') {
    const tied = tiedLists(configDir, index, sessionId);
    const first = tied[0];
    const refusal = (what: string) => {
      const short = shortIds(tied);
      return new TasksError('usage', `session ${sessionId} worked on ${tied.length} lists, so ${what} needs its list named`, {
        hint: 'tasks lists shows them',
        details: { candidates: tied.map((list) => ({ list, shortId: short.get(list) ?? list, sessionId })) },
      });
    };
    if (first !== undefined && (tied.length === 1 || !forWrite)) {
      const choice: ListChoice = { ...named(configDir, first, 'session'), session, candidates: tied.length > 1 ? tied : undefined };
      // A read shows the one changed last; a gate must not guess (the other may hold open work).
      if (tied.length > 1) choice.gateRefusal = refusal('a gate');
      return choice;
    }
    if (tied.length > 1) throw refusal('a change');
  }
  // No list: a session that kept TodoWrite todos shows them; a change makes no list its agent would never read.
  const todos = session?.transcript === undefined ? undefined : index.transcriptTasks(session.transcript).todos;
  if (todos !== undefined) {
    if (forWrite) {
      const command = `tasks -l ${sessionId} import ${shellWord(session?.transcript ?? '')}`;
      throw new TasksError(
        'not_found',
        `session ${sessionId} keeps its todos with TodoWrite, not in a task list: there is no list to change; ${command} makes one of them`,
        {
          details: { sessionId, transcript: session?.transcript ?? null, command },
        },
      );
    }
    return { id: sessionId, dir: '', how: 'session', exists: false, session, todos, warnings: [] };
  }
  if (!forWrite) throw new TasksError('not_found', `session ${sessionId} has no task list`, { details: { sessionId } });
  // A change to a session without a list starts the one its agent would use: its UUID's.
  return { ...named(configDir, sessionId, 'session'), session };
}

/**
 * The lists a session's transcript ties it to (the tasks it made and changed there: a
 * list named by its environment), the most recently changed first.
 */
function tiedLists(configDir: string, index: SessionIndex, sessionId: string): string[] {
  const lists: string[] = [];
  for (const [list, sessions] of evidenceOfSessions(index, [sessionId]).sessionsByList) {
    if (sessions.includes(sessionId) && isDirectory(listDirOf(configDir, list))) lists.push(list);
  }
  return lists.sort((a, b) => lastChange(listDirOf(configDir, b)) - lastChange(listDirOf(configDir, a)));
}

/** Rule 6: the only list; else, for a read, the most recently changed. */
function byRecency(configDir: string, index: SessionIndex, opts: ChooseListOptions): ListChoice {
  const { forWrite } = opts;
  const ids = listIds(configDir);
  if (ids.length === 0) {
    // The way to start one is in the message itself: a first run in a script shows no hint.
    throw new TasksError(
      forWrite ? 'usage' : 'not_found',
      `no task lists under ${tasksRoot(configDir)} yet; start one with tasks -l <name> create "<subject>"`,
      {
        hint: 'start one: tasks -l <name> create "<subject>", or tasks use <name> to give this project a list that new Claude Code sessions here share',
      },
    );
  }
  if (ids.length === 1) {
    if (forWrite) refuseOtherProjectsOnly(index, ids[0] as string, opts);
    return named(configDir, ids[0] as string, 'only');
  }
  const byChange = ids
    .map((id) => ({ id, at: lastChange(listDirOf(configDir, id)) }))
    .sort((a, b) => b.at - a.at || a.id.localeCompare(b.id))
    .map((x) => x.id);
  if (forWrite) {
    const short = shortIds(ids);
    const ended = endedNamedLists(index, opts.cwd, opts.home);
    throw new TasksError(
      'usage',
      ended === undefined
        ? `${ids.length} task lists exist and none belongs to this directory's sessions, so a change needs its list named`
        : `${endedNamedText(ended, opts.home)}, so a change needs its list named`,
      {
        hint:
          ended === undefined
            ? 'tasks lists shows them with their projects and prompts'
            : `tasks use ${shellWord(ended.lists[0] as string)} makes it this project's list, for tasks and the sessions started here`,
        details: {
          ...(ended === undefined ? {} : { namedBySessions: ended.lists }),
          // The lists the directory's sessions worked on first: the one to name, most likely.
          candidates: [...(ended?.lists ?? []), ...byChange.filter((id) => !ended?.lists.includes(id))].map((id) => ({
            list: id,
            shortId: short.get(id) ?? id,
            prompt: sessionsOfList(index, id)[0]?.prompt ?? null,
          })),
        },
      },
    );
  }
  return { ...named(configDir, byChange[0] as string, 'most-recent'), candidates: byChange };
}

/**
 * A change guessed onto the only list there is, when that list is a session's of another
 * directory (none of its sessions ran here, above or below): its agent would find work it
 * never made. Named, it goes through; a list no session has (made by hand) is taken.
 */
function refuseOtherProjectsOnly(index: SessionIndex, list: string, opts: ChooseListOptions): void {
  if (opts.cwd === undefined) return;
  const sessions = sessionsOfList(index, list).filter((s) => s.cwd !== undefined);
  if (sessions.length === 0) return;
  const here = path.resolve(opts.cwd);
  const related = (dir: string) => dir === here || isBelow(dir, here) || isBelow(here, dir);
  if (sessions.some((s) => related(path.resolve(s.cwd as string)))) return;
  const first = sessions[0] as SessionInfo;
  const short = shortIds([list]).get(list) ?? list;
  throw new TasksError(
    'usage',
    `the only task list, ${short}, is the list of session ${first.sessionId.slice(0, 8)} of ${tildePath(first.cwd as string, opts.home)}, no session of this directory, so a change needs its list named`,
    {
      hint: "tasks use <list> makes a list this project's",
      details: { candidates: [{ list, shortId: short, prompt: first.prompt ?? null }] },
    },
  );
}

/** A word as a POSIX shell reads it back: plain when safe, else in single quotes. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
