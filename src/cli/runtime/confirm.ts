import readline from 'node:readline';

/**
 * Ask a person a yes/no question on the terminal: the question on stderr, one line read
 * from stdin. Only "y" or "yes" is a yes; Enter alone, anything else, or the end of input
 * is a no. Callers ask only when stdin and stderr are terminals.
 */
export async function confirm(question: string): Promise<boolean> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await new Promise<string>((resolve) => {
      rl.question(`${question} [y/N] `, resolve);
      rl.on('close', () => resolve(''));
    });
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    rl.close();
  }
}

/** A question can be asked only of a person at a terminal: never of a script or a pipe. */
export function canAsk(stderrIsTTY: boolean): boolean {
  return Boolean(process.stdin.isTTY) && stderrIsTTY;
}
