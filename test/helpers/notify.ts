import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { BIN, baseEnv, type RunResult, writeTask } from './cli.js';

/** A request a loopback receiver got. */
export interface Received {
  at: number;
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * An HTTP receiver on 127.0.0.1 (port 0), recording every request; `answer` decides the
 * status (and may delay) per request, counting from 1.
 */
export async function receiver(
  answer: (n: number) => { status: number; delayMs?: number; headers?: Record<string, string> } = () => ({ status: 200 }),
): Promise<{ url: string; got: Received[]; close(): Promise<void> }> {
  const got: Received[] = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      got.push({ at: Date.now(), method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const a = answer(++n);
      const reply = () => {
        if (!res.destroyed) res.writeHead(a.status, a.headers).end('ok');
      };
      if (a.delayMs) setTimeout(reply, a.delayMs);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    got,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A `tasks notify` running in the background. */
export interface NotifyProcess {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves once stderr holds `text` (the start note says notify is following). */
  waitForErr(text: string | RegExp, timeoutMs?: number): Promise<void>;
  stop(): Promise<RunResult>;
}

export function startNotify(config: string, args: string[], env: Record<string, string | undefined> = {}): NotifyProcess {
  const child = spawn(process.execPath, [BIN, 'notify', ...args], { env: baseEnv(config, notifyEnv(config, env)), cwd: config });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.end();
  const exited = new Promise<RunResult>((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr })));
  let ended = false;
  void exited.then(() => (ended = true));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    async waitForErr(text, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      while (!(typeof text === 'string' ? stderr.includes(text) : text.test(stderr))) {
        if (ended || Date.now() > until)
          throw new Error(`${ended ? 'notify ended' : 'timed out'} waiting for ${String(text)}; stderr: ${stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async stop() {
      if (!ended) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** The state folder inside the test's config folder (never the machine's), fast ticks and retries. */
export function notifyEnv(config: string, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return { XDG_STATE_HOME: path.join(config, 'state'), TASKS_NOTIFY_BACKOFF_MS: '200', ...extra };
}

/** Wait until `check` holds, polling; fails with `what` after `timeoutMs`. */
export async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const taskOf = (id: string, fields: Record<string, unknown> = {}) => ({
  id,
  subject: `Task ${id}`,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...fields,
});

/** A list folder with these tasks. */
export function listWith(config: string, list: string, tasks: Array<Record<string, unknown>>): string {
  const dir = path.join(config, 'tasks', list);
  fs.mkdirSync(dir, { recursive: true });
  for (const t of tasks) writeTask(dir, t);
  return dir;
}

/** Receivers and notify processes a test file starts, closed and stopped after each test (`afterEach(h.cleanup)`). */
export function notifyHarness() {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  return {
    cleanup: async () => {
      for (const c of cleanups.splice(0).reverse()) await c();
    },
    later: (fn: () => Promise<unknown> | unknown) => cleanups.push(fn),
    webhook: async (answer?: Parameters<typeof receiver>[0]) => {
      const r = await receiver(answer);
      cleanups.push(() => r.close());
      return r;
    },
    notify: (config: string, args: string[], env: Record<string, string | undefined> = {}) => {
      const p = startNotify(config, args, env);
      cleanups.push(() => p.stop());
      return p;
    },
  };
}

/** The JSON documents a receiver was sent. */
export const posted = (got: Array<{ body: string }>) => got.map((g) => JSON.parse(g.body) as Record<string, unknown>);
