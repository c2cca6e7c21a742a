import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import type net from 'node:net';
import { lineSplitter } from '../../core/base/line-splitter.js';
import type { SshTarget } from './host-address.js';
import { SERVE_COMMAND } from './host-argv.js';
import { answers, listenPrivately, takeLock } from './host-broker-socket.js';
import { type HostRequest, type LinkFault, type LinkRequest, linkPaths, persistSeconds } from './host-link.js';
import { payloadFolder } from './payload.js';
import { remoteCommand } from './remote-scripts.js';
import { sshCall } from './ssh-command.js';

/** Time the host gets, beyond ssh's connect timeout, to start tasks and say it is ready. */
const READY_GRACE_MS = 20_000;
/** The longest request line a caller may send (a command line and a few settings). */
const MAX_REQUEST = 1 << 20;

/**
 * The local end of a kept connection to one host, as ssh's ControlPersist keeps one: a
 * process of its own (`tasks -H box __host-broker`, started detached by the first command
 * that reached the host), holding one `ssh box tasks __host-serve` whose tasks stays up
 * there (host-serve.ts), and a Unix socket here that the next commands send themselves
 * through (host-broker-client.ts): no ssh and no Node start per command, on either end.
 *
 * Only this user reaches it: the socket is made 0600 in a folder only this user may enter
 * (ssh-command.ts), and a caller must send the key the broker wrote beside it (0600): a
 * process that cannot read this user's files cannot use it. Two brokers started at once
 * for one host: the one that takes the start lock and finds no live broker serves; the
 * other exits. It closes after TASKS_HOST_PERSIST seconds without a command (default
 * 600), on `tasks -H box --disconnect`, on SIGTERM, and when the host's side ends; a
 * command that finds it gone runs over ssh, as without it. The exit status is never read.
 */
export async function runBroker(target: SshTarget, env: NodeJS.ProcessEnv): Promise<number> {
  const paths = linkPaths(target, env);
  const idleMs = persistSeconds(env) * 1000;
  if (paths === undefined || idleMs === 0) return 0;
  if (!takeLock(paths.lock)) return 0;
  let server: net.Server;
  let key: string;
  try {
    if (await answers(paths.socket)) return 0;
    fs.rmSync(paths.socket, { force: true });
    key = randomBytes(24).toString('hex');
    fs.writeFileSync(`${paths.key}.${process.pid}`, key, { mode: 0o600 });
    fs.renameSync(`${paths.key}.${process.pid}`, paths.key);
    server = await listenPrivately(paths.socket);
  } finally {
    fs.rmSync(paths.lock, { force: true });
  }
  const socketId = fs.statSync(paths.socket).ino;
  const build = await payloadFolder();
  const broker = new Broker(target, env, build, key, idleMs, () => {
    // Only our own socket: a broker started after this one closed may have made its own.
    try {
      if (fs.statSync(paths.socket).ino === socketId) {
        fs.rmSync(paths.socket, { force: true });
        fs.rmSync(paths.key, { force: true });
      }
    } catch {
      // gone already
    }
  });
  server.on('connection', (socket) => broker.accept(socket));
  return broker.run(server);
}

/** A caller's command while it is the broker's: its socket, and whether the host has it. */
interface Pending {
  socket: net.Socket;
  request: HostRequest;
  sent: boolean;
}

class Broker {
  private child: ChildProcess | undefined;
  private ready = false;
  private stopping = false;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private idle: NodeJS.Timeout | undefined;
  private server: net.Server | undefined;
  private ended: (code: number) => void = () => {};

  constructor(
    private readonly target: SshTarget,
    private readonly env: NodeJS.ProcessEnv,
    private readonly build: string,
    private readonly key: string,
    private readonly idleMs: number,
    private readonly removeSocket: () => void,
  ) {}

