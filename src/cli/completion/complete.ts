/**
 * `tasks __complete <words...> <current word>`: the hidden command the completion
 * scripts run on every TAB (cobra's protocol; see candidates.ts). bin/tasks.js sends
 * it here before anything else is loaded, as one CommonJS bundle made by the build
 * (dist/complete.cjs): no ES module loader, no commander, chalk, zod or proper-lockfile,
 * so a TAB costs little more than starting Node.
 *
 * Contract: stdout is the candidates and a last `:<directive>` line, and nothing else;
 * the exit status is 0. A failure of any kind (an unreadable list, a missing config
 * folder, a word that makes no sense) gives fewer candidates, never a message in the
 * user's terminal; TASKS_DEBUG=1 prints it on stderr, which the scripts discard.
 */

import { writeAllSync } from '../runtime/fd-output.js';
import { complete, DIRECTIVE, formatCompletion } from './candidates.js';
import { liveValues } from './live-values.js';
import { loadSpec } from './spec-load.js';

async function completeMain(args: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
  try {
    const spec = await loadSpec();
    const words = args.slice(0, -1);
    const current = args[args.length - 1] ?? '';
    return formatCompletion(complete(spec, words, current, (line) => liveValues(line, env)));
  } catch (err) {
    if (env.TASKS_DEBUG) process.stderr.write(`tasks __complete: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return formatCompletion({ candidates: [], directive: DIRECTIVE.error });
  }
}

/**
 * Straight to file descriptor 1: process.stdout would load the stream machinery first,
 * a sixth of a TAB's time. A shell that closed the pipe ends the output quietly.
 */
function writeOut(text: string): void {
  try {
    writeAllSync(1, text);
  } catch {
    // nothing to tell anyone: a TAB shows no errors
  }
}

void completeMain(process.argv.slice(3), process.env).then(writeOut);
