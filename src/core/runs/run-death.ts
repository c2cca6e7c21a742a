/** How the agent's process ended, when `tasks run` started it (code null: a signal ended it). */
export interface DeathExit {
  code: number | null;
  signal: string | null;
}

/**
 * A run's death where its session's files say nothing (RunWatcherOptions.sessionEnd is asked
 * first): `ended` when its process exited by itself with
 * status 0 (it ended, its work left in progress), else `crashed` (a signal, a non-zero
 * status, or nothing known of its process: a piped stream's writer).
 */
export function deathState(exit: DeathExit | undefined): 'crashed' | 'ended' {
  return exit !== undefined && exit.signal === null && exit.code === 0 ? 'ended' : 'crashed';
}
