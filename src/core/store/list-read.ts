import fs from 'node:fs';
import path from 'node:path';
import { errnoCode, TasksError } from '../base/errors.js';
import { brokenLink } from './broken-link.js';
import { isTaskId, parseHighWaterMark, sortByIds } from './ids.js';
import { listNotAFolder } from './not-a-folder.js';
import { HIGH_WATER_MARK, idFromFileName } from './paths.js';
import type { Task } from './schema.js';
import { MAX_TASK_FILE_BYTES, readRegularFile, readTaskFile } from './task-file.js';

/**
 * Memory guard for a list as a whole: past this many bytes read, files larger than
 * LARGE_FILE_BYTES are skipped with a reason instead of loaded (real task files are well
 * under a kilobyte), so a folder of thousands of multi-megabyte files degrades instead
 * of running out of memory.
 */
export const LIST_BYTES_BUDGET = 256 * 1024 * 1024;
export const LARGE_FILE_BYTES = 64 * 1024;

/** A file in a list folder that agents would try to read as a task, but cannot. */
export interface FileProblem {
  file: string;
  reason: string;
}

export interface ListSnapshot {
  tasks: Task[];
  problems: FileProblem[];
  /** Each task's file mtime (ms), when asked for (`times: true`): the change time JSON output carries. */
  times?: Map<string, number>;
}

/**
 * Read every task of a list, without locks (as agents read). Files that fail to parse
 * or validate are reported, never thrown: one bad file must not hide the others.
 * Sync I/O on purpose: for many small files it is several times faster than promises.
 */
export function readList(listDir: string, opts: { times?: boolean } = {}): ListSnapshot {
  let names: string[];
  try {
    names = fs.readdirSync(listDir);
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOENT' || code === 'ELOOP') {
      // A link in the folder's place that leads nowhere is said as what it is.
      const broken = brokenLink(listDir);
      if (broken !== undefined) throw new TasksError(code === 'ELOOP' ? 'io' : 'not_found', `list folder ${listDir} is ${broken}`);
    }
    if (code === 'ENOENT') throw new TasksError('not_found', `list folder ${listDir} does not exist`);
    if (code === 'ENOTDIR') throw listNotAFolder(listDir);
    throw new TasksError('io', `cannot read ${listDir}: ${(err as Error).message}`, { cause: err });
  }
  const tasks: Task[] = [];
  const problems: FileProblem[] = [];
  const times = opts.times ? new Map<string, number>() : undefined;
  let bytesRead = 0;
  // Plain concatenation: path.join normalizes each of thousands of paths (10 ms per 10,000).
  const prefix = listDir.endsWith(path.sep) ? listDir : `${listDir}${path.sep}`;
  for (const name of names) {
    // Claude Code reads every *.json; dot-files are our temp files' namespace.
    if (!name.endsWith('.json') || name.startsWith('.')) continue;
    const limit = bytesRead > LIST_BYTES_BUDGET ? LARGE_FILE_BYTES : MAX_TASK_FILE_BYTES;
    const result = readTaskFile(prefix + name, limit, times !== undefined);
    if (result.kind === 'ok') {
      const task = namedByFile(result.task, idFromFileName(name));
      tasks.push(task);
      if (times !== undefined && result.mtimeMs !== undefined) times.set(task.id, result.mtimeMs);
      bytesRead += result.bytes ?? 0;
    } else if (result.kind === 'invalid') {
      const degraded = limit < MAX_TASK_FILE_BYTES && result.reason.includes('limit');
      const reason = degraded ? `${result.reason} (over ${LIST_BYTES_BUDGET} bytes of tasks loaded already)` : result.reason;
      problems.push({ file: name, reason });
    }
    // 'missing': deleted between readdir and read (deletes take no lock); not a problem.
  }
  sortByIds(tasks);
  return times === undefined ? { tasks, problems } : { tasks, problems, times };
}

/**
 * A task is the id of its file (docs/task-store.md section 3): agents address it by the
 * file name and their next write of it puts that id inside. An `id` inside that differs
 * (a hand edit, a copied file) is shown as the file's, so that two files never show as
 * one id; `tasks check` reports the difference (id_mismatch). Names that are not ids keep
 * theirs.
 */
export function namedByFile(task: Task, fileId: string | undefined): Task {
  return fileId === undefined || task.id === fileId ? task : { ...task, id: fileId };
}

/** Ids taken by files: every numeric `<n>.json`, valid or not (a corrupt file still holds its id). */
export function fileIds(listDir: string): string[] {
  const ids: string[] = [];
  for (const name of fs.readdirSync(listDir)) {
    const id = idFromFileName(name);
    if (id !== undefined) ids.push(id);
  }
  return ids;
}

/**
 * The mark as agents read it (unreadable or absent: 0). Read like a task file: never
 * through a symlink, never from a FIFO or device, never more than a few bytes.
 */
export function readHighWaterMark(listDir: string): bigint {
  const read = readRegularFile(path.join(listDir, HIGH_WATER_MARK), 300);
  return read.kind === 'text' ? parseHighWaterMark(read.text) : 0n;
}

/**
 * Was this id handed out, and is its task's file gone (docs/task-store.md section 4: ids are
 * never handed out twice)? The high-water mark reached it (raised when a task is deleted or
 * a list reset), or a higher id has a file (ids are handed out in order, one file written
 * after another). A folder that cannot be read: nothing is known (false).
 */
export function idRetired(listDir: string, id: string): boolean {
  if (!isTaskId(id)) return false;
  let ids: string[];
  try {
    ids = fileIds(listDir);
  } catch {
    return false;
  }
  if (ids.includes(id)) return false;
  const n = BigInt(id);
  if (readHighWaterMark(listDir) >= n) return true;
  return ids.some((other) => isTaskId(other) && BigInt(other) > n);
}

/**
 * Read just these tasks (a task's blockers and dependents, say) instead of the whole
 * list. Ids come from files, so anything that is not a plain task id is passed over:
 * "../x" must never become a path. Missing and unreadable ones are left out.
 */
export function readTasks(listDir: string, ids: readonly string[]): Task[] {
  const tasks: Task[] = [];
  for (const id of new Set(ids)) {
    if (!isTaskId(id)) continue;
    const result = readTaskFile(path.join(listDir, `${id}.json`));
    if (result.kind === 'ok') tasks.push(namedByFile(result.task, id));
  }
  return tasks;
}
