import { TasksError } from '../../core/base/errors.js';
import { EXIT } from '../runtime/exit-codes.js';
import type { IO } from '../runtime/io.js';
import type { SshTarget } from './host-address.js';
import { startBroker, viaBroker } from './host-broker-client.js';
import { payloadBytes, readPayload } from './payload.js';
import { RELAY_ENV, type RelayView, relayEnv } from './relay.js';
import { INSTALLER, REMOTE_STATUS, remoteCommand } from './remote-scripts.js';
import { connectTimeout, sshCall } from './ssh-command.js';
import { sshFailureCause } from './ssh-faults.js';
import { runSsh, type SshOutcome } from './ssh-process.js';

/** Time a host gets, beyond ssh's connect timeout, to start tasks (Node's start on a slow box). */
const START_GRACE_MS = 20_000;
/** Time a host gets, beyond ssh's connect timeout, to take the copy of tasks. */
const INSTALL_GRACE_MS = 120_000;

/**
 * One command on one host: run it; when the host has no copy of this build, copy it
 * and run it again. Sets the run's exit status (the host's, or 8).
 */
export async function runOnHost(
  target: SshTarget,
  args: readonly string[],
  folder: string,
  io: IO,
  env: NodeJS.ProcessEnv,
  /** relay: answered for the local streams (relay.ts); a 'read' has nothing to finish when the connection goes, a 'change' does. */
  opts: {
    keepStdout: boolean;
    forceNoTty?: boolean;
    relay?: 'read' | 'change' | undefined;
    /** The command named (`import`, `watch` ...): whether it reads the local stdin. */
    command?: string | undefined;
  },
): Promise<SshOutcome> {
  // A terminal on both ends: the host gets one too (ssh -tt), the local one's size; a
  // relayed command answers for the local streams without one (relay.ts).
  const tty = !opts.relay && !opts.forceNoTty && !opts.keepStdout && io.stdin.isTTY && io.humanLayout;
  // Without a terminal there, the host's stdin is a pipe from sshd: its end is the end of
  // the connection, and stops the command as Ctrl-C would, unless the command reads it. A
  // relayed read has nothing to finish: a connection gone ends it at its next write, and
  // it starts sooner without the stream machinery stdin needs there.
  const readsInput = readsStdin(opts.command, args);
  const link = !tty && opts.relay !== 'read' && !readsInput;
  const forwarded = forwardedEnv(io, env, tty);
  const view: RelayView = { host: target.label };
  if (opts.relay) {
    Object.assign(forwarded, relayEnv(env), { COLUMNS: null });
    view.out = { tty: io.humanLayout, columns: io.columns };
    view.err = { tty: io.stderrIsTTY, columns: io.noteColumns };
    view.in = { tty: io.stdin.isTTY };
  }
  if (opts.relay && !readsInput) {
    // The kept connection, when there is one: no ssh and no Node start there (host-broker.ts).
    const kept = await viaBroker(
      target,
      { args, env: { ...forwarded }, view, build: folder },
      io,
      env,
      opts.keepStdout,
      opts.relay === 'change',
    );
    if (kept !== undefined) {
      io.setExit(exitOf(kept, target, connectTimeout(env)));
      return kept;
    }
  }
  forwarded[RELAY_ENV] = JSON.stringify(view);
  // Without a terminal there, stdout is the command's alone from the launcher's ready line on.
  const settings = JSON.stringify({ env: forwarded, link, mark: !tty });
  const launch = remoteCommand('run', folder, [settings, ...args]);
  if (!tty && readsInput) {
    // The command reads stdin: ssh must not take any of it for a run that finds no copy there.
    const call = sshCall(target, remoteCommand('probe', folder, []), { tty: false, env });
    const probe = await runSsh(call, io, {
      tty: false,
      stdin: Buffer.alloc(0),
      keepStdout: true,
      watchdogMs: call.connectTimeoutS * 1000 + START_GRACE_MS,
    });
    if (probe.status === REMOTE_STATUS.notInstalled) await install(target, folder, io, env);
    else if (probe.status !== 0) exitOf(probe, target, call.connectTimeoutS);
  }
  for (let attempt = 0; ; attempt++) {
    const call = sshCall(target, launch, { tty, env });
    const outcome = await runSsh(call, io, {
      tty,
      // A relayed read reads no stdin: ssh must not read the local one away (a `while read` loop's next lines).
      stdin: link ? 'link' : opts.relay === 'read' ? Buffer.alloc(0) : 'inherit',
      keepStdout: opts.keepStdout,
      relay: opts.relay !== undefined,
      marked: !tty,
      // A change or a watch: the host ends it as at Ctrl-C there, and says how (a watch's end
      // event); an import is a change the host finishes. (A stream's watch reads stdin for good.)
      finishOnSignal: link || (!tty && opts.command === 'import'),
      outlivesReader: isGate(opts.command, args),
      watchdogMs: call.connectTimeoutS * 1000 + START_GRACE_MS,
    });
    if (outcome.status === REMOTE_STATUS.notInstalled && !outcome.ready && attempt === 0) {
      await install(target, folder, io, env);
      continue;
    }
    io.setExit(exitOf(outcome, target, call.connectTimeoutS));
    // The host answered: keep a connection to it for the next commands.
    if (opts.relay && !readsInput && outcome.ready) startBroker(target, env);
    return outcome;
  }
}

