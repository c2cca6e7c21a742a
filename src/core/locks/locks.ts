/**
 * The agents' lock protocol (docs/task-store.md section 5): proper-lockfile with Claude
 * Code's exact options on the list lock (`.lock`), task locks (`<id>.json`) and team
 * inboxes, with liveness checks so that a lock lost mid-change is noticed before a write.
 */
import fs from 'node:fs';
import path from 'node:path';
import { errnoCode, TasksError } from '../base/errors.js';
import { compareIds } from '../store/ids.js';
import { missingTask } from '../store/missing-task.js';
import { isMissing, listNotAFolder } from '../store/not-a-folder.js';
import { LIST_LOCK_TARGET, taskPath } from '../store/paths.js';
import { acquireLock, lockNotAFolder } from './lock-acquire.js';
import { holdingLock, lockFs } from './lock-activity.js';

/**
 * Claude Code's locks (docs/task-store.md section 5): proper-lockfile with exactly these
 * options, so that we and the agents queue for the same `mkdir` locks the same way. About
 * 2.6 s of waiting in all before giving up.
 */
export const CLAUDE_LOCK_OPTIONS = { retries: { retries: 30, minTimeout: 5, maxTimeout: 100 } } as const;

/**
 * The inbox lock of agent teams (docs/task-store.md section 8), as Claude Code 2.1.328
 * takes it: `lockfilePath: <inbox>.lock` and this retry object (about 1 s of waiting in
 * all). A "retries: 10" in Claude Code is this object: a bare number would make
 * proper-lockfile wait 1 s, 2 s, 4 s... (its defaults), which is not what the agents do.
 */
export const INBOX_LOCK_RETRIES = { retries: 10, minTimeout: 5, maxTimeout: 100 } as const;

interface LockOptions {
  retries: { readonly retries: number; readonly minTimeout: number; readonly maxTimeout: number };
  lockfilePath?: string;
}

/**
 * Run `fn` while holding the proper-lockfile lock on `target`. The lock is released
 * whatever happens. If the lock is compromised (stolen as stale, or its heartbeat
 * failed) `fn` is told through `stillHeld()` so it can refuse to write.
 */
async function withLock<T>(
  target: string,
  what: string,
  fn: (stillHeld: () => boolean) => T | Promise<T>,
  options: LockOptions = CLAUDE_LOCK_OPTIONS,
): Promise<T> {
  refuseUnusableLock(options.lockfilePath ?? `${target}.lock`, what);
  let compromised = false;
  let release: () => Promise<void>;
  // Loaded on first use: proper-lockfile installs exit handlers, read-only commands need none of it.
  const { default: lockfile } = await import('proper-lockfile');
  try {
    // Claude's retries first; then, for a lock that looks abandoned, up to the stale time.
    release = await acquireLock(
      lockfile,
      target,
      {
        ...options,
        // Counted while under way, so an interrupt never lands between mkdir and bookkeeping.
        fs: lockFs(),
        // The default throws from a timer and kills the process.
        onCompromised: () => {
          compromised = true;
        },
      },
      what,
    );
  } catch (err) {
    if (err instanceof TasksError) throw err;
    const code = errnoCode(err);
    if (code === 'ENOENT') throw new TasksError('not_found', `${what} does not exist`);
    throw new TasksError('io', `cannot lock ${what}: ${(err as Error).message}`, { cause: err });
  }
  return holdingLock(async () => {
    try {
      return await fn(() => !compromised);
    } finally {
      try {
        await release();
      } catch {
        // Already released or compromised: nothing of ours is left to clean up.
      }
    }
  });
}

/**
 * A lock no wait can get past: anything but a folder where the lock's folder belongs. A file
 * there: the retries (about 2.6 s) would only end in the same refusal. A symbolic link:
 * proper-lockfile stats the lock directory through it, and would fail with a raw errno
 * (looping) or lock somewhere else (a folder elsewhere). Agents never make either.
 */
function refuseUnusableLock(lockDir: string, what: string): void {
  const found = fs.lstatSync(lockDir, { throwIfNoEntry: false });
  if (found === undefined || found.isDirectory()) return;
  if (!found.isSymbolicLink()) throw lockNotAFolder(what, lockDir);
  throw new TasksError('corrupt', `${path.basename(lockDir)} in ${path.dirname(lockDir)} is a symbolic link; refusing to lock through it`, {
    hint: 'remove it: a lock is a folder its holder makes and removes',
  });
}

/**
 * Before a write that takes several task locks (withTaskLocks: an edge's two sides, a
 * delete and the tasks that name the deleted one): refuse at once when one of their locks
 * can never be taken. withTaskLocks alone would write nothing either, but would first wait
 * out a busy lock of a lower id and answer "busy, retry" (exit 5) where no retry helps.
 */
export function refuseUnusableTaskLocks(listDir: string, ids: readonly string[]): void {
  for (const id of ids) refuseUnusableLock(`${taskPath(listDir, id)}.lock`, `task #${id}`);
}

