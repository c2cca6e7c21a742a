import fs from 'node:fs';
import { TasksError } from '../base/errors.js';
import { LISTS_SHARD } from '../cache/folder-names.js';
import type { Shard } from '../cache/persistent-cache.js';
import { evidenceOf, inShowOrder, sessionsOfList, unsureSessionsOf } from '../sessions/list-sessions.js';
import { liveSessionLists } from '../sessions/live-lists.js';
import type { SessionIndex, SessionInfo } from '../sessions/session-index.js';
import type { Todo } from '../sessions/transcript-tasks.js';
import { listAliases } from '../store/list-aliases.js';
import { readList } from '../store/list-read.js';
import { isListNotAFolder, isMissing } from '../store/not-a-folder.js';
import { listDirOf } from '../store/paths.js';
import type { Status } from '../store/schema.js';
import { isBelow, lastChange } from './list-choice.js';
import { listFolders, tasksEntries } from './list-folders.js';
import { shortIds } from './short-ids.js';
import { cachedSummary, summaryKeys } from './summary-cache.js';

export { type ListChoice, listIds } from './list-choice.js';

export interface ListSummary {
  id: string;
  dir: string;
  counts: Record<Status, number>;
  total: number;
  /** Files agents cannot read. */
  problems: number;
  /** Last change: the newest mtime of its task files and high-water mark, in ms since the epoch. */
  changedAt: number;
}

/**
 * One list's counts, problems and last change, read now (the board's row of a list that
 * changed). With `cache` (the persistent cache's shard of lists), only the task files
 * whose stamps changed since are read again; `cache.once`: the reading this is part of
 * (cache/folder-names.ts).
 */