/**
 * A command whose status is a verdict, which a reader going away must not cut short: a
 * watch with --until, and a run (here, its reader gone never ends the agent's run either).
 */
function isGate(command: string | undefined, args: readonly string[]): boolean {
  if (command === 'run') return true;
  if (command !== 'watch') return false;
  const end = args.indexOf('--');
  const own = end < 0 ? args : args.slice(0, end);
  return own.some((word) => word === '--until' || word.startsWith('--until=') || word.startsWith('-u'));
}

/**
 * `import` reads its input from stdin, as `watch --stream -` does: those get the local
 * stdin. By the command, not by any word: a list or a task named "import" must not give
 * ssh the local stdin, which it would read away (a `while read` loop's next lines).
 */
function readsStdin(command: string | undefined, args: readonly string[]): boolean {
  if (command === 'import') return true;
  return command === 'watch' && args.some((word, i) => word === '--stream=-' || (word === '--stream' && args[i + 1] === '-'));
}

/**
 * What the host's tasks should know of the local terminal: its width and the colour
 * choice (without a terminal there, it would print plain lines for a pipe), and the
 * clock and debug settings. Colour off locally stays off there.
 */
function forwardedEnv(io: IO, env: NodeJS.ProcessEnv, tty: boolean): Record<string, string | null> {
  // The command runs there, not on a host the host's own TASKS_HOST would name.
  const out: Record<string, string | null> = { TASKS_HOST: null };
  if (!tty) out.COLUMNS = String(io.columns);
  for (const name of ['NO_COLOR', 'FORCE_COLOR', 'TASKS_NOW', 'TASKS_DEBUG'] as const) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** Copy this build to the host and say so, once. */
async function install(target: SshTarget, folder: string, io: IO, env: NodeJS.ProcessEnv): Promise<void> {
  const payload = await readPayload(folder);
  const call = sshCall(target, remoteCommand('install', payload.folder, [INSTALLER]), { tty: false, env });
  const outcome = await runSsh(call, io, {
    tty: false,
    stdin: payloadBytes(payload),
    keepStdout: true,
    watchdogMs: call.connectTimeoutS * 1000 + INSTALL_GRACE_MS,
  });
  // The installer names the folder it wrote (~ for the host user's home): XDG_CACHE_HOME there may move it.
  const installed = outcome.markers.find((m) => m.startsWith('installed '));
  if (installed === undefined) {
    throw hostFault(target, failureCause(outcome, target, call.connectTimeoutS) ?? `the copy of tasks failed (status ${outcome.status})`);
  }
  io.note(
    `tasks ${payload.version} copied to ${target.label}, into ${installed.slice('installed '.length)} (once for this build)`,
    'remote_installed',
    {
      host: target.label,
      folder: payload.folder,
      version: payload.version,
    },
  );
}

/** The run's exit status: the host's tasks's own, or a fault (thrown, exit 8). */
function exitOf(outcome: SshOutcome, target: SshTarget, timeoutS: number): number {
  const cause = failureCause(outcome, target, timeoutS);
  if (cause !== undefined) throw hostFault(target, cause);
  if (outcome.status === undefined) return EXIT.interrupted;
  return outcome.status;
}

function failureCause(outcome: SshOutcome, target: SshTarget, timeoutS: number): string | undefined {
  if (outcome.noAnswer) return `no answer within ${Math.round(timeoutS + START_GRACE_MS / 1000)}s`;
  if (outcome.ready) {
    return outcome.status === 255
      ? `the connection was lost while the command ran there (a change there is made whole or not at all: tasks -H ${target.label} log shows which)`
      : undefined;
  }
  const said = (name: string): string | undefined => outcome.markers.find((m) => m === name || m.startsWith(`${name} `));
  const oldNode = said('old-node');
  if (oldNode !== undefined) return `Node.js ${oldNode.slice(9)} there; tasks needs Node.js 20 or later on the host`;
  const unwritable = said('cache-unwritable');
  if (unwritable !== undefined) {
    const [, code, ...folder] = unwritable.split(' ');
    return `cannot write tasks' cache folder there (${folder.join(' ') || '~/.cache/tasks'}${code ? `: ${code}` : ''}); set XDG_CACHE_HOME there, or make it writable`;
  }
  if (said('corrupt') !== undefined) return 'the copy of tasks arrived damaged (its checksum differs); run the command again';
  if (said('installed') !== undefined) return undefined;
  switch (outcome.status) {
    case REMOTE_STATUS.noNode:
      return 'no Node.js there (node is not on the PATH that ssh commands get); tasks needs Node.js 20 or later on the host';
    case REMOTE_STATUS.notInstalled:
      return 'tasks was copied there but cannot be found (is the cache folder there cleaned at once?)';
    case 255:
    case undefined:
      return outcome.signal === undefined || outcome.status === 255 ? sshFailureCause(outcome.sshText, timeoutS) : undefined;
    default:
      // The login shell, not tasks, ended the command before the launcher ran.
      return `tasks could not start there: ${outcome.sshText.trim().split('\n').pop() || `status ${outcome.status}`}`;
  }
}

function hostFault(target: SshTarget, cause: string): TasksError {
  return new TasksError('unreachable', `host ${target.label}: ${cause}`, { details: { host: target.label } });
}