  run(server: net.Server): Promise<number> {
    this.server = server;
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => this.stop());
    this.startHost();
    this.armIdle();
    return new Promise((resolve) => {
      this.ended = resolve;
    });
  }

  /** `ssh host tasks __host-serve`: the host's tasks, kept running. */
  private startHost(): void {
    const call = sshCall(
      this.target,
      remoteCommand('run', this.build, [JSON.stringify({ env: { TASKS_HOST: null }, link: false }), SERVE_COMMAND]),
      {
        tty: false,
        env: this.env,
      },
    );
    const child = spawn(call.file, call.args, { stdio: ['pipe', 'pipe', 'ignore'] });
    this.child = child;
    const watchdog = setTimeout(() => child.kill('SIGTERM'), call.connectTimeoutS * 1000 + READY_GRACE_MS);
    child.stdin?.on('error', () => {});
    const lines = lineSplitter((line) => {
      if (this.ready) return this.fromHost(line);
      if (line === '{"ready":true}') {
        clearTimeout(watchdog);
        this.ready = true;
        for (const p of this.pending.values()) this.hand(p);
      }
    });
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => lines.push(chunk));
    child.on('error', () => this.hostGone());
    child.on('close', () => {
      clearTimeout(watchdog);
      this.hostGone();
    });
  }

  /** A line of the host's answer to one command, passed on as it came; the last one ends the caller's connection. */
  private fromHost(line: string): void {
    let msg: { i?: unknown; x?: unknown };
    try {
      msg = JSON.parse(line) as typeof msg;
    } catch {
      return;
    }
    const p = typeof msg.i === 'number' ? this.pending.get(msg.i) : undefined;
    if (p === undefined) return;
    if (msg.x === undefined) {
      if (!p.socket.destroyed) p.socket.write(`${line}\n`);
      return;
    }
    this.pending.delete(p.request.i);
    if (!p.socket.destroyed) p.socket.end(`${line}\n`);
    this.afterCommand();
  }

  /** A caller: one request line, then the answer. */
  accept(socket: net.Socket): void {
    let buffer = '';
    let taken = false;
    socket.setEncoding('utf8');
    socket.on('error', () => {});
    socket.on('data', (chunk: string) => {
      if (taken) return;
      buffer += chunk;
      const nl = buffer.indexOf('\n');
      if (nl < 0) {
        if (buffer.length > MAX_REQUEST) socket.destroy();
        return;
      }
      taken = true;
      this.request(socket, buffer.slice(0, nl));
    });
  }

  private request(socket: net.Socket, line: string): void {
    let req: LinkRequest;
    try {
      req = JSON.parse(line) as LinkRequest;
    } catch {
      socket.destroy();
      return;
    }
    // JSON that is not an object (null, a number) has no key either: reading one off it would throw, and end the broker.
    if (typeof req !== 'object' || req === null || typeof req.key !== 'string' || !sameKey(req.key, this.key)) {
      socket.destroy();
      return;
    }
    if (req.stop) {
      socket.end('{"x":0}\n');
      this.stop();
      return;
    }
    if (req.build !== this.build) {
      // Another build of tasks asks: it runs over ssh, and the next command starts a broker of its build.
      fault(socket, 'build');
      this.stop();
      return;
    }
    if (this.stopping || !Array.isArray(req.args) || req.view === undefined) {
      fault(socket, 'unavailable');
      return;
    }
    const p: Pending = { socket, request: { i: this.nextId++, args: req.args, env: req.env ?? {}, view: req.view }, sent: false };
    this.pending.set(p.request.i, p);
    if (this.idle !== undefined) clearTimeout(this.idle);
    socket.on('close', () => {
      // The caller went away (Ctrl-C): a command not started there never is; one running finishes there, whole.
      if (this.pending.has(p.request.i) && p.sent) this.toHost({ i: p.request.i, cancel: true });
      else if (this.pending.delete(p.request.i)) this.afterCommand();
    });
    if (this.ready) this.hand(p);
  }

  /** The command goes to the host: from now on it may run there, and the caller is told so. */
  private hand(p: Pending): void {
    if (p.sent || p.socket.destroyed) return;
    p.sent = true;
    p.socket.write('{"s":1}\n');
    this.toHost(p.request);
  }

  private toHost(message: object): void {
    this.child?.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  private afterCommand(): void {
    if (this.pending.size > 0) return;
    if (this.stopping) this.endHost();
    else this.armIdle();
  }

  /** The host's side ends when its stdin does; one that does not within the grace is ended with ssh. */
  private endHost(): void {
    const child = this.child;
    if (child?.stdin === undefined || child.stdin === null) {
      this.hostGone();
      return;
    }
    child.stdin.end();
    setTimeout(() => child.kill('SIGTERM'), READY_GRACE_MS).unref();
  }

  private armIdle(): void {
    if (this.idle !== undefined) clearTimeout(this.idle);
    this.idle = setTimeout(() => this.stop(), this.idleMs);
  }

  /** No new command from now on; the host's side ends once those it has are answered. */
  private stop(): void {
    if (this.stopping) return;
    this.stopping = true;
    if (this.idle !== undefined) clearTimeout(this.idle);
    this.server?.close();
    this.removeSocket();
    for (const p of this.pending.values()) {
      if (!p.sent) {
        this.pending.delete(p.request.i);
        fault(p.socket, 'unavailable');
      }
    }
    if (this.pending.size === 0) this.endHost();
  }

  /** ssh ended (the host's side closed, the connection dropped, the host was never reached): the broker ends too. */
  private hostGone(): void {
    if (this.child === undefined && !this.stopping) return;
    this.stopping = true;
    if (this.idle !== undefined) clearTimeout(this.idle);
    this.server?.close();
    this.removeSocket();
    for (const p of this.pending.values()) fault(p.socket, p.sent ? 'lost' : 'unavailable');
    this.pending.clear();
    this.ended(0);
  }
}

function fault(socket: net.Socket, f: LinkFault): void {
  if (!socket.destroyed) socket.end(`${JSON.stringify({ f })}\n`);
}

function sameKey(given: string, key: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(key);
  return a.length === b.length && timingSafeEqual(a, b);
}
