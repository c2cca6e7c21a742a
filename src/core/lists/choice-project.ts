import path from 'node:path';
import { TasksError } from '../base/errors.js';
import { isDirectory } from '../base/is-directory.js';
import { tildePath } from '../base/tilde-path.js';
import { liveSessionLists } from '../sessions/live-lists.js';
import type { SessionIndex, SessionInfo } from '../sessions/session-index.js';
import { listDirOf } from '../store/paths.js';
import { keepSessions, keptSessions } from './kept-choice.js';
import type { ChooseListOptions, ListChoice } from './list-choice-types.js';
import { listIds, somethingAt } from './list-folders.js';
import { shortIds } from './short-ids.js';

/**
 * The project rule of the list choice: the sessions that ran in the current directory,
 * else in its nearest ancestor that has any (never the home directory or above, unless
 * the command runs there).
 *
 * - Live sessions first: each with the list it writes to now (sessions/live-lists.ts),
 *   which may not exist yet: a fresh session, or one just `/clear`ed, has made no task.
 *   Then reads show that list empty and a change makes it, as the agent's own first
 *   TaskCreate would, rather than writing into the list of a session that is over.
 * - With none live: the sessions with a list, the most recently active first.
 *
 * A change refuses where that leaves more than one list (usage; the candidates, with
 * their short ids, prompts and folders, in details). Undefined when no directory has
 * sessions with lists or live sessions.
 */
export function byProject(configDir: string, index: SessionIndex, opts: ChooseListOptions): ListChoice | undefined {
  if (opts.cwd === undefined) return undefined;
  for (const dir of projectDirs(opts.cwd, opts.home)) {
    const live = liveSessionLists(index)
      .filter((l) => l.session.cwd === dir)
      .sort((a, b) => (b.session.lastActivity ?? 0) - (a.session.lastActivity ?? 0));
    // None live: the sessions as kept, while nothing they came from has changed (kept-choice.ts).
    const kept = live.length === 0 ? keptSessions(index, dir) : undefined;
    if (kept !== undefined) {
      const lists = [...new Set(kept.map((k) => k.list))];
      const first = kept[0];
      // A change that must refuse names every candidate's session: worked out below.
      if (first !== undefined && !(lists.length > 1 && opts.forWrite)) {
        const session = index.session(first.sessionId, first.transcript);
        if (session !== undefined) return choiceOf(configDir, index, dir, { list: first.list, session }, lists);
      }
    }
    const ended = index
      .sessionsIn(dir, (id) => index.listsOfSession(id).length > 0)
      .filter((s) => !live.some((l) => l.session.sessionId === s.sessionId))
      .map((session) => ({ session, list: index.listsOfSession(session.sessionId)[0] as string }))
      .sort((a, b) => (b.session.lastActivity ?? 0) - (a.session.lastActivity ?? 0));
    // A session whose transcript is still being written counts as live too.
    const writing = ended.filter((c) => c.session.state === 'live');
    const pool = live.length > 0 ? [...live, ...writing] : writing.length > 0 ? writing : ended;
    if (live.length === 0 && writing.length === 0 && ended.length > 0 && kept === undefined)
      keepSessions(
        index,
        dir,
        ended.map((c) => ({ sessionId: c.session.sessionId, list: c.list, transcript: c.session.transcript })),
        ended.some((c) => c.session.ended !== true),
      );
    if (pool.length === 0) continue;
    const lists = [...new Set(pool.map((c) => c.list))];
    const running = live.length + writing.length > 0;
    if (lists.length > 1 && opts.forWrite) throw refusal(configDir, tildePath(dir, opts.home), pool, running, 'a change');
    const choice = choiceOf(configDir, index, dir, pool[0] as Candidate, [...new Set([...pool, ...ended].map((c) => c.list))]);
    // Several sessions at work here: a read shows the latest active one's list; a gate must not guess.
    if (lists.length > 1 && running) {
      choice.gateRefusal = refusal(configDir, tildePath(dir, opts.home), pool, running, 'a gate');
      choice.liveOthers = lists
        .filter((l) => l !== choice.id)
        .map((list) => ({ list, prompt: pool.find((c) => c.list === list)?.session.prompt }));
    }
    return choice;
  }
  return undefined;
}

/** The choice of `chosen`'s list; `all`: the lists of the directory's sessions, the chosen one's first. */
function choiceOf(configDir: string, index: SessionIndex, dir: string, chosen: Candidate, all: string[]): ListChoice {
  const exists = somethingAt(listDirOf(configDir, chosen.list));
  const pid = chosen.session.pid;
  const replaced = pid === undefined ? [] : (index.processes().get(pid)?.replaced ?? []);
  return {
    id: chosen.list,
    dir: listDirOf(configDir, chosen.list),
    how: 'project',
    exists,
    session: chosen.session,
    projectDir: dir,
    candidates: all.length > 1 ? all : undefined,
    fresh: exists ? undefined : true,
    replaced: replaced.filter((id) => isDirectory(listDirOf(configDir, id))).reverse(),
    warnings: [],
  };
}

interface Candidate {
  list: string;
  session: SessionInfo;
}

function refusal(configDir: string, dir: string, pool: readonly Candidate[], live: boolean, what: 'a change' | 'a gate'): TasksError {
  const short = shortIds([...new Set([...listIds(configDir), ...pool.map((c) => c.list)])]);
  const lists = [...new Set(pool.map((c) => c.list))];
  // The candidates, with their prompts, are in details: the command line adds what to type for each.
  return new TasksError(
    'usage',
    `${lists.length} lists belong to ${live ? 'live ' : ''}sessions in ${dir}, so ${what} needs its list named`,
    {
      hint: 'tasks lists --here shows them',
      details: { candidates: pool.map((c) => candidateDetails(c, short, configDir)) },
    },
  );
}

function candidateDetails({ list, session }: Candidate, short: Map<string, string>, configDir: string) {
  return {
    list,
    shortId: short.get(list) ?? list,
    // A list a live session has not made yet is named in full: a short id names it only while the session runs.
    pasteId: somethingAt(listDirOf(configDir, list)) ? (short.get(list) ?? list) : list,
    sessionId: session.sessionId,
    state: session.state,
    cwd: session.cwd ?? null,
    prompt: session.prompt ?? null,
    // Sessions of one prompt (a retried job) are told apart by when they were last active.
    lastActivity: session.lastActivity === undefined ? null : new Date(session.lastActivity).toISOString(),
  };
}

/**
 * The current directory, then its ancestors while they are below the home directory (a
 * session run in ~ must not capture every project), or above the root when outside it.
 */
export function projectDirs(cwd: string, home: string): string[] {
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
