/**
 * Lists: which lists exist, which one a command works on (this file,
 * docs/task-store.md sections 1 and 10, through the session index of sessions/), a
 * summary of each for `tasks lists` (list-summary.ts), the filters that narrow a list's
 * tasks (task-filter.ts), and the short forms of session UUIDs (short-ids.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { errnoCode, TasksError } from '../base/errors.js';
import { isDirectory } from '../base/is-directory.js';
import { SessionIndex, type SessionInfo } from '../sessions/session-index.js';
import { listDirOf, sanitizeListId, tasksRoot } from '../store/paths.js';
import { shortIds } from './short-ids.js';

/**
 * Kept free of zod and of task parsing (list-summary.ts re-exports it), so that shell
 * completion can choose a list as every command does without loading them.
 */

/** The longest file name Linux and macOS file systems take: a list folder's name is one. */
export const MAX_LIST_ID_BYTES = 255;

/**
 * The folders under `<config>/tasks/`: `ids`, the lists (a folder name that is its own
 * sanitized id), and `foreign`, folders no list id can name (`we ird`, `a.b`): agents
 * never use them, and a list summary of one would be of a folder that `--list` cannot
 * reach. Both empty when there is no `tasks/` yet.
 */
export function listFolders(configDir: string): { ids: string[]; foreign: string[] } {
  let names: string[];
  try {
    names = fs
      .readdirSync(tasksRoot(configDir), { withFileTypes: true })
      // A symlinked list folder counts: agents follow it, and so do we.
      .filter((e) => e.isDirectory() || (e.isSymbolicLink() && isDirectory(path.join(tasksRoot(configDir), e.name))))
      .map((e) => e.name)
      .sort();
  } catch (err) {
    if (errnoCode(err) === 'ENOENT' || errnoCode(err) === 'ENOTDIR') return { ids: [], foreign: [] };
    throw new TasksError('io', `cannot read ${tasksRoot(configDir)}: ${(err as Error).message}`);
  }
  const usable = (name: string) => sanitizeListId(name) === name && name.length <= MAX_LIST_ID_BYTES;
  return { ids: names.filter(usable), foreign: names.filter((n) => !usable(n)) };
}

/** The lists under `<config>/tasks/`, by folder name; empty when there is none yet. */
export function listIds(configDir: string): string[] {
  return listFolders(configDir).ids;
}

function somethingAt(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch (err) {
    return errnoCode(err) !== 'ENOENT';
  }
}

/** When a list last changed: its folder (creates, deletes) and its task files (updates). */
export function lastChange(dir: string): number {
  let newest = 0;
  try {
    newest = fs.statSync(dir).mtimeMs;
    for (const name of fs.readdirSync(dir)) {
      if (!name.endsWith('.json')) continue;
      try {
        newest = Math.max(newest, fs.statSync(path.join(dir, name)).mtimeMs);
      } catch {
        // deleted meanwhile
      }
    }
  } catch {
    // folder vanished meanwhile
  }
  return newest;
}

/** How a list was chosen: the first rule of the list choice that applied. */
export type ChoiceRule = 'flag' | 'flag-prefix' | 'session' | 'env' | 'project' | 'only' | 'most-recent';

export interface ListChoice {
  id: string;
  dir: string;
  how: ChoiceRule;
  /** Whether something is at the list's path now (a named list may not exist yet). */
  exists: boolean;
  /** The session the list belongs to, when the choice went through one. */
  session?: SessionInfo | undefined;
  /** The project rule: the directory whose sessions were looked at. */
  projectDir?: string | undefined;
  /** What was typed, when a prefix was resolved. */
  typed?: string | undefined;
  /** Lists that could have been chosen instead (most recent first). */
  candidates?: string[] | undefined;
}

