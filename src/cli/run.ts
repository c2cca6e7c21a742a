import { TasksError } from '../core/base/errors.js';
import { onLockWait } from '../core/locks/lock-acquire.js';
import { asProcessRun, inScope, RunScope } from '../core/scope/run-scope.js';
import { renderLockWait } from '../render/lock-wait.js';
import { loadColour } from '../render/style.js';
import { explainIdOptionMistake } from './flags/id-option-mistake.js';
import { plainRead } from './read-path/plain-read.js';
import { asksForHelp, disconnectWords, hostArgv } from './remote/host-argv.js';
import { Context, processCwd } from './runtime/context.js';
import { EXIT } from './runtime/exit-codes.js';
import type { IO } from './runtime/io.js';
import { recordChanges } from './runtime/journal-recording.js';

/**
 * Set by the build in dist/tasks-plain.cjs (main.ts): a run there is a plain read, and the
 * program is not in the bundle. Each condition names the constant itself: esbuild folds it
 * there, and leaves out what only another command line reaches (not through a const).
 */
declare const TASKS_PLAIN_ONLY: boolean | undefined;

/** What the process around a run may need of it while it runs. */
export interface RunHandle {
  /** Record what this run has changed now: the process is about to end (a signal, a gone reader). */
  stopJournal(): void;
  /** What the run records and listens to (core/scope): the locks it holds, for a signal's exit. */
  scope: RunScope;
}

export interface RunOptions {
  /** The working directory (undefined: it was deleted); the process's by default. */
  cwd?: string | undefined;
  /** Told the run's handle before the command starts. */
  started?: (run: RunHandle) => void;
  /** The process runs this run and no other (main.ts): its scope is the process's (core/scope). */
  aloneInProcess?: boolean;
}

/**
 * One run of `tasks`, in process: the command line (`node tasks ...`, as process.argv
 * is), the streams, the environment and the working directory in; the exit code out.
 * main.ts runs it for the process; tests run it for output-only checks without a
 * process. Everything a run installs (the journal's record of its writes, the lock-wait
 * note, the new-list note, signal listeners while a command waits) is removed when it
 * ends, so runs one after another in one process leave nothing behind. Runs may overlap
 * in one process: each runs in a scope of its own (core/scope), and hears only its own
 * writes and lock waits.
 */
export function run(argv: readonly string[], io: IO, env: NodeJS.ProcessEnv, opts: RunOptions = {}): Promise<number> {
  const scope = new RunScope();
  const body = () => runInScope(scope, argv, io, env, opts);
  return opts.aloneInProcess === true ? asProcessRun(scope, body) : inScope(scope, body);
}

async function runInScope(scope: RunScope, argv: readonly string[], io: IO, env: NodeJS.ProcessEnv, opts: RunOptions): Promise<number> {
  const ctx = new Context(io, { env, cwd: 'cwd' in opts ? opts.cwd : processCwd(), argv });
  let journal: { stop: () => void } | undefined;
  const stopJournal = (): void => {
    journal?.stop();
    journal = undefined;
  };
  opts.started?.({ stopJournal, scope });
  let ranPlain = false;
  try {
    const remote = hostArgv(argv, env);
    if (remote?.refused !== undefined) throw new TasksError('usage', remote.refused);
    // The kept connection is a host's: without one named, commander would call it an unknown
    // option. Help asked for (tasks --disconnect --help) is shown, as anywhere else.
    if (remote === undefined && disconnectWords(argv.slice(2)) !== undefined && !asksForHelp(argv.slice(2))) {
      // Refused before the program reads --json: said as it asks all the same.
      io.useFlags(() => ({ json: argv.includes('--json'), color: argv.includes('--no-color') ? false : undefined }));
      throw new TasksError('usage', '--disconnect: name the host whose kept connection to close (tasks -H box --disconnect)');
    }
    // The board of hosts runs here (commands/board.ts); every other command runs on its host.
    if (!(typeof TASKS_PLAIN_ONLY !== 'undefined' && TASKS_PLAIN_ONLY) && remote !== undefined) {
      // Run on the host (-H, $TASKS_HOST): nothing of the command is loaded here.
      if (remote.command !== 'board') return await (await import('./remote/remote-run.js')).runRemote(argv, remote, io, env);
      // The board of hosts: how each is reached, found here (commands use no ssh), each host checked as -H checks it.
      ctx.hostFeeds = await (await import('./board-hosts/hosts-board.js')).boardHostFeeds(remote, io, env);
    }
    // The command line without its hosts (taken above): `--hosts=<file>` is no option of the program's.
    const parsed = remote === undefined ? argv : [argv[0] ?? 'node', argv[1] ?? 'tasks', ...remote.args];
    if (io.mayColour(argv)) await loadColour();
    onLockWait((event) =>
      io.note(renderLockWait(event), 'lock_wait', {
        lock: event.lock,
        ageMs: Math.round(event.ageMs),
        expiresInMs: Math.round(event.expiresInMs),
        likelyDead: event.likelyDead,
      }),
    );
    const beforeCommand = (command: Parameters<typeof recordChanges>[1]): void => {
      journal = recordChanges(ctx, command);
      ctx.stopJournal = stopJournal;
    };
    // A plain `list` or `get` runs its command without commander's program (read-path/).
    const plain = remote === undefined ? plainRead(parsed) : undefined;
    ranPlain = plain !== undefined;
    if (plain !== undefined) {
      ctx.attach({ opts: <T>() => plain.globals as T });
      beforeCommand(plain.command);
      await plain.run(ctx);
    } else if (typeof TASKS_PLAIN_ONLY !== 'undefined' && TASKS_PLAIN_ONLY) {
      // Never: main.ts declines a command line that is not a plain read before it runs.
      throw new Error('this bundle runs plain reads alone');
    } else {
      const [{ buildProgram, withoutHelpOfUnknown }, { withValuesJoined }] = await Promise.all([
        import('./commands/program.js'),
        import('./remote/command-values.js'),
      ]);
      const program = await buildProgram(ctx, parsed);
      program.hook('preAction', (_root, command) => beforeCommand(command));
      await program.parseAsync([...withValuesJoined(program, withoutHelpOfUnknown(program, parsed))]);
    }
  } catch (err) {
    // Only a run that built the program can meet commander's errors (commander is loaded then).
    if (
      !(typeof TASKS_PLAIN_ONLY !== 'undefined' && TASKS_PLAIN_ONLY) &&
      !ranPlain &&
      err instanceof (await import('commander')).CommanderError
    ) {
      if (err.exitCode === 0 || err.code === 'commander.helpDisplayed' || err.code === 'commander.version') {
        io.setExit(EXIT.ok);
      } else if (err.code === 'commander.help') {
        // `tasks` with no command: the help was printed to stderr; that is a usage error.
        if (io.json) io.fail(new TasksError('usage', 'a command is needed; tasks --help lists them'));
        else io.setExit(EXIT.usage);
      } else {
        const mistake = err.code === 'commander.excessArguments' ? explainIdOptionMistake(argv) : undefined;
        const message = mistake ?? err.message.replace(/^error:\s*/i, '');
        io.fail(new TasksError('usage', message, mistake === undefined ? { hint: 'add --help for usage' } : {}));
      }
    } else {
      io.fail(err);
      if (env.TASKS_DEBUG && err instanceof Error) io.writeErr(`${err.stack}\n`);
    }
  } finally {
    stopJournal();
    onLockWait(undefined);
    ctx.dispose();
  }
  return io.exitCode;
}
