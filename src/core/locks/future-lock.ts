import fs from 'node:fs';
import path from 'node:path';

/**
 * A lock directory dated in the future. proper-lockfile calls a lock stale once its mtime
 * is 10 s in the past; a lock whose holder died before the clock was stepped back is
 * dated ahead and would block every writer for the whole skew. But a live holder touches
 * its lock to the current time every 5 s, so a lock dated in the future that stays
 * exactly as it is (same directory, same mtime) for the stale time has no live holder:
 * it is broken as proper-lockfile breaks a stale one (rmdir, empty directories only).
 * Time here is measured on the monotonic clock: the wall clock is what moved.
 */

/** Ahead by more than this: not file-system timestamp rounding. */
export const FUTURE_TOLERANCE_MS = 1_000;

/** How far in the future a lock's mtime is (0 when it is not, beyond the tolerance). */
export function datedAheadMs(mtimeMs: number, now: number): number {
  const ahead = mtimeMs - now;
  return ahead > FUTURE_TOLERANCE_MS ? ahead : 0;
}

export interface LockIdentity {
  ino: number;
  mtimeMs: number;
}

function lockIdentity(lockDir: string): LockIdentity | undefined {
  try {
    const st = fs.lstatSync(lockDir);
    return st.isDirectory() ? { ino: st.ino, mtimeMs: st.mtimeMs } : undefined;
  } catch {
    return undefined;
  }
}

export function sameLock(a: LockIdentity | undefined, b: LockIdentity | undefined): boolean {
  return a !== undefined && b !== undefined && a.ino === b.ino && a.mtimeMs === b.mtimeMs;
}

/** Remove the lock directory if it is still `seen` (and empty); true when removed. */
export function removeIfUnchanged(lockDir: string, seen: LockIdentity): boolean {
  if (!sameLock(lockIdentity(lockDir), seen)) return false;
  try {
    fs.rmdirSync(lockDir);
    return true;
  } catch {
    return false; // not empty, or gone: left for the caller to report
  }
}

export type FutureLockOutcome = 'broken' | 'changed' | 'gone' | 'not_empty';

/**
 * Watch `<dir>/<name>` for `watchMs`; break it if it stayed unchanged. For `check --fix`.
 */
export async function breakFutureLock(dir: string, name: string, watchMs: number): Promise<FutureLockOutcome> {
  const lockDir = path.join(dir, name);
  const first = lockIdentity(lockDir);
  if (first === undefined) return 'gone';
  const started = performance.now();
  while (performance.now() - started < watchMs) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(500, watchMs)));
    const now = lockIdentity(lockDir);
    if (now === undefined) return 'gone';
    if (!sameLock(now, first)) return 'changed';
  }
  if (removeIfUnchanged(lockDir, first)) return 'broken';
  return lockIdentity(lockDir) === undefined ? 'gone' : sameLock(lockIdentity(lockDir), first) ? 'not_empty' : 'changed';
}
