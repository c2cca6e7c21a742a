import fs from 'node:fs';
import path from 'node:path';
import { TasksError, errnoCode } from './errors.js';
import { validateTask, type Task } from './schema.js';
import { serializeTask } from './serialize.js';

/**
 * Reading and writing one task file.
 *
 * Claude Code writes with a plain writeFile (truncate, then write), so a reader can
 * meet an empty or half-written file. We retry those a few times before calling the
 * file corrupt. We write the other way round: a temp file that agents ignore, fsync,
 * rename, so nobody ever reads a torn file of ours.
 */

export type ReadResult =
  | { kind: 'ok'; task: Task }
  | { kind: 'missing' }
  | { kind: 'invalid'; reason: string };

/** Above this a "task" is not something an agent wrote; refuse rather than load it. */
export const MAX_TASK_FILE_BYTES = 8 * 1024 * 1024;

const RETRY_DELAYS_MS = [2, 4, 8, 16];
const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

export function readTaskFile(file: string): ReadResult {
  let lastReason = 'empty file';
  for (let attempt = 0; ; attempt++) {
    let text: string;
    try {
      const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
      try {
        const size = fs.fstatSync(fd).size;
        if (size > MAX_TASK_FILE_BYTES) {
          return { kind: 'invalid', reason: `file is ${size} bytes, over the ${MAX_TASK_FILE_BYTES}-byte limit` };
        }
        text = fs.readFileSync(fd, 'utf8');
      } finally {
        fs.closeSync(fd);
      }
    } catch (err) {
      const code = errnoCode(err);
      if (code === 'ENOENT') return { kind: 'missing' };
      if (code === 'ELOOP') return { kind: 'invalid', reason: 'is a symbolic link; task files must be regular files' };
      if (code === 'EISDIR') return { kind: 'invalid', reason: 'is a directory, not a file' };
      if (code === 'EACCES' || code === 'EPERM') return { kind: 'invalid', reason: 'permission denied' };
      throw new TasksError('io', `cannot read ${file}: ${(err as Error).message}`, { cause: err });
    }
    let parsed: unknown;
    let parsedOk = false;
    if (text.length > 0) {
      try {
        parsed = JSON.parse(text);
        parsedOk = true;
      } catch (err) {
        lastReason = `not valid JSON (${(err as Error).message})`;
      }
    }
    if (parsedOk) {
      const result = validateTask(parsed);
      return result.ok ? { kind: 'ok', task: result.task } : { kind: 'invalid', reason: result.reason };
    }
    // Empty or unparsable: maybe an agent is half-way through a write.
    const delay = RETRY_DELAYS_MS[attempt];
    if (delay === undefined) return { kind: 'invalid', reason: lastReason };
    sleepSync(delay);
  }
}

/**
 * Write `content` to `file` atomically: a dot-prefixed temp name that does not end in
 * `.json` (agents count every *.json as a task), fsync, rename. Call under the lock that
 * guards `file`. Mode follows the umask, as Claude Code's writeFile does.
 */
export function writeFileAtomic(file: string, content: string): void {
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`);
  refuseSymlink(file);
  let fd: number | undefined;
  try {
    fd = fs.openSync(tmp, 'wx', 0o666);
    fs.writeSync(fd, content);
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(tmp, file);
  } catch (err) {
    if (fd !== undefined) fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw new TasksError('io', `cannot write ${file}: ${(err as Error).message}`, { cause: err });
  }
}

/** A symlinked task file could point anywhere; we never write through one (or replace it). */
function refuseSymlink(file: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch {
    return;
  }
  if (stat.isSymbolicLink()) {
    throw new TasksError('corrupt', `${path.basename(file)} is a symbolic link; refusing to write through it`);
  }
  if (!stat.isFile()) {
    throw new TasksError('corrupt', `${path.basename(file)} is not a regular file; refusing to replace it`);
  }
}

export function writeTaskFile(file: string, task: Task): void {
  writeFileAtomic(file, serializeTask(task));
}
