/** The longest wait before a send given up is tried again: a target down for a day is asked four times an hour. */
const LONGEST_WAIT_MS = 15 * 60_000;

/**
 * A following notify's sends that failed every try, by event key, tried again later while
 * the event still holds: after `firstMs`, the wait doubling each time it fails again (at
 * most 15 minutes). Their claims were given back, so a restart or another run may tell
 * them first; the claim made again decides, and nothing is sent twice.
 */
export class SendAgain {
  private readonly waits = new Map<string, { at: number; waitMs: number; taken: boolean }>();

  constructor(private readonly firstMs: number) {}

  /** A send of `key` failed every try at `now`: how long until it is tried again. Several targets failing one event share its wait. */
  later(key: string, now: number): number {
    const before = this.waits.get(key);
    if (before !== undefined && !before.taken) return Math.max(0, before.at - now);
    const waitMs = before === undefined ? this.firstMs : Math.min(LONGEST_WAIT_MS, before.waitMs * 2);
    this.waits.set(key, { at: now + waitMs, waitMs, taken: false });
    return waitMs;
  }

  /** Is a try due, or an event forgotten (a look is then worth its cost)? */
  due(now: number): boolean {
    for (const w of this.waits.values()) if (!w.taken && w.at <= now) return true;
    return false;
  }

  /**
   * The keys due at `now` that are still `active`; keys no longer active are forgotten: the
   * event cleared, and is not told.
   */
  dueKeys(active: ReadonlySet<string>, now: number): Set<string> {
    const due = new Set<string>();
    for (const [key, w] of this.waits) {
      if (!active.has(key)) this.waits.delete(key);
      else if (!w.taken && w.at <= now) due.add(key);
    }
    return due;
  }

  /** Those keys claimed again to be sent: a next failure waits longer. (Not claimed, another notify holding the state, they stay due.) */
  tried(keys: Iterable<string>): void {
    for (const key of keys) {
      const w = this.waits.get(key);
      if (w !== undefined) w.taken = true;
    }
  }
}
