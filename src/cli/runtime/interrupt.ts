import { boundToScope } from '../../core/scope/run-scope.js';

/** The signals that mean "stop" to a command that stops cleanly (and SIGHUP, for a watch). */
export const INTERRUPTS = ['SIGINT', 'SIGTERM'] as const;

/**
 * Run `fn` with Ctrl-C (and SIGTERM) turned into an abort: it stops running hooks and
 * their process groups, an import between two batches, a watch; the command then ends
 * as it chooses (130 for an interrupted change). The listeners are this run's own,
 * removed when `fn` ends, so main.ts sees that a command handles the signal (and a
 * second Ctrl-C kills at once), and two runs in one process leave nothing behind.
 */
export async function withInterrupt<T>(
  fn: (signal: AbortSignal) => Promise<T>,
  signals: readonly NodeJS.Signals[] = INTERRUPTS,
): Promise<T> {
  const controller = new AbortController();
  // The abort, and what it sets off, belongs to the run (its journal records what it writes).
  const onSignal = boundToScope(() => controller.abort());
  for (const s of signals) process.once(s, onSignal);
  try {
    return await fn(controller.signal);
  } finally {
    for (const s of signals) process.off(s, onSignal);
  }
}

/**
 * The first of `signals` to arrive, for a command that runs until it is stopped (the
 * board): while it waits, main.ts sees that the command handles the signal, and leaves
 * it to end as it chooses; a second signal ends the process at once. The listeners are
 * removed when the first arrives.
 */
export function nextSignal(signals: readonly NodeJS.Signals[] = INTERRUPTS): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals): void => {
      for (const s of signals) process.off(s, on);
      resolve(signal);
    };
    for (const s of signals) process.on(s, on);
  });
}
