/**
 * Time, passed in as an argument (docs/design.md: core takes time, env and paths
 * from its caller), so that decisions that depend on it can be tested without waiting.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}
