import { spawn } from 'node:child_process';
import { lineSplitter } from '../../core/base/line-splitter.js';
import type { SshTarget } from '../remote/host-address.js';
import { runOnHost } from '../remote/host-run.js';
import { MARKER, remoteCommand } from '../remote/remote-scripts.js';
import { connectTimeout, sshCall } from '../remote/ssh-command.js';
import { isSshDropLine, sshFailureCause } from '../remote/ssh-faults.js';
import type { HostFeedChannel as FeedChannel } from '../runtime/context.js';
import type { IO } from '../runtime/io.js';

/** Time a host gets, beyond ssh's connect timeout, to start its board (Node's start, the first read of its lists). */
const START_GRACE_MS = 30_000;
/** Time a connected host gets, beyond ssh's connect timeout, to answer a request (and a ping: board-feed-client.ts). */
const ANSWER_GRACE_MS = 5000;

/**
 * How long a connected host has to answer: the connect timeout (TASKS_SSH_TIMEOUT, which
 * the user sets for a slow link) and a few seconds; a host silent that long is down, and
 * dialled again.
 */
export function answerDeadlineMs(env: NodeJS.ProcessEnv): number {
  return connectTimeout(env) * 1000 + ANSWER_GRACE_MS;
}

/**
 * A host's board feed over the user's own ssh (the same call as every `-H` command:
 * BatchMode, the connect timeout, the shared connection, TASKS_SSH_COMMAND): `tasks
 * board-feed` run there by the copy of this build in the host's cache folder, its stdin
 * and stdout the channel. When it does not start, the reason is found as a `-H` command
 * finds it: a command run there (`tasks --version`), which copies this build there first
 * when it is missing, or fails with the one-line cause (exit 8's message).
 */
export function sshFeed(
  target: SshTarget,
  folder: string,
  io: IO,
  env: NodeJS.ProcessEnv,
): (globalArgs: readonly string[]) => Promise<FeedChannel> {
  return async (globalArgs) => {
    const first = await spawnFeed(target, folder, globalArgs, env);
    if ('channel' in first) return first.channel;
    // ssh itself failed, or no answer: that is the cause; a command run there would only wait as long again.
    if (first.sshFailed) throw new Error(`host ${target.label}: ${first.cause}`);
    // Not started: copy this build there if it is missing, or learn why not (thrown, naming the host).
    try {
      await runOnHost(target, ['--version'], folder, io, env, { keepStdout: true });
    } catch (err) {
      throw new Error((err as Error).message);
    }
    const second = await spawnFeed(target, folder, globalArgs, env);
    if ('channel' in second) return second.channel;
    throw new Error(`host ${target.label}: the board could not start there: ${second.cause}`);
  };
}

/** The process ending ends every host's ssh, and with it the board there (one listener, however many hosts). */
const running = new Set<() => void>();
function endAll(): void {
  for (const end of running) end();
}

function spawnFeed(
  target: SshTarget,
  folder: string,
  globalArgs: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ channel: FeedChannel } | { cause: string; sshFailed: boolean }> {
  // The feed runs there as a command of its own: not on the host the host's TASKS_HOST would name.
  const settings = JSON.stringify({ env: { TASKS_HOST: null, ...pick(env, ['TASKS_NOW', 'TASKS_DEBUG']) }, link: false });
  const call = sshCall(target, remoteCommand('run', folder, [settings, ...globalArgs, 'board-feed']), { tty: false, env });
  const child = spawn(call.file, call.args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const endSsh = (): void => {
    child.kill('SIGTERM');
    // Its pipes too: ssh's shared connection holds them (ssh passed them to its master) until the
    // host's command has ended, and this process would not end before (a host slow to stop, or stuck).
    child.stdin.destroy();
    child.stdout.destroy();
    child.stderr.destroy();
  };
  running.add(endSsh);
  if (!process.listeners('exit').includes(endAll)) process.on('exit', endAll);
  child.stdin.on('error', () => undefined);
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  let said = '';
  let ready = false;
  let noAnswer = false;
  child.stderr.on('data', (s: string) => {
    // Before the launcher's ready line: ssh's and the set-up's words; after it, the host's warnings (kept for the cause).
    said = (said + s).slice(-4000);
    if (!ready && said.includes(`${MARKER}ready`)) ready = true;
  });
  const lineListeners: Array<(line: string) => void> = [];
  const closeListeners: Array<(cause: string) => void> = [];
  let hello = false;
  const early: string[] = [];
  return new Promise((resolve) => {
    const watchdog = setTimeout(
      () => {
        noAnswer = true;
        said += `no answer within ${Math.round(call.connectTimeoutS + START_GRACE_MS / 1000)}s\n`;
        child.kill('SIGTERM');
      },
      call.connectTimeoutS * 1000 + START_GRACE_MS,
    );
    const channel: FeedChannel = {
      send: (line) => {
        if (child.stdin.writable) child.stdin.write(line);
      },
      // Lines that came before anyone listened (the hello that made the channel ready) are given first.
      onLine: (cb) => {
        lineListeners.push(cb);
        for (const line of early.splice(0)) cb(line);
      },
      onClose: (cb) => closeListeners.push(cb),
      close: endSsh,
    };
    const lines = lineSplitter((line) => {
      if (!hello && line.startsWith('{"hello"')) {
        hello = true;
        clearTimeout(watchdog);
        resolve({ channel });
      }
      if (lineListeners.length === 0) early.push(line);
      for (const cb of lineListeners) cb(line);
    });
    child.stdout.on('data', (s: string) => lines.push(s));
    child.on('error', (err) => {
      said += `${err.message}\n`;
    });
    child.on('close', (status) => {
      clearTimeout(watchdog);
      running.delete(endSsh);
      const cause = causeOf(said, status, call.connectTimeoutS, ready, hello);
      if (!hello) return resolve({ cause, sshFailed: noAnswer || (status === 255 && !ready) });
      for (const cb of closeListeners) cb(`host ${target.label}: ${cause}`);
    });
  });
}

function causeOf(said: string, status: number | null, timeoutS: number, ready: boolean, connected: boolean): string {
  const lines = said
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith(MARKER));
  // A connection that worked and went: ssh often says nothing of why (the host went down, the network dropped).
  if (connected && (status === 255 || status === null) && !lines.some((l) => !isSshDropLine(l)))
    return `the connection was lost${lines.length > 0 ? ` (${lines.at(-1)})` : ''}`;
  if (status === 255 || !ready) return sshFailureCause(lines.join('\n'), timeoutS);
  const last = lines.pop();
  return `the board there ended (status ${status ?? 'killed'})${last ? `: ${last}` : ''}`;
}

function pick(env: NodeJS.ProcessEnv, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) if (env[n] !== undefined) out[n] = env[n] as string;
  return out;
}
