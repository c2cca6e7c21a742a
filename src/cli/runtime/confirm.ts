import readline from 'node:readline';
import { Writable } from 'node:stream';
import type { OutputTarget } from './fd-output.js';

/**
 * Ask a person a yes/no question on the terminal: the question on stderr, one line read
 * from stdin. Only "y" or "yes" is a yes; Enter alone, anything else, or the end of input
 * is a no. Callers ask only when stdin and stderr are terminals (IO.canAsk).
 */
export async function confirm(question: string, input: NodeJS.ReadableStream, stderr: OutputTarget): Promise<boolean> {
  const rl = readline.createInterface({ input, output: stderr.asStream ?? writableOf(stderr) });
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

function writableOf(target: OutputTarget): NodeJS.WritableStream {
  return new Writable({
    write: (chunk: Buffer | string, _encoding, done) => {
      target.write(String(chunk));
      done();
    },
  });
}
