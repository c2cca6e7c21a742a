import { TasksError } from '../base/errors.js';
import type { SessionIndex, SessionInfo } from '../sessions/session-index.js';
import { readList } from '../store/list-read.js';
import { listDirOf } from '../store/paths.js';
import type { Status } from '../store/schema.js';
import { isBelow, lastChange, listIds } from './list-choice.js';
import { shortIds } from './short-ids.js';

export { type ListChoice, listFolders, listIds } from './list-choice.js';

export interface ListSummary {
  id: string;
  dir: string;
  counts: Record<Status, number>;
  total: number;
  /** Files agents cannot read. */
  problems: number;
  /** Last change: newest mtime of the folder and its task files, in ms since the epoch. */
  changedAt: number;
}

/** One list's counts, problems and last change, read now (the board's row of a list that changed). */
export function summarizeList(configDir: string, id: string): ListSummary {
  const dir = listDirOf(configDir, id);
  const counts: Record<Status, number> = { pending: 0, in_progress: 0, completed: 0 };
  let total = 0;
  let problems = 0;
  try {
    const snapshot = readList(dir);
    for (const t of snapshot.tasks) counts[t.status]++;
    total = snapshot.tasks.length;
    problems = snapshot.problems.length;
  } catch (err) {
    if (!(err instanceof TasksError && err.code === 'not_found')) throw err;
  }
  return { id, dir, counts, total, problems, changedAt: lastChange(dir) };
}

function summarizeLists(configDir: string): ListSummary[] {
  return listIds(configDir)
    .map((id) => summarizeList(configDir, id))
    .sort((a, b) => b.changedAt - a.changedAt || a.id.localeCompare(b.id));
}

/** A list with the sessions it belongs to: the first is the one to show (live, else the latest). */
export interface ListOverview extends ListSummary {
  shortId: string;
  sessions: SessionInfo[];
}

/** A list's sessions in the order to show them: the live one first, then the latest. */
export function sessionsInShowOrder(sessions: readonly SessionInfo[]): SessionInfo[] {
  return [...sessions].sort(
    (a, b) => Number(b.state === 'live') - Number(a.state === 'live') || (b.lastActivity ?? 0) - (a.lastActivity ?? 0),
  );
}

/** Every list, newest change first, with its sessions and its short id. */
export function overviewLists(configDir: string, index: SessionIndex): ListOverview[] {
  const lists = summarizeLists(configDir);
  const short = shortIds(lists.map((l) => l.id));
  return lists.map((l) => ({
    ...l,
    shortId: short.get(l.id) ?? l.id,
    sessions: sessionsInShowOrder(index.sessionsOfList(l.id)),
  }));
}

/** Is `dir` the directory `base` or below it? */
export function isWithin(dir: string, base: string): boolean {
  return dir === base || isBelow(dir, base);
}
