import fs from 'node:fs';
import path from 'node:path';
import { readOpenFile } from '../base/bounded-read.js';
import { errnoCode, TasksError } from '../base/errors.js';
import { MAX_JSON_DEPTH, nestingExceeds } from '../base/json-depth.js';
import { openFileMtimeMs } from '../base/open-file-mtime.js';
import { fileCalls } from '../base/open-read-close.js';
import { isKnownKey, type Task, validateTask } from './schema.js';
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
  | { kind: 'ok'; task: Task /** bytes read */; bytes?: number /** the file's mtime, when asked for */; mtimeMs?: number }
  | { kind: 'missing' }
  | { kind: 'invalid'; reason: string; cause?: InvalidCause };

/**
 * Why a file is not a task: not JSON, JSON but not the schema, too big (or too deeply
 * nested) for us to load safely, not a regular file, unreadable.
 */
export type InvalidCause = 'json' | 'schema' | 'size' | 'type' | 'access';

/** Above this a "task" is not something an agent wrote; refuse rather than load it. */
export const MAX_TASK_FILE_BYTES = 8 * 1024 * 1024;

const RETRY_DELAYS_MS = [2, 4, 8, 16];
/**
 * While the task's lock is held (its `<id>.json.lock` folder exists), the writer that holds
 * it may be half-way through its write, however slow a loaded machine makes it: keep
 * reading, every LOCKED_RETRY_MS, for up to LOCKED_RETRY_BUDGET_MS in all. An empty file
 * nobody is writing is called corrupt after the short retries alone.
 */
const LOCKED_RETRY_MS = 16;
const LOCKED_RETRY_BUDGET_MS = 2_000;
const LOCK_STALE_MS = 10_000;
const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/**
 * Read and validate one task file. Never throws for a bad file: everything about the
 * file itself (a symlink, a FIFO, a directory, too big, unreadable) is an `invalid`
 * result with a reason, so one hostile file cannot stop a listing. `maxBytes` lets a
 * caller reading many files lower the limit once it has read a lot.
 */
export function readTaskFile(file: string, maxBytes: number = MAX_TASK_FILE_BYTES, withTime = false): ReadResult {
  const quick = quickRead(file, maxBytes, withTime);
  if (quick !== undefined) {
    const result = taskFromText(quick.text);
    if (result?.kind === 'ok') {
      // The result is this read's own object: adding the time to it saves a copy a file.
      if (quick.mtimeMs !== undefined) result.mtimeMs = quick.mtimeMs;
      return result;
    }
  }
  let lastReason = 'empty file';
  for (let attempt = 0; ; attempt++) {
    const read = readRegularFile(file, maxBytes);
    if (read.kind !== 'text') return read;
    const result = taskFromText(read.text);
    if (result !== undefined) return result.kind === 'ok' && withTime ? { ...result, mtimeMs: read.mtimeMs } : result;
    if (read.text.length > 0) lastReason = jsonError(read.text);
    // Empty or unparsable: maybe an agent is half-way through a write.
    const delay =
      RETRY_DELAYS_MS[attempt] ??
      (attempt - RETRY_DELAYS_MS.length < LOCKED_RETRY_BUDGET_MS / LOCKED_RETRY_MS && lockHeld(file) ? LOCKED_RETRY_MS : undefined);
    if (delay === undefined) return { kind: 'invalid', reason: lastReason, cause: 'json' };
    sleepSync(delay);
  }
}

/**
 * Is the task's lock held now: proper-lockfile's lock folder beside the file, its time
 * refreshed by its holder within the stale limit (10 s, Claude Code's too)? A stale one,
 * left by a writer that crashed, is nobody writing.
 */
function lockHeld(file: string): boolean {
  try {
    const lock = fs.statSync(`${file}.lock`, { throwIfNoEntry: false });
    return lock?.isDirectory() === true && lock.mtimeMs > Date.now() - LOCK_STALE_MS;
  } catch {
    return false;
  }
}

/** The task in a file's text; undefined when the text is empty or not JSON (worth a retry). */
function taskFromText(text: string): ReadResult | undefined {
  if (text.length === 0) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const result = validateTask(parsed);
  if (!result.ok) return { kind: 'invalid', reason: result.reason, cause: 'schema' };
  if (mayNestTooDeep(text) && tooDeep(result.task))
    return { kind: 'invalid', reason: `nested deeper than ${MAX_JSON_DEPTH} levels`, cause: 'size' };
  return { kind: 'ok', task: result.task, bytes: text.length };
}

