import { Readable } from 'node:stream';
import { lineSplitter } from '../../core/base/line-splitter.js';
import { writeAllSync } from '../runtime/fd-output.js';
import { IO } from '../runtime/io.js';
import type { HostRequest } from './host-link.js';
import { relayInput, relayStreams } from './relay.js';

/** One run of tasks in this process, as run.ts makes it (main.ts hands it over: no folder here imports run.ts). */
export type InProcessRun = (argv: readonly string[], io: IO, env: NodeJS.ProcessEnv, opts: { cwd?: string | undefined }) => Promise<number>;

/**
 * The host's side of a kept connection (`tasks __host-serve`, started by the local
 * broker over ssh, host-broker.ts): tasks stays up here between commands, and runs each
 * command the local side sends in this process, as a run of its own (run.ts: its own run
 * scope, streams and environment), answering for the local terminal as a relayed run
 * does (relay.ts). Nothing listens here: the commands come on stdin, the one channel ssh
 * gives, and the answers go back on stdout, each line naming its command.
 *
 * Commands run side by side (a change waiting for a lock an agent holds does not hold up
 * a read from another terminal), as runs in one process may (core/scope), with one
 * exception: the time zone a run shows times in is the process's (TZ), so a command in
 * another zone than those running waits until they end. When the connection goes (stdin
 * ends, ssh's hang-up, a signal), the commands running finish, whole, and those waiting
 * are never started: a change here is made whole or not at all.
 */
export function serveStdio(run: InProcessRun, env: NodeJS.ProcessEnv): Promise<number> {
  const base: NodeJS.ProcessEnv = { ...env };
  const cwd = process.cwd();
  const queue: HostRequest[] = [];
  const running = new Set<number>();
  let zone: string | undefined;
  let closing = false;
  let finished: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => {
    finished = resolve;
  });

  const send = (message: object): void => {
    try {
      if (!writeAllSync(1, `${JSON.stringify(message)}\n`)) close();
    } catch {
      close();
    }
  };
  const channel = {
    write: (text: string) => {
      try {
        if (!writeAllSync(1, text)) closing = true;
      } catch {
        closing = true;
      }
    },
  };
  const close = (): void => {
    closing = true;
    queue.length = 0;
    if (running.size === 0) finished(0);
  };

  /** Start what may start now: every waiting command, in order, while its zone is that of those running. */
  const next = (): void => {
    for (let head = queue[0]; head !== undefined && !closing; head = queue[0]) {
      const runEnv = withSettings(base, head.env);
      if (running.size > 0 && runEnv.TZ !== zone) return;
      queue.shift();
      zone = runEnv.TZ;
      setProcessZone(zone);
      void start(head, runEnv);
    }
  };

  const start = async (request: HostRequest, runEnv: NodeJS.ProcessEnv): Promise<void> => {
    running.add(request.i);
    send({ i: request.i, t: Date.now() });
    const streams = relayStreams(request.view, channel, request.i);
    let code = 2;
    if (streams !== undefined) {
      const stdin = { isTTY: false, stream: () => Readable.from([]) };
      const io = new IO({ ...streams, stdin: relayInput(request.view, stdin) ?? stdin }, runEnv, { host: request.view.host });
      try {
        code = await run(['node', 'tasks', ...request.args], io, runEnv, { cwd });
      } catch {
        code = 1;
      }
    }
    running.delete(request.i);
    send({ i: request.i, x: code });
    if (closing) {
      if (running.size === 0) finished(0);
    } else next();
  };

  const onLine = (line: string): void => {
    if (line === '' || closing) return;
    let msg: Partial<HostRequest> & { cancel?: boolean };
    try {
      msg = JSON.parse(line) as typeof msg;
    } catch {
      return;
    }
    if (typeof msg.i !== 'number') return;
    if (msg.cancel) {
      const at = queue.findIndex((q) => q.i === msg.i);
      if (at >= 0) {
        queue.splice(at, 1);
        send({ i: msg.i, x: 130 });
      }
      return;
    }
    if (!Array.isArray(msg.args) || typeof msg.view?.host !== 'string') return;
    queue.push({ i: msg.i, args: msg.args.map(String), env: msg.env ?? {}, view: msg.view });
    next();
  };
  process.stdin.setEncoding('utf8');
  const lines = lineSplitter(onLine);
  process.stdin.on('data', (chunk: string) => lines.push(chunk));
  process.stdin.on('end', close);
  process.stdin.on('error', close);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, close);
  send({ ready: true });
  return done;
}

/** The host's environment with the local side's settings for one command (null: unset). */
function withSettings(base: NodeJS.ProcessEnv, settings: Record<string, string | null>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const [name, value] of Object.entries(settings)) {
    if (value === null) delete env[name];
    else env[name] = String(value);
  }
  return env;
}

/** Times are shown in the process's time zone: the local side's for this command. */
function setProcessZone(zone: string | undefined): void {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
}