export function summarizeList(configDir: string, id: string, cache?: { shard: Shard; now: number; once?: object }): ListSummary {
  const dir = listDirOf(configDir, id);
  const counts: Record<Status, number> = { pending: 0, in_progress: 0, completed: 0 };
  try {
    const cached = cache === undefined ? undefined : cachedSummary(dir, id, cache.shard, cache.now, cache.once);
    if (cached !== undefined) return { id, dir, ...cached };
    let total = 0;
    let problems = 0;
    try {
      const snapshot = readList(dir);
      for (const t of snapshot.tasks) counts[t.status]++;
      total = snapshot.tasks.length;
      problems = snapshot.problems.length;
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
    return { id, dir, counts, total, problems, changedAt: lastChange(dir) };
  } catch (err) {
    // A folder this user cannot read (another's, mode 000), or one replaced by a file or a
    // FIFO since the lists were listed, is one problem of its own row: every other list is
    // still shown (`check` names it), and a long-running reader (the board) goes on.
    if (!(err instanceof TasksError && (err.code === 'io' || err.code === 'corrupt')) && !isListNotAFolder(err) && !isDeniedError(err))
      throw err;
    return { id, dir, counts, total: 0, problems: 1, changedAt: folderTime(dir) };
  }
}

/** The folder's own change time (its entry is readable where its contents are not); 0 if not even that. */
function folderTime(dir: string): number {
  try {
    return fs.statSync(dir).mtimeMs;
  } catch {
    return 0;
  }
}

function isDeniedError(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EACCES' || code === 'EPERM';
}

/** Every list once (`aliases`: its other names, list-aliases.ts), newest change first. */
function summarizeLists(
  index: SessionIndex,
  configDir: string,
  listed: readonly string[],
  aliases: ReadonlyMap<string, string>,
): ListSummary[] {
  const shard = index.store.cache?.shard(LISTS_SHARD);
  const cache = shard === undefined ? undefined : { shard, now: index.now(), once: index };
  const ids = listed.filter((id) => !aliases.has(id));
  shard?.retain(summaryKeys(ids));
  return ids.map((id) => summarizeList(configDir, id, cache)).sort((a, b) => b.changedAt - a.changedAt || a.id.localeCompare(b.id));
}

/**
 * A row of `tasks lists`, with the sessions it belongs to (the first is the one to show:
 * live, else the latest). `kind`: `tasks`, a list folder; `new`, the list a live session
 * will write to, before its first task makes the folder; `todowrite`, a session's latest
 * TodoWrite todos (the older system: kept in its transcript, read-only, no folder);
 * `gone`, a list whose folder is gone while its sessions' transcripts remain (counts
 * from the transcripts; `tasks restore` brings it back).
 */
export interface ListOverview extends ListSummary {
  shortId: string;
  sessions: SessionInfo[];
  kind: 'tasks' | 'new' | 'todowrite' | 'gone';
  /** For `todowrite`: the todos. */
  todos?: Todo[] | undefined;
  /**
   * Sessions that worked on this list or on another holding the same tasks, which their
   * transcripts cannot tell apart: not counted as its sessions (sessions/list-evidence.ts).
   */
  unsure?: SessionInfo[] | undefined;
  /** For `gone`: its sessions may have worked on a list named otherwise, and this one may never have existed. */
  mayBeElsewhere?: true | undefined;
  /** For `tasks`: the other names of its folder (symlinks under `tasks/` that reach it: list-aliases.ts), by name. */
  aliases?: string[] | undefined;
}

/**
 * Every list, newest change first, with its sessions (named lists' too: this reads the
 * transcripts of sessions without a list of their own), the live sessions that have no
 * tasks yet, and the sessions that kept TodoWrite todos. `byTranscripts: false`: list
 * folders only, with the sessions their names and live sessions tie them to (no
 * transcript read in full: for a view refreshed as lists change).
 */
export function overviewLists(
  configDir: string,
  index: SessionIndex,
  opts: { byTranscripts?: boolean; entries?: readonly fs.Dirent[] } = {},
): ListOverview[] {
  const deep = opts.byTranscripts ?? true;
  // tasks/ read once, for the names and the links among them alike.
  const entries = opts.entries ?? tasksEntries(configDir);
  const ids = listFolders(configDir, entries).ids;
  const aliases = listAliases(configDir, ids, entries);
  const namesOf = new Map<string, string[]>();
  for (const [alias, of] of aliases) namesOf.set(of, [...(namesOf.get(of) ?? []), alias]);
  const rows: Array<Omit<ListOverview, 'shortId'>> = summarizeLists(index, configDir, ids, aliases).map((l) => {
    const others = namesOf.get(l.id);
    // A live session writing through another name of the folder is one of its sessions too.
    const sessions = [l.id, ...(others ?? [])].flatMap((id) => sessionsOfList(index, id, { deep: deep && id === l.id }));
    return {
      ...l,
      kind: 'tasks',
      sessions: sessionsInShowOrder([...new Map(sessions.map((s) => [s.sessionId, s])).values()]),
      ...(others === undefined ? {} : { aliases: others.sort() }),
    };
  });
  if (!deep) {
    const short = shortIds(rows.map((l) => l.id));
    return rows.map((l) => ({ ...l, shortId: short.get(l.id) ?? l.id }));
  }
  const ordered = new Map<readonly SessionInfo[], SessionInfo[]>();
  for (const row of rows) {
    const unsure = unsureSessionsOf(index, row.id);
    if (unsure.length === 0) continue;
    // Lists that share one set of sessions share its order too.
    let inOrder = ordered.get(unsure);
    if (inOrder === undefined) ordered.set(unsure, (inOrder = sessionsInShowOrder(unsure)));
    row.unsure = inOrder;
  }
  const present = new Set([...rows.map((r) => r.id), ...aliases.keys()]);
  for (const { session, list } of liveSessionLists(index)) {
    if (present.has(list)) continue;
    present.add(list);
    rows.push({ ...emptySummary(list, listDirOf(configDir, list), sessionRowTime(session)), kind: 'new', sessions: [session] });
  }
  for (const [sessionId, todos] of evidenceOf(index).todos) {
    const session = index.session(sessionId);
    if (session === undefined || present.has(sessionId)) continue;
    const summary = emptySummary(sessionId, '', sessionRowTime(session));
    for (const t of todos) summary.counts[t.status]++;
    rows.push({ ...summary, total: todos.length, kind: 'todowrite', sessions: [session], todos });
  }
  rows.sort((a, b) => b.changedAt - a.changedAt || a.id.localeCompare(b.id));
  const short = shortIds(rows.map((l) => l.id));
  return rows.map((l) => ({ ...l, shortId: short.get(l.id) ?? l.id }));
}

/**
 * When a row that is a session (a TodoWrite session, a live session whose list has no
 * folder yet) last changed: its transcript's last entry, as notify and the board date a
 * session's end; not the file's time, which a backup tool or `touch` moves with nothing
 * written. The file's time only where no entry has one.
 */
export function sessionRowTime(s: SessionInfo): number {
  return s.lastEntryAt ?? s.lastActivity ?? 0;
}

/** A list's sessions in the order to show them: the live one first, then the latest. */
export function sessionsInShowOrder(sessions: readonly SessionInfo[]): SessionInfo[] {
  return inShowOrder(sessions);
}

/** A list with no tasks (yet): a live session's before its first, or a session's TodoWrite todos, counted by the caller. */
export function emptySummary(id: string, dir: string, changedAt: number): ListSummary {
  return { id, dir, counts: { pending: 0, in_progress: 0, completed: 0 }, total: 0, problems: 0, changedAt };
}

/** Is `dir` the directory `base` or below it? */
export function isWithin(dir: string, base: string): boolean {
  return dir === base || isBelow(dir, base);
}
