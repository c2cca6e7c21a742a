import fs from 'node:fs';
import { errnoCode, TasksError } from '../base/errors.js';
import { type FileProblem, readList } from '../store/list-read.js';
import { isListNotAFolder, isMissing } from '../store/not-a-folder.js';
import { idFromFileName } from '../store/paths.js';
import type { Task } from '../store/schema.js';
import { snapshotOf, type TaskSnapshot } from './watch-diff.js';

/** What one rescan of a list folder saw. */
export interface ScanResult {
  exists: boolean;
  /** The folder's identity, to notice it was removed and made again. */
  inode: string | undefined;
  snapshot: Map<string, Task>;
  problems: FileProblem[];
  /** Each task's file mtime (ms); a last good version kept for an unreadable file keeps its time. */
  times: Map<string, number>;
  /** Not there as a folder, but a symbolic link is in its place (to nothing, or a loop): what it is, in words. */
  dangling?: string | undefined;
}

/**
 * Pure: the snapshot to believe after a scan. A file that stayed unparsable through
 * readList's retries (an agent's plain writeFile caught half-way, or a broken file) is
 * neither a change nor a deletion: its last good version stands until it reads again.
 */
export function keepLastGood(previous: TaskSnapshot, tasks: readonly Task[], problems: readonly FileProblem[]): Map<string, Task> {
  const next = snapshotOf(tasks);
  for (const p of problems) {
    const id = idFromFileName(p.file);
    const last = id === undefined ? undefined : previous.get(id);
    if (last && !next.has(last.id)) next.set(last.id, last);
  }
  return next;
}

/**
 * Read the folder (no lock, as agents read). A folder that does not exist is an empty
 * list that may appear later; any other error is thrown.
 */
export function scanList(dir: string, previous: TaskSnapshot, previousTimes: ReadonlyMap<string, number> = new Map()): ScanResult {
  let inode: string;
  try {
    const st = fs.statSync(dir);
    inode = `${st.dev}:${st.ino}`;
  } catch (err) {
    return { exists: false, inode: undefined, snapshot: new Map(), problems: [], times: new Map(), dangling: danglingLink(dir, err) };
  }
  try {
    const { tasks, problems, times = new Map<string, number>() } = readList(dir, { times: true });
    const snapshot = keepLastGood(previous, tasks, problems);
    for (const id of snapshot.keys()) {
      const kept = previousTimes.get(id);
      if (!times.has(id) && kept !== undefined) times.set(id, kept);
    }
    return { exists: true, inode, snapshot, problems, times };
  } catch (err) {
    // Removed between the stat and the read.
    if (isMissing(err)) {
      return { exists: false, inode: undefined, snapshot: new Map(), problems: [], times: new Map() };
    }
    throw err;
  }
}

/** A symbolic link where the folder should be, that leads to nothing (or loops): a missing folder to stat, yet something is there. */
function danglingLink(dir: string, err: unknown): string | undefined {
  try {
    if (!fs.lstatSync(dir).isSymbolicLink()) return undefined;
  } catch {
    return undefined;
  }
  return errnoCode(err) === 'ELOOP' ? 'a symbolic link loop' : 'a symbolic link to nothing';
}

/**
 * For an error of scanList: what the list's path is, in words, when the error says it is
 * there but is no folder this user can read (a FIFO or a file in its place, mode 000);
 * undefined for any other error.
 */
export function unreadableAs(dir: string, err: unknown): string | undefined {
  if (!(err instanceof TasksError)) return undefined;
  if (err.code === 'io') {
    const code = errnoCode(err.cause);
    return code === 'EACCES' || code === 'EPERM' ? 'a folder this user cannot read' : undefined;
  }
  if (err.code !== 'corrupt' && !isListNotAFolder(err)) return undefined;
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(dir);
  } catch {
    // Gone since: the next scan sees it missing.
  }
  if (st?.isFIFO()) return 'a FIFO';
  if (st?.isFile()) return 'a file';
  if (st?.isSocket()) return 'a socket';
  if (st?.isCharacterDevice() || st?.isBlockDevice()) return 'a device';
  return 'no folder';
}
