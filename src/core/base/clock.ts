/**
 * Time, passed in as an argument (docs/design.md: core takes time, env and paths
 * from its caller), so that decisions that depend on it can be tested without waiting.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** Timers, passed in beside the clock for the same reason: a test moves time by hand. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}