function jsonError(text: string): string {
  try {
    JSON.parse(text);
    return 'not valid JSON';
  } catch (err) {
    return `not valid JSON (${(err as Error).message})`;
  }
}

/**
 * Nesting past the limit takes that many opening brackets: a text with fewer (nearly
 * every task file, with two or three) cannot hold it, and is not walked key by key.
 * Brackets inside strings count too, so this errs only towards walking.
 */
function mayNestTooDeep(text: string): boolean {
  let brackets = 0;
  for (const open of ['{', '[']) {
    for (let at = text.indexOf(open); at !== -1; at = text.indexOf(open, at + 1)) {
      if (++brackets >= MAX_JSON_DEPTH) return true;
    }
  }
  return false;
}

/** Only metadata and unknown keys are free-form; the rest the schema has already bounded. */
function tooDeep(task: Task): boolean {
  for (const key in task) {
    if (key !== 'metadata' && isKnownKey(key)) continue;
    const value = (task as Record<string, unknown>)[key];
    if (typeof value === 'object' && value !== null && nestingExceeds(value, MAX_JSON_DEPTH - 1)) return true;
  }
  return false;
}

/** Task files are a few hundred bytes; one buffer this size serves every quick read. */
const QUICK_READ_BYTES = 64 * 1024;
let quickBuffer: Buffer | undefined;
/**
 * What `toString('utf8', start, end)` calls once it has checked its arguments (Node 20, 22,
 * 24): 0.3-0.8 ms less a 1,000 files in a single run, where V8 interprets those checks.
 */
const utf8Slice = (Buffer.prototype as { utf8Slice?: (start: number, end: number) => string }).utf8Slice;
const READ_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

/**
 * The common case, made cheap for listings of thousands of files: a small file read
 * with one open (never through a symlink, never waiting on a FIFO), one read into a
 * shared buffer and a close; no buffer per file, and never more than the buffer, whatever
 * the file has become since anyone looked at it (a whole-file read after a size check
 * can be handed a file of gigabytes in between). Undefined whenever anything is unusual
 * (an error, nothing read, a full buffer): readRegularFile then reads the file again,
 * checks what it is and says why it is not a task.
 */
function quickRead(file: string, maxBytes: number, withTime: boolean): { text: string; mtimeMs?: number } | undefined {
  const calls = fileCalls();
  let fd: number;
  try {
    fd = calls.open(file, READ_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const buffer = (quickBuffer ??= Buffer.allocUnsafe(QUICK_READ_BYTES));
    const n = calls.read(fd, buffer, 0, buffer.length, 0);
    // A short read of a regular file is all of it; a full buffer may not be.
    if (!(n > 0 && n < buffer.length && n <= maxBytes)) return undefined;
    const text = utf8Slice ? utf8Slice.call(buffer, 0, n) : buffer.toString('utf8', 0, n);
    // The change time JSON output carries: one fstat of the open file, only when asked.
    return withTime ? { text, mtimeMs: openFileMtimeMs(fd) } : { text };
  } catch {
    return undefined;
  } finally {
    calls.close(fd);
  }
}

/**
 * The bytes of a regular file, refusing what is not one: O_NOFOLLOW (a symlink could point
 * anywhere), O_NONBLOCK (opening a FIFO would otherwise wait forever for a writer), and
 * a size check before reading (a huge file, or a device, must not exhaust memory).
 */
/** Do the folders on the way to `file` loop (links to each other), so that not even its own entry can be looked at? */
function pathLoops(file: string): boolean {
  try {
    fs.lstatSync(file);
    return false;
  } catch (err) {
    return errnoCode(err) === 'ELOOP';
  }
}

export function readRegularFile(
  file: string,
  maxBytes: number,
): { kind: 'text'; text: string; mtimeMs: number } | { kind: 'missing' } | { kind: 'invalid'; reason: string; cause: InvalidCause } {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    // ELOOP: the file is a link (O_NOFOLLOW), or links on the way to it loop: then it is not there.
    if (code === 'ELOOP' && !pathLoops(file))
      return { kind: 'invalid', reason: 'is a symbolic link; task files must be regular files', cause: 'type' };
    if (code === 'ELOOP') return { kind: 'missing' };
    if (code === 'EISDIR') return { kind: 'invalid', reason: 'is a directory, not a file', cause: 'type' };
    if (code === 'EACCES' || code === 'EPERM') return { kind: 'invalid', reason: 'permission denied', cause: 'access' };
    if (code === 'ENXIO') return { kind: 'invalid', reason: 'is a socket or device, not a file', cause: 'type' };
    return { kind: 'invalid', reason: `cannot be read (${code ?? (err as Error).message})`, cause: 'access' };
  }
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isDirectory()) return { kind: 'invalid', reason: 'is a directory, not a file', cause: 'type' };
    if (!stat.isFile()) return { kind: 'invalid', reason: 'is not a regular file (a FIFO, socket or device)', cause: 'type' };
    if (stat.size > maxBytes) {
      return { kind: 'invalid', reason: `file is ${stat.size} bytes, over the ${maxBytes}-byte limit`, cause: 'size' };
    }
    const text = readOpenFile(fd, stat.size, maxBytes);
    if (text === undefined) return { kind: 'invalid', reason: `file is over the ${maxBytes}-byte limit`, cause: 'size' };
    return { kind: 'text', text, mtimeMs: stat.mtimeMs };
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'EISDIR') return { kind: 'invalid', reason: 'is a directory, not a file', cause: 'type' };
    return { kind: 'invalid', reason: `cannot be read (${code ?? (err as Error).message})`, cause: 'access' };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Write `content` to `file` atomically: a dot-prefixed temp name that does not end in
 * `.json` (agents count every *.json as a task), fsync, rename. Call under the lock that
 * guards `file`. Mode follows the umask, as Claude Code's writeFile does.
 */
