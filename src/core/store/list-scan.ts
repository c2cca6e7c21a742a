import fs from 'node:fs';
import path from 'node:path';
import { errnoCode, TasksError } from '../base/errors.js';
import { brokenLink } from './broken-link.js';
import { LARGE_FILE_BYTES, LIST_BYTES_BUDGET } from './list-read.js';
import { listNotAFolder } from './not-a-folder.js';
import { HIGH_WATER_MARK, idFromFileName, LIST_LOCK_TARGET } from './paths.js';
import type { Task } from './schema.js';
import { type InvalidCause, MAX_TASK_FILE_BYTES, readRegularFile, readTaskFile } from './task-file.js';

/**
 * Everything `check` looks at in one list folder, gathered without locks (as agents
 * read). The findings are then decided by a pure function (check/findings.ts) from this value.
 */

export type EntryType = 'file' | 'directory' | 'symlink' | 'other';

export interface ScannedTaskFile {
  /** The name in the folder: `7.json`, or any other `*.json`. */
  name: string;
  /** The id its name gives (`7.json` -> `7`); undefined for names that are not ids. */
  fileId: string | undefined;
  type: EntryType;
  /** Where a symlink points (as written in the link). */
  linkTarget?: string;
  mtimeMs: number;
  read: { kind: 'ok'; task: Task } | { kind: 'invalid'; reason: string; cause: InvalidCause };
}

export interface ScannedLock {
  /** `.lock.lock` or `<id>.json.lock` */
  name: string;
  type: EntryType;
  mtimeMs: number;
  /** Only meaningful for a directory. */
  empty: boolean;
}

export interface ScannedTemp {
  name: string;
  /** The file the temp file was to replace (`7.json`, `.highwatermark`). */
  target: string;
  mtimeMs: number;
}

export type ScannedMark = { kind: 'absent' } | { kind: 'text'; text: string } | { kind: 'invalid'; reason: string; type: EntryType };

export interface ListScan {
  dir: string;
  taskFiles: ScannedTaskFile[];
  locks: ScannedLock[];
  temps: ScannedTemp[];
  /** Names of files moved aside by `check --fix` (`7.json.corrupt-...`): their ids were used. */
  setAside: string[];
  mark: ScannedMark;
  /** The list lock's target, `.lock`; a symlink there would move the lock elsewhere. */
  lockTarget: EntryType | 'absent';
}

/** Our temp files: `.<name>.<pid>.<random>.tmp` (task-file.ts writeFileAtomic). */
const TEMP_FILE = /^\.(.+)\.(\d+)\.([a-z0-9]+)\.tmp$/;
/** Files moved aside by `check --fix`. */
export const SET_ASIDE = /^([1-9][0-9]*)\.json\.corrupt-/;

function entryType(st: fs.Stats): EntryType {
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isDirectory()) return 'directory';
  if (st.isFile()) return 'file';
  return 'other';
}

function lstat(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch {
    return undefined;
  }
}

function isEmptyDir(dir: string): boolean {
  try {
    return fs.readdirSync(dir).length === 0;
  } catch {
    return true;
  }
}

export function scanList(listDir: string): ListScan {
  let names: string[];
  try {
    names = fs.readdirSync(listDir).sort();
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
  const scan: ListScan = {
    dir: listDir,
    taskFiles: [],
    locks: [],
    temps: [],
    setAside: [],
    mark: { kind: 'absent' },
    lockTarget: 'absent',
  };
  let bytesRead = 0; // the same memory guard as readList
  for (const name of names) {
    const file = path.join(listDir, name);
    const st = lstat(file);
    if (st === undefined) continue; // gone since readdir
    const type = entryType(st);
    if (name === LIST_LOCK_TARGET) {
      scan.lockTarget = type;
    } else if (name.endsWith('.lock')) {
      scan.locks.push({ name, type, mtimeMs: st.mtimeMs, empty: type === 'directory' ? isEmptyDir(file) : true });
    } else if (name === HIGH_WATER_MARK) {
      const read = readRegularFile(file, 64);
      if (read.kind === 'text') scan.mark = { kind: 'text', text: read.text };
      else if (read.kind === 'invalid') scan.mark = { kind: 'invalid', reason: read.reason, type };
    } else if (TEMP_FILE.test(name)) {
      scan.temps.push({ name, target: (TEMP_FILE.exec(name) as RegExpExecArray)[1] as string, mtimeMs: st.mtimeMs });
    } else if (SET_ASIDE.test(name)) {
      scan.setAside.push(name);
    } else if (name.endsWith('.json') && !name.startsWith('.')) {
      const read = readTaskFile(file, bytesRead > LIST_BYTES_BUDGET ? LARGE_FILE_BYTES : MAX_TASK_FILE_BYTES);
      if (read.kind === 'missing') continue;
      if (read.kind === 'ok') bytesRead += read.bytes ?? 0;
      let linkTarget: string | undefined;
      if (type === 'symlink') {
        try {
          linkTarget = fs.readlinkSync(file);
        } catch {
          linkTarget = undefined;
        }
      }
      scan.taskFiles.push({
        name,
        fileId: idFromFileName(name),
        type,
        ...(linkTarget !== undefined ? { linkTarget } : {}),
        mtimeMs: st.mtimeMs,
        read:
          read.kind === 'ok' ? { kind: 'ok', task: read.task } : { kind: 'invalid', reason: read.reason, cause: read.cause ?? 'schema' },
      });
    }
  }
  return scan;
}
