/**
 * Run `fn` with Ctrl-C (and SIGTERM) turned into an abort that stops running hooks and
 * their process groups, or an import between two batches; the command then ends with
 * 130. The listeners are the run's own, removed when `fn` ends, so main.ts sees that a
 * command handles the signal (and a second Ctrl-C kills at once).
 */
export async function withInterrupt<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await fn(controller.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
