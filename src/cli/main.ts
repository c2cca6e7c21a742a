import { CommanderError } from 'commander';
import { TasksError } from '../core/base/errors.js';
import { onLockWait } from '../core/locks/lock-acquire.js';
import { locksActive, onLocksIdle } from '../core/locks/lock-activity.js';
import { renderLockWait } from '../render/lock-wait.js';
import { Context, processCwd } from './runtime/context.js';
import { IO } from './runtime/io.js';
import { EXIT } from './runtime/exit-codes.js';
import { standardError, standardInput, standardOutput } from './runtime/fd-output.js';
import { processTerminal } from './runtime/terminal.js';
import { explainIdOptionMistake } from './flags/id-option-mistake.js';
import { recordChanges } from './runtime/journal-recording.js';
import { buildProgram } from './commands/program.js';
import { loadColour } from '../render/style.js';

/**
 * The one place that decides how the process ends: every other module throws or
 * records a code on the run's IO; here it becomes `process.exitCode`. We never call
 * process.exit() after output, which can cut a large write to a pipe.
 */
async function main(argv: string[]): Promise<void> {
  // `tasks list | head -1`: the reader went away; that is not an error.
  const readerGone = (): never => {
    stopJournal();
    return process.exit(EXIT.ok);
  };
  const stdout = await standardOutput(readerGone);
  if (stdout.isTTY) {
    // A terminal's stdout is process.stdout itself (fd-output.ts).
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') readerGone();
      throw err;
    });
  }
  handleInterrupts();
  const env = process.env;
  const io = new IO({ stdout, stderr: await standardError(), stdin: standardInput(), terminal: () => processTerminal(env) }, env);
  const ctx = new Context(io, { env, cwd: processCwd() });
  if (ctx.io.mayColour(argv)) await loadColour();
  const program = await buildProgram(ctx, argv);
  onLockWait((event) => ctx.io.note(renderLockWait(event)));
  program.hook('preAction', (_root, command) => {
    journal = recordChanges(ctx, command);
    ctx.flushJournal = journal.flush;
  });
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode === 0 || err.code === 'commander.helpDisplayed' || err.code === 'commander.version') {
        ctx.io.setExit(EXIT.ok);
      } else if (err.code === 'commander.help') {
        // `tasks` with no command: the help was printed to stderr; that is a usage error.
        ctx.io.setExit(EXIT.usage);
      } else {
        const mistake = err.code === 'commander.excessArguments' ? explainIdOptionMistake(argv) : undefined;
        const message = mistake ?? err.message.replace(/^error:\s*/i, '');
        ctx.io.fail(new TasksError('usage', message, mistake === undefined ? { hint: 'add --help for usage' } : {}));
      }
    } else {
      ctx.io.fail(err);
      if (process.env.TASKS_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
    }
  }
  stopJournal();
  process.exitCode = ctx.io.exitCode;
}

/** What this run changed, recorded in each list's journal when it ends (however it ends). */
let journal: { stop: () => void; flush: () => void } | undefined;

function stopJournal(): void {
  journal?.stop();
  journal = undefined;
}

/**
 * SIGINT / SIGTERM: stop at once if no lock is in play; otherwise let the locked step
 * finish (milliseconds: a write is synchronous, the release one rmdir) and stop before
 * the next, so no lock is left behind and every file is either old or new. Waiting one
 * macrotask after the last release lets a step that follows at once (the other side of
 * an edge) complete too. A command that handles the signal itself (one running hooks
 * turns it into an abort, and unwinds through its locks' releases; watch quits) is left
 * to do so, and to choose its exit status. A second signal stops at once, with 130.
 * (Our listeners also keep signal-exit, loaded by proper-lockfile, out of the way.)
 */
function handleInterrupts(): void {
  let signals = 0;
  const stopWhenIdle = (): void =>
    onLocksIdle(() => setImmediate(() => (locksActive() === 0 ? interruptedExit() : stopWhenIdle())));
  const interruptedExit = (): never => {
    stopJournal();
    return process.exit(EXIT.interrupted);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    signals++;
    if (signals > 1) interruptedExit();
    if (process.listenerCount(signal) > 1) return;
    stopWhenIdle();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

void main(process.argv);
