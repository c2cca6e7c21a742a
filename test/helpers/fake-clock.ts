import type { Clock, Timers } from '../../src/core/base/clock.js';

/**
 * A clock and timers that move only when told: `advance(ms)` runs every timer that falls
 * due, in time order, each at its own time (a timer set by a timer runs too, if due).
 */
export class FakeClock implements Clock, Timers {
  private at: number;
  private nextId = 1;
  private readonly timers = new Map<number, { due: number; fn: () => void }>();

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.at = start;
  }

  now(): number {
    return this.at;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.set(id, { due: this.at + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** How many timers are waiting. */
  get pending(): number {
    return this.timers.size;
  }

  advance(ms: number): void {
    const end = this.at + ms;
    for (;;) {
      let next: [number, { due: number; fn: () => void }] | undefined;
      for (const entry of this.timers) if (entry[1].due <= end && (!next || entry[1].due < next[1].due)) next = entry;
      if (!next) break;
      this.timers.delete(next[0]);
      this.at = next[1].due;
      next[1].fn();
    }
    this.at = end;
  }
}
