import type { GoneHeld } from '../sessions/gone-owners.js';
import type { Task } from '../store/schema.js';

/** How the agent's process ended, when `tasks run` started it (code null: a signal ended it). */
export interface DeathExit {
  code: number | null;
  signal: string | null;
}

/** A followed run's own session, dead before its result, as its end names it. */
interface RunDeath {
  sessionId: string;
  state: string;
  exit?: DeathExit | undefined;
  tasks: readonly Task[];
}

/**
 * A run's death as a list's is classed: `ended` when its process exited by itself with
 * status 0 (it ended, its work left in progress), else `crashed` (a signal, a non-zero
 * status, or nothing known of its process: a piped stream's writer).
 */
export function deathState(exit: DeathExit | undefined): 'crashed' | 'ended' {
  return exit !== undefined && exit.signal === null && exit.code === 0 ? 'ended' : 'crashed';
}

/**
 * What befell the session, in the words its note and its rows use: "was killed by
 * SIGKILL", "exited with status 3", "exited with status 0" when `tasks run` saw its
 * process end; else its state ("crashed").
 */
export function deathWords(d: { state: string; exit?: DeathExit | undefined }): string {
  if (d.exit?.signal) return `was killed by ${d.exit.signal}`;
  if (d.exit !== undefined && d.exit.code !== null) return `exited with status ${d.exit.code}`;
  return d.state;
}

/**
 * The tasks a followed run's dead session held, as `list` marks a gone agent's ("agent
 * gone: session 7c0ffee0 was killed by SIGKILL"): the run's own judgement of its death
 * (run-model.ts held), not a second one. By id.
 */
export function heldByDeaths(died: readonly RunDeath[] | undefined): Map<string, GoneHeld> {
  const held = new Map<string, GoneHeld>();
  for (const d of died ?? []) {
    const why = `session ${d.sessionId.slice(0, 8)} ${deathWords(d)}`;
    for (const task of d.tasks) held.set(task.id, { task, why, session: undefined, unowned: !task.owner });
  }
  return held;
}
