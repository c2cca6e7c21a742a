import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import { BIN, baseEnv } from './cli.js';

/** `tasks board --json` started as a user starts it, for tests: its URL, and how it ended. */
export interface BoardRun {
  url: string;
  port: number;
  token: string;
  child: ChildProcess;
  /** Resolves when the process has ended. */
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

export async function startBoard(
  config: string,
  args: string[] = [],
  env: Record<string, string | undefined> = {},
  cwd?: string,
): Promise<BoardRun> {
  const child = spawn(process.execPath, [BIN, 'board', '--json', ...args], {
    env: baseEnv(config, env),
    cwd: cwd ?? config,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  const started = await new Promise<{ url: string; port: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the board did not start; stderr: ${stderr}`)), 20_000);
    const check = () => {
      try {
        const doc = JSON.parse(stdout) as { url: string; port: number };
        clearTimeout(timer);
        resolve(doc);
      } catch {
        // not complete yet
      }
    };
    child.stdout!.on('data', check);
    void ended.then((e) => {
      clearTimeout(timer);
      reject(new Error(`the board exited (${e.code}) before printing its URL; stderr: ${e.stderr}`));
    });
  });
  const token = new URL(started.url).pathname.split('/')[1] ?? '';
  return {
    ...started,
    token,
    child,
    ended,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return ended;
    },
  };
}

export interface HttpReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A raw request, with whatever Host and Origin a test wants to send. */
export function request(
  port: number,
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: { Host: `127.0.0.1:${port}`, ...opts.headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        // An event stream does not end: the first event is enough.
        res.on('data', (d: string) => {
          body += d;
          if (String(res.headers['content-type']).startsWith('text/event-stream') && body.includes('\n\n')) res.destroy();
        });
        const done = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        res.on('end', done);
        res.on('close', done);
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** POST an action as the page does: JSON, with the board's own Origin. */
export function postAction(board: BoardRun, action: unknown, headers: Record<string, string> = {}): Promise<HttpReply> {
  return request(board.port, `/${board.token}/api/action`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: `http://127.0.0.1:${board.port}`, ...headers },
    body: JSON.stringify(action),
  });
}

/** One server-sent event as the page gets it: its name and its data, parsed. */
export interface BoardEvent {
  event: string;
  data: unknown;
}

/** An event stream kept open as a tab keeps it: every event as it comes, and a wait for one. */
export interface EventStream {
  events: BoardEvent[];
  /** The first event from `from` on (an index into `events`) that `match` accepts; rejects after `ms`. */
  next(match: (e: BoardEvent) => boolean, opts?: { from?: number; ms?: number }): Promise<BoardEvent>;
  close(): void;
}

export function openEvents(board: BoardRun, list?: string): Promise<EventStream> {
  const query = list === undefined ? '' : `?list=${encodeURIComponent(list)}`;
  return new Promise((resolve, reject) => {
    const events: BoardEvent[] = [];
    const waiters = new Set<() => void>();
    const req = http.request(
      {
        host: '127.0.0.1',
        port: board.port,
        path: `/${board.token}/api/events${query}`,
        headers: { Host: `127.0.0.1:${board.port}`, Accept: 'text/event-stream' },
      },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`api/events answered ${res.statusCode}`));
        let buffered = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          buffered += d;
          for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
            const block = buffered.slice(0, end);
            buffered = buffered.slice(end + 2);
            const event = /^event: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (event !== undefined && data !== undefined) events.push({ event, data: JSON.parse(data) });
          }
          for (const w of waiters) w();
        });
        resolve({
          events,
          next: (match, opts = {}) =>
            new Promise((found, fail) => {
              const check = () => {
                const e = events.slice(opts.from ?? 0).find(match);
                if (e === undefined) return;
                waiters.delete(check);
                clearTimeout(timer);
                found(e);
              };
              const timer = setTimeout(() => {
                waiters.delete(check);
                fail(new Error(`no such event within ${opts.ms ?? 10_000} ms; got: ${events.map((e) => e.event).join(', ')}`));
              }, opts.ms ?? 10_000);
              waiters.add(check);
              check();
            }),
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
