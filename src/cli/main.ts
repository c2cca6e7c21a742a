import { locksActive, onLocksIdle } from '../core/locks/lock-activity.js';
import { plainRead } from './read-path/plain-read.js';
import { type HostArgv, hostArgv, SERVE_COMMAND } from './remote/host-argv.js';
import { relayInput, relayStreams, takeRelayView } from './remote/relay.js';
import type { RunHandle } from './run.js';
import { endWhenIdle } from './runtime/end-when-idle.js';
import { EXIT } from './runtime/exit-codes.js';
import { standardError, standardInput, standardOutput } from './runtime/fd-output.js';
import { IO } from './runtime/io.js';
import { repeatedSignalsTaken } from './runtime/repeat-signals.js';
import { processTerminal } from './runtime/terminal.js';

/**
 * Set by the build in dist/tasks-remote.cjs, the bundle bin/tasks.js runs for a command
 * line that names a host: it holds what sends a command to a host and nothing of the
 * commands, so that the command starts there sooner (a third of the time `tasks -H box
 * list` took was this machine loading the whole CLI before ssh was started).
 */
declare const TASKS_REMOTE_ONLY: boolean | undefined;
/**
 * Set by the build in dist/tasks-plain.cjs, the bundle bin/tasks.js tries first for
 * `list` and `get`: it holds the plain reads (read-path/) and nothing of commander's
 * program, the other commands or the hosts, which left 30% less code for every start to
 * read and hand to V8. A command line the plain read does not take is declined
 * (`declined`, below) before anything runs, and bin/tasks.js runs the read bundle instead.
 */
declare const TASKS_PLAIN_ONLY: boolean | undefined;

/**
 * The process's entry, and the one place that decides how the process ends: a run
 * (run.ts) returns its exit code, which becomes `process.exitCode` here. We never call
 * process.exit() after output, which can cut a large write to a pipe; only a reader
 * that went away, or a second signal, ends the process at once. What is the process's
 * alone stays here: its streams, SIGINT / SIGTERM / SIGHUP, a closed pipe.
 */
async function main(argv: string[]): Promise<void> {
  let current: RunHandle | undefined;
  let io: IO | undefined;
  // `tasks list | head -1`: the reader went away; that is not an error. A command may
  // take it and go on (a stream's watch reads its input to the end first).
  const readerGone = (): void => {
    if (io?.readerWentAway()) return;
    current?.stopJournal();
    process.exit(EXIT.ok);
  };
  const stdout = await standardOutput(readerGone);
  if (stdout.isTTY) {
    // A terminal's stdout is process.stdout itself (fd-output.ts).
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
      readerGone();
    });
  }
  handleInterrupts(() => current);
  endWhenIdle();
  const env = process.env;
  // Run for a command typed on another machine (tasks -H there): name it in errors, and answer a read as a run there would (remote/relay.ts).
  const relay = takeRelayView(env);
  const streams = relayStreams(relay, stdout) ?? { stdout, stderr: await standardError() };
  const stdin = standardInput();
  io = new IO({ ...streams, stdin: relayInput(relay, stdin) ?? stdin, terminal: () => processTerminal(env) }, env, { host: relay?.host });
  const remote = hostArgv(argv, env);
  // The condition names the build's constant itself: esbuild then leaves the commands out of the remote bundle.
  if (typeof TASKS_REMOTE_ONLY !== 'undefined' && TASKS_REMOTE_ONLY) {
    process.exitCode = remote === undefined ? EXIT.failure : await runOnHost(argv, remote, io, env);
  } else if (!(typeof TASKS_PLAIN_ONLY !== 'undefined' && TASKS_PLAIN_ONLY) && remote !== undefined && remote.command !== 'board') {
    // (The plain bundle is never given a host: it declines such a command line, below.)
    process.exitCode = await runOnHost(argv, remote, io, env);
  } else if (!(typeof TASKS_PLAIN_ONLY !== 'undefined' && TASKS_PLAIN_ONLY) && argv[2] === SERVE_COMMAND) {
    // The host's side of a connection kept from another machine: commands run in this process, one after another (remote/host-serve.ts).
    const [{ serveStdio }, { run }] = await Promise.all([import('./remote/host-serve.js'), import('./run.js')]);
    process.exitCode = await serveStdio(run, env);
  } else {
    // In the process's working directory (run's default).
    const { run } = await import('./run.js');
    process.exitCode = await run(argv, io, env, { started: (handle) => (current = handle), aloneInProcess: true });
  }
}

/** A command line naming a host: nothing is read or written here, no lock is taken; a signal ends ssh, and with it the command there. */
async function runOnHost(argv: string[], remote: HostArgv, io: IO, env: NodeJS.ProcessEnv): Promise<number> {
  const { runRemote } = await import('./remote/remote-run.js');
  return runRemote(argv, remote, io, env);
}

/**
 * SIGINT / SIGTERM / SIGHUP: stop at once if no lock is in play; otherwise let the locked step
 * finish (milliseconds: a write is synchronous, the release one rmdir) and stop before
 * the next, so no lock is left behind and every file is either old or new. Waiting one
 * macrotask after the last release lets a step that follows at once (the other side of
 * an edge) complete too. A command that handles the signal itself (one running hooks
 * turns it into an abort, and unwinds through its locks' releases; watch quits) is left
 * to do so, and to choose its exit status. A second signal stops at once, with 130.
 * (Our listeners also keep signal-exit, loaded by proper-lockfile, out of the way.)
 */
function handleInterrupts(running: () => RunHandle | undefined): void {
  let signals = 0;
  const stopWhenIdle = (): void => {
    const scope = running()?.scope;
    onLocksIdle(() => setImmediate(() => (locksActive(scope) === 0 ? interruptedExit() : stopWhenIdle())), scope);
  };
  const interruptedExit = (): never => {
    running()?.stopJournal();
    return process.exit(EXIT.interrupted);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    signals++;
    // A second ends the process at once, unless the command answers it itself (then a third).
    if (signals > (repeatedSignalsTaken() && process.listenerCount(signal) > 1 ? 2 : 1)) interruptedExit();
    if (process.listenerCount(signal) > 1) return;
    stopWhenIdle();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A closed terminal: the same as SIGTERM, so a locked step finishes and no lock is left.
  process.on('SIGHUP', onSignal);
}

/**
 * The plain bundle's answer to bin/tasks.js: true when this command line is not a plain
 * read here (another command line, or a host named, as by $TASKS_HOST, which bin/tasks.js
 * sends to the remote bundle when it is there), which the bundle leaves to another,
 * having run nothing (no listener, no stream).
 */
export const declined =
  (typeof TASKS_PLAIN_ONLY !== 'undefined' &&
    TASKS_PLAIN_ONLY &&
    (plainRead(process.argv) === undefined || hostArgv(process.argv, process.env) !== undefined)) ||
  (typeof TASKS_REMOTE_ONLY !== 'undefined' && TASKS_REMOTE_ONLY && remoteDeclines(process.argv, process.env));

/**
 * The remote bundle's answer to bin/tasks.js: true when the command line names no host
 * after all. bin/tasks.js sends here every line with a host word before `--`, without
 * knowing the commands' options: a word like -Hotfix may be an option's value
 * (`update 4 --subject -Hotfix`, host-argv.ts), and the whole CLI then runs it here.
 */
function remoteDeclines(argv: readonly string[], env: NodeJS.ProcessEnv): boolean {
  const remote = hostArgv(argv, env);
  return remote === undefined || remote.command === 'board';
}
if (!declined) void main(process.argv);