export function writeFileAtomic(file: string, content: string, opts: WriteOptions = {}): void {
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
    // Dated before it takes its name: no reader ever sees the file under another time.
    if (opts.mtime !== undefined) fs.utimesSync(tmp, new Date(opts.mtime), new Date(opts.mtime));
    opts.beforePublish?.();
    if (opts.createOnly) publishNew(tmp, file);
    else fs.renameSync(tmp, file);
  } catch (err) {
    if (fd !== undefined) fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    if (err instanceof TasksError) throw err;
    throw new TasksError('io', `cannot write ${file}: ${(err as Error).message}`, { cause: err });
  }
}

export interface WriteOptions {
  /** The file is new: never replace one of that name (see publishNew). */
  createOnly?: boolean;
  /** Called once the content is on disk under its temp name, just before it takes the file's name. */
  beforePublish?: () => void;
  /** The file's modification time (ms) instead of now: a task restored keeps the time its record last changed it. */
  mtime?: number | undefined;
}

/** Where the file system has no hard links, a new file is published by rename as before. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK']);

/**
 * Give a written temp file its name only if nothing has that name yet: link(2) fails
 * with EEXIST where rename(2) would replace. A task file that appeared after its id was
 * allocated was written by someone who took the list lock at the same moment (two
 * processes breaking one stale lock can both get it, a proper-lockfile race that agents
 * share); it is never overwritten. Throws `id_taken`.
 */
function publishNew(tmp: string, file: string): void {
  try {
    fs.linkSync(tmp, file);
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'EEXIST') {
      throw new TasksError('conflict', `${path.basename(file)} was created by another writer at the same moment; it was left as it is`, {
        details: { file: path.basename(file), reason: 'id_taken' },
      });
    }
    if (code === undefined || !NO_HARD_LINKS.has(code)) throw err;
    fs.renameSync(tmp, file);
    return;
  }
  fs.rmSync(tmp, { force: true });
}

/** A new task's id was taken by another writer before its file was published. */
export function isIdTaken(err: unknown): boolean {
  return err instanceof TasksError && err.details?.reason === 'id_taken';
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

/** Refuses a task that would exceed the read limit: we must never write a file we would then refuse to read. */
export function writeTaskFile(file: string, task: Task, opts: WriteOptions = {}): void {
  if (tooDeep(task)) throw new TasksError('usage', `task #${task.id} would nest deeper than ${MAX_JSON_DEPTH} levels; nothing written`);
  const text = serializeTask(task);
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_TASK_FILE_BYTES) {
    throw new TasksError('usage', `task #${task.id} would be ${bytes} bytes, over the ${MAX_TASK_FILE_BYTES}-byte limit; nothing written`);
  }
  writeFileAtomic(file, text, opts);
}
