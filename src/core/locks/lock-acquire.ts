import fs from 'node:fs';
import path from 'node:path';
import type { LockOptions } from 'proper-lockfile';
import { errnoCode, TasksError } from '../base/errors.js';
import { requireScope, scopePart, scopeSlot } from '../scope/run-scope.js';
import { datedAheadMs, type LockIdentity, removeIfUnchanged, sameLock } from './future-lock.js';

/**
 * Taking a proper-lockfile lock the way Claude Code does, plus one thing it does not do:
 * wait out a lock left by a dead process.
 *
 * proper-lockfile calls a lock stale when its directory's mtime is over 10 s old (the
 * holder refreshes it every 5 s) and then breaks it; but Claude Code's retry budget ends
 * after about 2.6 s, so a process killed while holding a lock makes every writer fail
 * for up to 10 s. When our budget runs out we look at the lock directory:
 *
 * - the same directory (inode) with a newer mtime: its holder is alive and refreshing,
 *   so it holds the lock for a long time: give up now (busy);
 * - otherwise (not refreshed, or other processes taking turns): try again, round after
 *   round of the same retries, until the lock is ours or LOCK_WAIT_BOUND_MS have passed
 *   since we started (about the stale time: by then a dead holder's lock has expired).
 *
 * The run's listener hears when we start waiting, so the CLI can say so on stderr.
 */

/** proper-lockfile's default staleness, which Claude Code uses. */
export const LOCK_STALE_MS = 10_000;
/** How often a live holder touches its lock directory (stale / 2). */
export const LOCK_REFRESH_MS = 5_000;
/** The longest we keep trying a lock that looks abandoned: the stale time, plus a margin. */
export const LOCK_WAIT_BOUND_MS = LOCK_STALE_MS + 1_500;

export interface LockWaitEvent {
  /** "the list", "task #4" */
  what: string;
  /** The lock directory's name in the list folder (".lock.lock", "4.json.lock"). */
  lock: string;
  /** Time since the lock directory was last created or refreshed. */
  ageMs: number;
  /** When a dead holder's lock becomes stale and can be broken. */
  expiresInMs: number;
  /** Not refreshed for longer than a live holder would allow. */
  likelyDead: boolean;
  /** How far in the future the lock is dated (0: it is not); see future-lock.ts. */
  aheadMs: number;
}

type WaitListener = (event: LockWaitEvent) => void;
/** Who hears a run's lock waits: each run scope (core/scope) has its own. */
const WAIT_LISTENER = scopeSlot('lock-wait listener', () => ({ listener: undefined as WaitListener | undefined }));

/** One listener per run (the CLI's stderr), in the run this is called in; core itself never prints. */
export function onLockWait(listener: WaitListener | undefined): void {
  requireScope('listening to lock waits').part(WAIT_LISTENER).listener = listener;
}

interface LockDirState {
  ino: number;
  mtimeMs: number;
  isDirectory: boolean;
  empty: boolean;
}

function lockDirState(lockDir: string): LockDirState | undefined {
  try {
    const st = fs.lstatSync(lockDir);
    let empty = true;
    if (st.isDirectory()) {
      try {
        empty = fs.readdirSync(lockDir).length === 0;
      } catch {
        // removed meanwhile, or unreadable: say empty, as proper-lockfile would assume
      }
    }
    return { ino: st.ino, mtimeMs: st.mtimeMs, isDirectory: st.isDirectory(), empty };
  } catch {
    return undefined;
  }
}

function seconds(ms: number): number {
  return Math.max(0, Math.round(ms / 1000));
}

/**
 * A file (or anything but a folder) where a lock's folder belongs: proper-lockfile can neither
 * take that lock (its mkdir fails) nor break it (its rmdir fails), and agents never make one,
 * so no wait or retry gets past it. Not `busy` (exit 5, "safe to retry") but `corrupt`, as a
 * lock path that is a symbolic link is: a file in the way that someone must remove.
 */
export function lockNotAFolder(what: string, lockDir: string): TasksError {
  return new TasksError(
    'corrupt',
    `${what} cannot be locked: ${lockDir} is not a folder, so nobody can take or break that lock; remove it by hand (tasks check reports it)`,
    { hint: 'a lock is a folder its holder makes and removes', details: { lock: lockDir, reason: 'not_a_directory' } },
  );
}

