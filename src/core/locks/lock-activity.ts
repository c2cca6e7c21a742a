import fs from 'node:fs';

/**
 * Whether this process is in the middle of anything lock-related: a lock held (from
 * acquisition until its release is done), or one of proper-lockfile's own file system
 * calls under way (a `mkdir` that may be taking a lock, the probe that registers it, the
 * `rmdir` of a release). The CLI uses it on SIGINT/SIGTERM: dying inside one of those
 * would leave a lock directory behind for the stale time; dying between them (say, while
 * proper-lockfile sleeps between retries) leaves nothing.
 */
let held = 0;
let inflight = 0;
let waiters: Array<() => void> = [];

export function locksActive(): number {
  return held + inflight;
}

/** Calls `callback` once nothing lock-related is under way (at once if nothing is). */
export function onLocksIdle(callback: () => void): void {
  if (locksActive() === 0) callback();
  else waiters.push(callback);
}

function settle(): void {
  if (locksActive() !== 0) return;
  const ready = waiters;
  waiters = [];
  for (const callback of ready) callback();
}

/** Count a held lock while `operation` (the locked work and the release) runs. */
export async function holdingLock<T>(operation: () => Promise<T>): Promise<T> {
  held++;
  try {
    return await operation();
  } finally {
    held--;
    settle();
  }
}

type Callback = (...args: unknown[]) => void;

/**
 * Node's fs, with the callback calls proper-lockfile makes counted while under way.
 * Everything else comes from fs itself through the prototype: copying fs would read its
 * lazy getters (fs.promises loads readline and the streams, ~7 ms of start-up).
 */
function trackedFs(): typeof fs {
  const wrapped = Object.create(fs) as Record<string, unknown>;
  for (const name of ['mkdir', 'rmdir', 'stat', 'utimes', 'realpath'] as const) {
    const original = fs[name] as unknown as (...args: unknown[]) => void;
    wrapped[name] = (...args: unknown[]) => {
      const callback = args.pop() as Callback;
      inflight++;
      original(...args, (...result: unknown[]) => {
        try {
          callback(...result); // may start the next call of a chain before we count this one done
        } finally {
          inflight--;
          settle();
        }
      });
    };
  }
  return wrapped as unknown as typeof fs;
}

let tracked: typeof fs | undefined;
/** One instance, made on first use: proper-lockfile caches the mtime precision on it. */
export function lockFs(): typeof fs {
  return (tracked ??= trackedFs());
}
