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
