import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import type { IO } from '../runtime/io.js';
import type { SshTarget } from './host-address.js';
import { BROKER_COMMAND } from './host-argv.js';
import { type LinkRequest, linkPaths, persistSeconds, sshCommandFolder } from './host-link.js';
import { binPath } from './payload.js';
import type { RelayView } from './relay.js';
import { relayReader } from './relay.js';
import { connectTimeout } from './ssh-command.js';
import type { SshOutcome } from './ssh-process.js';

/**
 * How long a command waits, beyond ssh's connect timeout, for the broker to hand it to the
 * host: as long as the broker waits for the host's tasks to start (host-broker.ts), and as
 * a command over ssh waits (host-run.ts). A broker that says nothing in that time (stopped)
 * may yet hand the command on, so it is not run over ssh too: exit 8, no answer.
 */
const HAND_OVER_GRACE_MS = 20_000;

/**
 * A command on a host through the kept connection (host-broker.ts), when there is one:
 * the command line, the local terminal's settings and the relay's view go to the broker's
 * socket, and the host's answer comes back as the relay's lines (relay.ts), written here
 * as they come. Undefined when the broker did not take the command (none running, another
 * build, the host not reached): the caller runs it over ssh instead, which is safe, as
 * the host never had it. Once the broker said it handed the command on, the outcome is
 * the host's: its exit status, or a lost connection (status 255 after ready, exit 8).
 */
export function viaBroker(
  target: SshTarget,
  req: { args: readonly string[]; env: Record<string, string | null>; view: RelayView; build: string },
  io: IO,
  env: NodeJS.ProcessEnv,
  keepStdout: boolean,
  /** A change: once the host has started it, a signal here waits for its answer (see holdSignals). */
  change = false,
): Promise<SshOutcome | undefined> {
  const paths = persistSeconds(env) === 0 ? undefined : linkPaths(target, env);
  if (paths === undefined) return Promise.resolve(undefined);
  let key: string;
  try {
    key = fs.readFileSync(paths.key, 'utf8');
  } catch {
    return Promise.resolve(undefined);
  }
  const request: LinkRequest = { key, build: req.build, args: [...req.args], env: req.env, view: req.view };
  const outcome: SshOutcome = { status: undefined, signal: undefined, ready: false, markers: [], sshText: '', stdout: '', noAnswer: false };
  const sent = Date.now();
  const relayed = relayReader(
    (s) => {
      if (keepStdout) outcome.stdout += s;
      else io.write(s);
    },
    (s) => io.writeErr(s),
  );
  return new Promise((resolve) => {
    let settled = false;
    const settle = (value: SshOutcome | undefined): void => {
      if (settled) return;
      settled = true;
      releaseSignals();
      clearTimeout(watchdog);
      process.removeListener('exit', drop);
      socket.destroy();
      resolve(value);
    };
    // This process ending (a signal) tells the broker at once: a command not yet started there never is.
    const drop = (): void => {
      socket.destroy();
    };
    process.once('exit', drop);
    // A change the host has started is finished there whatever happens here (host-serve.ts):
    // a signal then waits for the host's answer, so that the exit status says what was done
    // there, as a run here that finishes its locked step does (a script told 130 would make
    // the change again). Listening is enough: main.ts leaves a signal a command takes to it,
    // and ends the process at a second one.
    const hold = (): void => {};
    const holdSignals = (): void => {
      for (const signal of HELD_SIGNALS) process.on(signal, hold);
    };
    const releaseSignals = (): void => {
      for (const signal of HELD_SIGNALS) process.off(signal, hold);
    };
    const watchdog = setTimeout(
      () => {
        if (outcome.ready) return;
        outcome.noAnswer = true;
        settle(outcome);
      },
      connectTimeout(env) * 1000 + HAND_OVER_GRACE_MS,
    );
    const socket = net.connect(paths.socket);
    socket.setEncoding('utf8');
    socket.once('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    let pending = '';
    const line = (l: string): void => {
      let msg: { s?: unknown; t?: unknown; x?: unknown; f?: unknown; o?: unknown; e?: unknown };
      try {
        msg = JSON.parse(l) as typeof msg;
      } catch {
        return;
      }
      if (msg.s !== undefined) {
        outcome.ready = true;
      } else if (typeof msg.t === 'number') {
        outcome.clock = { host: msg.t, sent, received: Date.now() };
        if (change) holdSignals();
      } else if (typeof msg.x === 'number') {
        outcome.status = msg.x;
        settle(outcome);
      } else if (msg.f !== undefined) {
        if (!outcome.ready) settle(undefined);
        else lost();
      } else relayed.push(`${l}\n`);
    };
    const lost = (): void => {
      outcome.status = 255;
      settle(outcome);
    };
    socket.on('data', (chunk: string) => {
      pending += chunk;
      for (let nl = pending.indexOf('\n'); nl >= 0 && !settled; nl = pending.indexOf('\n')) {
        const l = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        line(l);
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      if (!outcome.ready) settle(undefined);
      else lost();
    });
  });
}

/** The signals that stop a command here (main.ts). */
const HELD_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Start a broker for this host, detached (it outlives this command, as ssh's
 * ControlPersist master does), unless kept connections are off. If one is running or
 * starting already, the new one sees it and exits.
 */
export function startBroker(target: SshTarget, env: NodeJS.ProcessEnv): void {
  if (persistSeconds(env) === 0 || linkPaths(target, env) === undefined) return;
  const bin = binPath();
  if (bin === undefined) return;
  const child = spawn(process.execPath, [bin, '-H', target.label, BROKER_COMMAND], {
    detached: true,
    stdio: 'ignore',
    // Not holding a folder the user may want to remove, unless their ssh command line's relative paths point there.
    cwd: sshCommandFolder(env) ?? '/',
    env: { ...env, TASKS_HOST: undefined },
  });
  child.on('error', () => {});
  child.unref();
}

/**
 * `tasks -H box --disconnect`: close the connection kept to the host (its broker here, and
 * tasks there), after the commands it runs now; says whether there was one.
 */
export async function disconnect(target: SshTarget, io: IO, env: NodeJS.ProcessEnv): Promise<void> {
  const paths = linkPaths(target, env);
  let key: string | undefined;
  try {
    key = paths === undefined ? undefined : fs.readFileSync(paths.key, 'utf8');
  } catch {
    key = undefined;
  }
  const kept =
    paths !== undefined &&
    key !== undefined &&
    (await new Promise<boolean>((resolve) => {
      const socket = net.connect(paths.socket);
      let answer = '';
      socket.setEncoding('utf8');
      socket.once('connect', () => socket.write(`${JSON.stringify({ key, build: '', stop: true } satisfies LinkRequest)}\n`));
      socket.on('data', (chunk: string) => {
        answer += chunk;
      });
      socket.on('error', () => resolve(false));
      socket.on('close', () => resolve(answer.startsWith('{"x":0}')));
    }));
  io.note(kept ? `closed the connection kept to ${target.label}` : `no connection kept to ${target.label}`, 'host_disconnected', {
    host: target.label,
    kept,
  });
}