/** The error of lockNotAFolder: `claim --next` passes such a task over, as one whose lock is held. */
export function isLockNotAFolder(err: unknown): err is TasksError {
  return err instanceof TasksError && err.code === 'corrupt' && err.details?.reason === 'not_a_directory';
}

type Lockfile = { lock(file: string, options: LockOptions): Promise<() => Promise<void>> };

/**
 * Take the lock on `target` (lock directory `<target>.lock`, or `options.lockfilePath`), waiting out
 * an abandoned lock within LOCK_WAIT_BOUND_MS. Throws TasksError `busy` when the lock
 * cannot be had, saying what is known of its holder; other errors pass through.
 */
export async function acquireLock(lockfile: Lockfile, target: string, options: LockOptions, what: string): Promise<() => Promise<void>> {
  const lockDir = options.lockfilePath ?? `${target}.lock`;
  const lockName = path.basename(lockDir);
  const started = Date.now();
  let last: LockDirState | undefined;
  let announced = false;
  // A lock dated in the future, as first seen, and when (monotonic clock).
  let ahead: { seen: LockIdentity; since: number } | undefined;
  for (;;) {
    try {
      return await lockfile.lock(target, options);
    } catch (err) {
      const code = errnoCode(err);
      // proper-lockfile found the lock stale but could not remove it: a file (rmdir said ENOTDIR)...
      if (code === 'ENOTDIR') throw lockNotAFolder(what, lockDir);
      // ...or a folder with something in it (ENOTEMPTY; EEXIST on some systems).
      if (code === 'ENOTEMPTY' || code === 'EEXIST') {
        throw new TasksError('busy', `${what} cannot be locked: ${lockName} is stale but not empty, so nobody can break it`, {
          hint: `inspect and remove ${lockDir} by hand (tasks check reports it)`,
          details: { lock: lockDir, reason: 'not_empty' },
        });
      }
      if (code !== 'ELOCKED') throw err;
    }
    const now = Date.now();
    const state = lockDirState(lockDir);
    if (state === undefined) continue; // released meanwhile: try again at once
    const ageMs = Math.max(0, now - state.mtimeMs);
    // Made meanwhile (withLock looks before the first try): no retry gets past it either.
    if (!state.isDirectory) throw lockNotAFolder(what, lockDir);
    const aheadMs = datedAheadMs(state.mtimeMs, now);
    if (aheadMs > 0) {
      // Unchanged for the stale time while dated ahead: no live holder (future-lock.ts).
      const seen = { ino: state.ino, mtimeMs: state.mtimeMs };
      if (ahead === undefined || !sameLock(ahead.seen, seen)) ahead = { seen, since: performance.now() };
      else if (performance.now() - ahead.since >= LOCK_STALE_MS) {
        removeIfUnchanged(lockDir, ahead.seen);
        ahead = undefined;
        continue;
      }
    } else {
      ahead = undefined;
    }
    // The same directory touched again: only a live holder's heartbeat does that.
    const refreshed = last !== undefined && last.ino === state.ino && state.mtimeMs > last.mtimeMs;
    // Watching a lock dated ahead: wait out the stale time from when it was first seen.
    const watching = ahead !== undefined && performance.now() - ahead.since < LOCK_STALE_MS + LOCK_REFRESH_MS;
    if (refreshed || (now - started >= LOCK_WAIT_BOUND_MS && !watching)) {
      const holder = refreshed
        ? `its holder is alive: it refreshed the lock ${seconds(ageMs)} s ago`
        : aheadMs > 0
          ? `the lock is dated ${seconds(aheadMs)} s in the future`
          : `the lock is ${seconds(ageMs)} s old`;
      throw new TasksError('busy', `${what} is locked by another process (${lockName}; ${holder}); try again`, {
        hint: 'an agent or another tasks process is writing; a lock left by a dead process expires after 10 s',
        details: { lock: lockDir, ageMs: Math.round(ageMs), holderAlive: refreshed, waitedMs: now - started },
      });
    }
    last = state;
    if (!announced) {
      announced = true;
      scopePart(WAIT_LISTENER)?.listener?.({
        what,
        lock: lockName,
        ageMs,
        expiresInMs: Math.max(0, LOCK_STALE_MS - ageMs),
        likelyDead: ageMs > LOCK_REFRESH_MS + 1_000,
        aheadMs,
      });
    }
  }
}
