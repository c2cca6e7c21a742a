import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { TasksError } from '../../core/base/errors.js';
import { locksActive, onLocksIdle } from '../../core/locks/lock-activity.js';
import { DEFAULT_STALLED_MS } from '../../core/progress/stalled-work.js';
import { BoardLive } from '../../board/board-live.js';
import { isLoopback, newToken } from '../../board/board-security.js';
import { startServer } from '../../board/board-server.js';
import { Sessions, type BoardContext } from '../../board/board-state.js';
import { renderJson } from '../../render/json.js';
import type { App } from '../app.js';
import { EXIT } from '../exit-codes.js';
import { hookSessionId } from '../lifecycle-flags.js';

interface BoardOptions {
  port?: string;
  host?: string;
  open?: boolean;
  readOnly?: boolean;
}

export function registerBoard(program: Command, app: App): void {
  program
    .command('board')
    .description('every list in the browser, live: sessions, columns, the dependency graph, history; changes made under the agents\' locks')
    .option('--port <n>', 'the port to listen on (default: any free one)')
    .option('--host <address>', 'listen on this address instead of 127.0.0.1 (anyone who can reach it and learns the URL can use the board)')
    .option('--open', 'open the board in the default browser')
    .option('--read-only', 'show only: no action is served')
    .addHelpText(
      'after',
      `
Prints the board's URL on stdout (--json: {url, port, host, readOnly, pid}) and serves it
until Ctrl-C (exit 130) or SIGTERM (exit 0). The URL holds a random token that every
request needs; the board answers only to 127.0.0.1, localhost and [::1] as Host, and to
actions from its own page. Every change (start, done, reopen, reassign, release, block,
unblock, create, delete, undo) goes through the same core as the commands, with the
state the card showed as its precondition: a change an agent made meanwhile is shown
as a conflict, and nothing is written.

Examples:
  tasks board --open
  tasks board --read-only --port 8080
  tasks -l refactor-auth board       opens on that list`,
    )
    .action(async (opts: BoardOptions) => {
      const port = parsePort(opts.port);
      const host = opts.host ?? '127.0.0.1';
      const loopbackOnly = isLoopback(host);
      if (!loopbackOnly) app.warn(`listening on ${host}, not only on this machine: anyone who can reach ${host}:${port === 0 ? '<port>' : port} and learns the URL (its token) can read and change every list`);
      const globals = app.globals();
      const named = globals.list !== undefined || globals.session !== undefined ? app.list(false).id : undefined;
      const ctx: BoardContext = { configDir: app.configDir, home: app.home, person: app.person, stalledAfterMs: DEFAULT_STALLED_MS, now: Date.now };
      const sessions = new Sessions(app.configDir, 5000, Date.now);
      const readOnly = Boolean(opts.readOnly);
      const live = new BoardLive({ ctx, sessions, readOnly, maxClients: 64, debounceMs: 30, maxDelayMs: 150, overviewEveryMs: 5000 });
      const stopping = new AbortController();
      const server = await startServer({
        host,
        port,
        token: newToken(),
        readOnly,
        loopbackOnly,
        ctx,
        sessions,
        live,
        signal: stopping.signal,
        action: {
          configDir: app.configDir,
          person: app.person ?? 'unknown',
          hookPolicy: app.hookPolicy,
          projectDir: app.cwd ?? app.configDir,
          env: app.env,
          hookSessionId: hookSessionId(),
        },
      });
      const url = named === undefined ? server.url : `${server.url}#list=${encodeURIComponent(named)}`;
      const signal = waitForStop();
      if (app.json) app.out(renderJson({ url, port: server.port, host, readOnly, pid: process.pid }));
      else app.out(url);
      if (app.stderrIsTTY && !app.json) app.note(`tasks board${readOnly ? ' (read-only)' : ''}: Ctrl-C stops it`);
      if (opts.open) openBrowser(url, (message) => app.warn(message));
      const received = await signal;
      // Hooks of an action under way are stopped; its locked writes finish; then no lock is left.
      stopping.abort();
      await server.close();
      await new Promise<void>((resolve) => onLocksIdle(() => setImmediate(() => (locksActive() === 0 ? resolve() : onLocksIdle(resolve)))));
      app.setExit(received === 'SIGINT' ? EXIT.interrupted : EXIT.ok);
    });
}

function parsePort(text: string | undefined): number {
  if (text === undefined) return 0;
  const port = /^[0-9]{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new TasksError('usage', `invalid --port "${text}": expected a number from 0 to 65535 (0: any free port)`);
  return port;
}

/** The first SIGINT or SIGTERM; this command handles it (main.ts leaves it to us), a second one ends at once. */
function waitForStop(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolve(signal);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

/** xdg-open / open / start; a failure is a warning: the URL is printed anyway. */
function openBrowser(url: string, warn: (message: string) => void): void {
  const [cmd, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(cmd as string, args as string[], { detached: true, stdio: 'ignore' });
    child.on('error', (err) => warn(`could not open a browser (${cmd}: ${err.message}); open the URL yourself`));
    child.on('exit', (code) => {
      if (code !== 0 && code !== null) warn(`could not open a browser (${cmd} exited with ${code}); open the URL yourself`);
    });
    child.unref();
  } catch (err) {
    warn(`could not open a browser (${(err as Error).message}); open the URL yourself`);
  }
}
