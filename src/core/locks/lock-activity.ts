import fs from 'node:fs';
import { currentScope, type RunScope, scopePart, scopeSlot } from '../scope/run-scope.js';

/**
 * Whether a run is in the middle of anything lock-related: a lock held (from acquisition
 * until its release is done), or one of proper-lockfile's own file system calls under
 * way (a `mkdir` that may be taking a lock, the probe that registers it, the `rmdir` of
 * a release). The CLI uses it on SIGINT/SIGTERM: dying inside one of those would leave a
 * lock directory behind for the stale time; dying between them (say, while
 * proper-lockfile sleeps between retries) leaves nothing. Each run scope (core/scope)
 * counts its own; code in no scope is not counted.
 */
class LockActivity {
  held = 0;
  inflight = 0;
  private waiters: Array<() => void> = [];

  active(): number {
    return this.held + this.inflight;
  }

  onIdle(callback: () => void): void {
    if (this.active() === 0) callback();
    else this.waiters.push(callback);
  }

  settle(): void {
    if (this.active() !== 0) return;
    const ready = this.waiters;
    this.waiters = [];
    for (const callback of ready) callback();
  }
}

const ACTIVITY = scopeSlot('lock activity', () => new LockActivity());

/** How many locks `scope` (by default the run this is called in) holds or is taking or releasing. */
export function locksActive(scope: RunScope | undefined = currentScope()): number {
  return scope?.part(ACTIVITY).active() ?? 0;
}

/** Calls `callback` once nothing lock-related is under way in `scope` (at once if nothing is). */
export function onLocksIdle(callback: () => void, scope: RunScope | undefined = currentScope()): void {
  if (scope === undefined) callback();
  else scope.part(ACTIVITY).onIdle(callback);
}

/** Count a held lock while `operation` (the locked work and the release) runs. */
export async function holdingLock<T>(operation: () => Promise<T>): Promise<T> {
  const activity = scopePart(ACTIVITY);
  if (activity === undefined) return operation();
  activity.held++;
  try {
    return await operation();
  } finally {
    activity.held--;
    activity.settle();
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
      const activity = scopePart(ACTIVITY);
      if (activity === undefined) return original(...args, callback);
      activity.inflight++;
      original(...args, (...result: unknown[]) => {
        try {
          callback(...result); // may start the next call of a chain before we count this one done
        } finally {
          activity.inflight--;
          activity.settle();
        }
      });
    };
  }
  return wrapped as unknown as typeof fs;
}

/**
 * One instance, made on first use: proper-lockfile caches the mtime precision on it (a
 * fact of the file system, the same for every run); what it counts goes to the scope of
 * the run that makes each call.
 */
let tracked: typeof fs | undefined;
export function lockFs(): typeof fs {
  return (tracked ??= trackedFs());
}
