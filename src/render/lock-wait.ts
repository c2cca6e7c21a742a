import type { LockWaitEvent } from '../core/locks/lock-acquire.js';

/** One line on stderr when a write has to wait for a lock beyond the agents' own retries. */
export function renderLockWait(e: LockWaitEvent): string {
  const age = Math.round(e.ageMs / 1000);
  const expires = Math.max(1, Math.ceil(e.expiresInMs / 1000));
  if (e.aheadMs > 0) {
    const ahead = Math.round(e.aheadMs / 1000);
    return `waiting for ${e.what}: ${e.lock} is dated ${ahead} s in the future (was the clock set back?); a live holder would refresh it within 5 s, so it is broken if it stays unchanged for 10 s`;
  }
  if (e.likelyDead) {
    return `waiting for a stale lock left by a dead process (${e.lock}, ${age} s old, not refreshed; it expires in ${expires} s)`;
  }
  return `waiting for ${e.what}: ${e.lock} is held (${age} s old); a live holder refreshes it every 5 s, a dead one's expires in ${expires} s`;
}