export interface ChooseListOptions {
  /** `--list`: a list id, or a unique prefix of one. */
  flag?: string | undefined;
  /** `--list` names exactly this list, never a prefix (`create --new-list`). */
  exact?: boolean | undefined;
  /** `--session`: a session id, or a unique prefix of one. */
  session?: string | undefined;
  /** `$CLAUDE_CODE_TASK_LIST_ID` */
  env?: string | undefined;
  /** A change goes ahead only on a certain choice; a read may take the likeliest list. */
  forWrite: boolean;
  /** Where the command runs (undefined: a deleted directory, no project), and the home directory the project search stops below. */
  cwd: string | undefined;
  home: string;
  index?: SessionIndex | undefined;
}

/**
 * Which list a command works on, first rule that applies (docs/design.md: never guess
 * silently):
 * 1. `--list`: the list of that name, else the one list whose name starts with it;
 * 2. `--session`: that session's list;
 * 3. `$CLAUDE_CODE_TASK_LIST_ID`;
 * 4. the project: the sessions that ran in the current directory, else in its nearest
 *    ancestor that has sessions with lists (never the home directory or above, unless
 *    the command runs there): the one live session's list, else the most recently active;
 * 5. the only list; else, for a read, the most recently changed one.
 * A change refuses (usage, the candidates in details) wherever rules 4 and 5 leave more
 * than one candidate; the caller says on stderr which list was chosen and why.
 */
export function chooseList(configDir: string, opts: ChooseListOptions): ListChoice {
  if (opts.flag !== undefined) return opts.exact ? named(configDir, opts.flag, 'flag') : byFlag(configDir, opts.flag);
  const index = opts.index ?? new SessionIndex(configDir);
  if (opts.session !== undefined) return bySession(configDir, index, opts.session, opts.forWrite);
  if (opts.env !== undefined && opts.env !== '') return named(configDir, opts.env, 'env');
  return byProject(configDir, index, opts) ?? byRecency(configDir, index, opts.forWrite);
}

function named(configDir: string, raw: string, how: ChoiceRule): ListChoice {
  if (raw === '') throw new TasksError('usage', 'the list id is empty');
  const id = sanitizeListId(raw);
  // Sanitized ids are ASCII: characters are bytes.
  if (id.length > MAX_LIST_ID_BYTES) {
    throw new TasksError('usage', `the list id is ${id.length} bytes long; a list folder name can hold at most ${MAX_LIST_ID_BYTES}`);
  }
  const dir = listDirOf(configDir, id);
  // Anything in the way (a file, a dangling link) counts as there: the command's own
  // read or write then says precisely what is wrong with it.
  return { id, dir, how, exists: somethingAt(dir) };
}

function byFlag(configDir: string, raw: string): ListChoice {
  const exact = named(configDir, raw, 'flag');
  if (exact.exists) return exact;
  const matches = listIds(configDir).filter((id) => id.startsWith(exact.id));
  if (matches.length === 1) return { ...named(configDir, matches[0] as string, 'flag-prefix'), typed: raw };
  if (matches.length > 1) {
    throw new TasksError('usage', `list prefix "${raw}" is ambiguous: ${matches.join(', ')}`, {
      hint: 'type more of the list id',
      details: { candidates: matches },
    });
  }
  return exact;
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
  const list = index.listsOfSession(sessionId)[0];
  if (list === undefined && !forWrite) {
    throw new TasksError('not_found', `session ${sessionId} has no task list`, { details: { sessionId } });
  }
  // A change to a session without a list starts the one its agent would use: its UUID's.
  return { ...named(configDir, list ?? sessionId, 'session'), session };
}

interface Candidate {
  list: string;
  session: SessionInfo;
}