/** The list lock: target `<list>/.lock`, created with flag `wx` first (EEXIST ignored). */
export async function withListLock<T>(listDir: string, fn: (stillHeld: () => boolean) => T | Promise<T>): Promise<T> {
  const target = path.join(listDir, LIST_LOCK_TARGET);
  try {
    fs.writeFileSync(target, '', { flag: 'wx' });
  } catch (err) {
    if (errnoCode(err) !== 'EEXIST') {
      if (errnoCode(err) === 'ENOENT') throw new TasksError('not_found', `list folder ${listDir} does not exist`);
      if (errnoCode(err) === 'ENOTDIR') throw listNotAFolder(listDir);
      throw new TasksError('io', `cannot create ${target}: ${(err as Error).message}`, { cause: err });
    }
  }
  // proper-lockfile resolves symlinks: a symlinked `.lock` would put the lock elsewhere.
  if (fs.lstatSync(target, { throwIfNoEntry: false })?.isSymbolicLink()) {
    throw new TasksError('corrupt', `${LIST_LOCK_TARGET} in ${listDir} is a symbolic link; refusing to lock through it`, {
      hint: 'replace it with an empty regular file',
    });
  }
  return withLock(target, 'the list', fn);
}

/** The task lock: target `<list>/<id>.json` (lock dir `<id>.json.lock`); the file must exist. */
export async function withTaskLock<T>(listDir: string, id: string, fn: (stillHeld: () => boolean) => T | Promise<T>): Promise<T> {
  const file = taskPath(listDir, id);
  // proper-lockfile follows symlinks (realpath), which would put our lock outside the list.
  let stat: fs.Stats | undefined;
  try {
    stat = fs.lstatSync(file);
  } catch {
    stat = undefined;
  }
  if (stat === undefined) throw missingTask(listDir, id);
  if (!stat.isFile()) throw new TasksError('corrupt', `${id}.json is not a regular file; refusing to touch it`);
  return withLock(file, `task #${id}`, fn);
}

/**
 * Several task locks held at once, for a write that changes several tasks (a new task and
 * the other side of its edges, both sides of an edge), so that every lock it needs is had
 * before anything is written: a lock that cannot be had (busy, exit 5) then leaves nothing
 * written, and a retry is safe. The caller holds the list lock; the task locks are taken
 * one by one in ascending id order (docs/task-store.md section 5: list, then task). Agents
 * never hold two task locks, and every process of ours takes them in this one order, so
 * no two holders can wait on each other. `stillHeld(id)`: is that task's lock still ours.
 */
export async function withTaskLocks<T>(
  listDir: string,
  ids: readonly string[],
  fn: (stillHeld: (id: string) => boolean) => T | Promise<T>,
  /** Tasks passed over (not held) when their file is gone as their lock is taken. */
  mayBeGone: (id: string) => boolean = () => false,
): Promise<T> {
  const ordered = [...new Set(ids)].sort(compareIds);
  const held = new Map<string, () => boolean>();
  const stillHeld = (id: string) => held.get(id)?.() ?? false;
  const take = async (next: number): Promise<T> => {
    const id = ordered[next];
    if (id === undefined) return fn(stillHeld);
    let taken = false;
    try {
      return await withTaskLock(listDir, id, (isHeld) => {
        taken = true;
        held.set(id, isHeld);
        return take(next + 1);
      });
    } catch (err) {
      // Only a file gone before its lock was had; a not_found from further in goes up.
      if (!taken && mayBeGone(id) && isMissing(err)) return take(next + 1);
      throw err;
    }
  };
  return take(0);
}

/** Throw instead of writing when the lock we hold was taken from us. */
export function assertStillHeld(stillHeld: () => boolean, what: string): void {
  if (!stillHeld()) {
    throw new TasksError('busy', `lost the lock on ${what} before writing; nothing was written`);
  }
}

/**
 * The inbox lock: target `<inbox>`, lock dir `<inbox>.lock` (given as lockfilePath, as
 * Claude Code does). The inbox file must exist: create it as `[]` with flag `wx` first.
 */
export async function withInboxLock<T>(inbox: string, fn: (stillHeld: () => boolean) => T | Promise<T>): Promise<T> {
  return withLock(inbox, `inbox ${path.basename(inbox)}`, fn, { retries: INBOX_LOCK_RETRIES, lockfilePath: `${inbox}.lock` });
}

/**
 * A lock of `tasks`' own on a file of its own (the journal, for `undo`): agents never
 * take it, so it never makes them wait; it only keeps two of our processes from taking
 * back the same change at once. The file is created (empty) when missing.
 */
export async function withOwnFileLock<T>(file: string, what: string, fn: (stillHeld: () => boolean) => T | Promise<T>): Promise<T> {
  try {
    fs.closeSync(
      fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK, 0o644),
    );
  } catch (err) {
    throw new TasksError('io', `cannot open ${path.basename(file)}: ${(err as Error).message}`);
  }
  return withLock(file, what, fn, { retries: CLAUDE_LOCK_OPTIONS.retries, lockfilePath: `${file}.lock` });
}
