let repeatsTaken = 0;

/**
 * A command that answers a second signal itself (`tasks run`: it kills the agent's group
 * at once, then says its verdict and its last line) takes repeated signals while `fn`
 * runs: main.ts then leaves the second to it, and ends the process only at the third.
 */
export async function takingRepeatedSignals<T>(fn: () => Promise<T>): Promise<T> {
  repeatsTaken++;
  try {
    return await fn();
  } finally {
    repeatsTaken--;
  }
}

/** Does a running command answer a second signal itself (takingRepeatedSignals)? */
export function repeatedSignalsTaken(): boolean {
  return repeatsTaken > 0;
}