/** Rule 4: undefined when no directory from cwd up has sessions with lists. */
function byProject(configDir: string, index: SessionIndex, opts: ChooseListOptions): ListChoice | undefined {
  if (opts.cwd === undefined) return undefined;
  for (const dir of projectDirs(opts.cwd, opts.home)) {
    const withList = (id: string) => index.listsOfSession(id).length > 0;
    const candidates: Candidate[] = index
      .sessionsIn(dir, withList)
      .map((session) => ({ session, list: index.listsOfSession(session.sessionId)[0] as string }))
      .sort((a, b) => (b.session.lastActivity ?? 0) - (a.session.lastActivity ?? 0));
    if (candidates.length === 0) continue;
    const live = candidates.filter((c) => c.session.state === 'live');
    const pool = live.length > 0 ? live : candidates;
    const lists = [...new Set(pool.map((c) => c.list))];
    if (lists.length > 1 && opts.forWrite) {
      const short = shortIds(listIds(configDir));
      const named = pool.map((c) => describeCandidate(c.list, c.session, short)).join(', ');
      throw new TasksError(
        'usage',
        `${lists.length} lists belong to ${live.length > 0 ? 'live ' : ''}sessions in ${dir}; choose one with --list: ${named}`,
        {
          hint: 'tasks lists --here shows them',
          details: { candidates: pool.map((c) => candidateDetails(c)) },
        },
      );
    }
    const chosen = pool[0] as Candidate;
    const all = [...new Set(candidates.map((c) => c.list))];
    return {
      ...named(configDir, chosen.list, 'project'),
      session: chosen.session,
      projectDir: dir,
      candidates: all.length > 1 ? all : undefined,
    };
  }
  return undefined;
}

/** `2d483082 ("fix the login bug", /home/me/work/myproj)`: what a person needs to choose. */
function describeCandidate(list: string, session: SessionInfo | undefined, short: Map<string, string>): string {
  const id = short.get(list) ?? list;
  if (session === undefined) return id;
  const prompt = session.prompt?.replace(/\s+/g, ' ');
  const facts = [prompt === undefined ? undefined : `"${prompt.length > 40 ? `${prompt.slice(0, 39)}…` : prompt}"`, session.cwd].filter(
    Boolean,
  );
  return facts.length > 0 ? `${id} (${facts.join(', ')})` : id;
}

function candidateDetails({ list, session }: Candidate) {
  return { list, sessionId: session.sessionId, state: session.state, cwd: session.cwd ?? null, prompt: session.prompt ?? null };
}

/**
 * The current directory, then its ancestors while they are below the home directory (a
 * session run in ~ must not capture every project), or above the root when outside it.
 */
function projectDirs(cwd: string, home: string): string[] {
  const start = path.resolve(cwd);
  const top = home === '' ? '' : path.resolve(home);
  if (start === top) return [start];
  const underHome = top !== '' && isBelow(start, top);
  const dirs = [start];
  for (let dir = path.dirname(start); path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    if (underHome && !isBelow(dir, top)) break;
    dirs.push(dir);
  }
  return dirs;
}

export function isBelow(dir: string, ancestor: string): boolean {
  return dir.startsWith(ancestor.endsWith(path.sep) ? ancestor : ancestor + path.sep);
}

/** Rule 5. */
function byRecency(configDir: string, index: SessionIndex, forWrite: boolean): ListChoice {
  const ids = listIds(configDir);
  if (ids.length === 0) {
    if (!fs.existsSync(configDir)) {
      throw new TasksError('not_found', `config folder ${configDir} does not exist`, {
        hint: 'set --config-dir or CLAUDE_CONFIG_DIR to the folder Claude Code uses',
      });
    }
    throw new TasksError(forWrite ? 'usage' : 'not_found', `no task lists under ${tasksRoot(configDir)}`, {
      hint: 'name one with --list <id> (or CLAUDE_CODE_TASK_LIST_ID)',
    });
  }
  if (ids.length === 1) return named(configDir, ids[0] as string, 'only');
  const byChange = ids
    .map((id) => ({ id, at: lastChange(listDirOf(configDir, id)) }))
    .sort((a, b) => b.at - a.at || a.id.localeCompare(b.id))
    .map((x) => x.id);
  if (forWrite) {
    const short = shortIds(ids);
    const named = byChange.map((id) => describeCandidate(id, index.sessionsOfList(id)[0], short));
    throw new TasksError(
      'usage',
      `several task lists exist and none belongs to this directory's sessions; choose one with --list: ${named.join(', ')}`,
      {
        hint: 'tasks lists shows them with their projects and prompts; or set CLAUDE_CODE_TASK_LIST_ID',
        details: { candidates: byChange },
      },
    );
  }
  return { ...named(configDir, byChange[0] as string, 'most-recent'), candidates: byChange };
}
