import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TasksError } from '../core/base/errors.js';
import type { SettingsPlaces } from '../core/binding/settings-files.js';
import { priceFilePath } from '../core/cost/price-file.js';
import { locksActive, onLocksIdle } from '../core/locks/lock-activity.js';
import { DEFAULT_STALLED_MS } from '../core/progress/stalled-work.js';
import { liveFilesStamp } from '../core/sessions/live-sessions.js';
import type { SessionIndex } from '../core/sessions/session-index.js';
import type { ActionContext } from './board-actions.js';
import { type BoardApi, localApi, notFound } from './board-api.js';
import { BodyRefused, closeAfterAnswer, readBody } from './board-body.js';
import { keepIdentity, loadIdentity } from './board-identity.js';
import { BoardLive } from './board-live.js';
import { BoardNow } from './board-now.js';
import { hostAllowed, isLoopback, originAllowed, SECURITY_HEADERS, tokenMatches } from './board-security.js';
import { type BoardContext, Sessions } from './board-state.js';

/**
 * The board's HTTP server (node:http; the page is four static files and a JSON API,
 * which needs no framework). Every request passes the checks of board-security.ts
 * first: Host, then the token (the first segment of the path), then, for actions and
 * the event stream, Origin. Nothing is served to a request that fails one.
 */
interface ServerOptions {
  host: string;
  port: number;
  token: string;
  readOnly: boolean;
  /** Listening beyond loopback on purpose: IP literals pass the Host check too. */
  loopbackOnly: boolean;
  api: BoardApi;
  signal: AbortSignal;
}

interface RunningServer {
  url: string;
  port: number;
  /** Stop accepting, end the event streams, wait for requests under way. */
  close(): Promise<void>;
}

/** Listen errors that say the address given is not one of this machine's: a bad value (usage), not an I/O failure. */
const NOT_AN_ADDRESS_HERE = new Set(['ENOTFOUND', 'EADDRNOTAVAIL', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAFNOSUPPORT']);
/** The Now view looks again this often at lists with work in progress, for what time alone brings (a stall, a session's end): seldom, as each look asks the sessions. */
const NOW_TICK_MS = 10_000;

/** The built page (scripts/build-board-page.mjs): beside the CLI bundle, or beside dist/board/ unbundled. */
function pageDir(): string {
  if (typeof __dirname === 'string' && fs.existsSync(path.join(__dirname, 'board-page'))) return path.join(__dirname, 'board-page');
  return fileURLToPath(new URL('../board-page/', import.meta.url));
}

interface Asset {
  type: string;
  body: Buffer;
}

function loadAssets(): Map<string, Asset> {
  const dir = pageDir();
  const assets = new Map<string, Asset>();
  const files: Array<[string, string, string]> = [
    ['', 'index.html', 'text/html; charset=utf-8'],
    ['board.js', 'board.js', 'text/javascript; charset=utf-8'],
    ['board-worker.js', 'board-worker.js', 'text/javascript; charset=utf-8'],
    ['board.css', 'board.css', 'text/css; charset=utf-8'],
  ];
  for (const [route, file, type] of files) {
    try {
      assets.set(route, { type, body: fs.readFileSync(path.join(dir, file)) });
    } catch {
      throw new TasksError('io', `the board's page is not built (${path.join(dir, file)} is missing): run npm run build`);
    }
  }
  return assets;
}

async function startServer(o: ServerOptions): Promise<RunningServer> {
  const assets = loadAssets();
  const inFlight = new Set<Promise<unknown>>();
  // The request timeout is checked every second (Node's default: every 30 s).
  const server = http.createServer({ connectionsCheckingInterval: 1000 }, (req, res) => {
    const work = handle(req, res).catch(() => {
      if (!res.headersSent) reply(res, 500, 'text/plain; charset=utf-8', 'internal error\n');
      else res.destroy();
    });
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  });
  // Slow or idle sockets are not kept for ever: headers within 10 s, a whole request
  // within 30 s (an action's body is timed more tightly: board-body.ts). An event stream
  // is a request without a body, complete with its headers: its answer may last.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;

  let port = 0;
  const named = ['127.0.0.1', 'localhost', '::1'].includes(o.host) ? [] : [o.host.includes(':') ? `[${o.host}]` : o.host];
  const answersTo = [...named, '127.0.0.1', 'localhost', '[::1]'].join(', ');
  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!hostAllowed(req.headers.host, port, o.loopbackOnly, o.host))
      return reply(res, 403, 'text/plain; charset=utf-8', `forbidden: this board answers to ${answersTo} only\n`);
    const url = new URL(req.url ?? '/', 'http://board.invalid');
    const [, first = '', ...rest] = url.pathname.split('/');
    if (!tokenMatches(safeDecode(first), o.token)) return reply(res, 404, 'text/plain; charset=utf-8', 'not found\n');
    if (rest.length === 0) {
      // The page's relative URLs need the trailing slash.
      res.writeHead(308, { ...SECURITY_HEADERS, Location: `/${first}/` });
      return void res.end();
    }
    const route = rest.join('/');
    const asset = assets.get(route);
    if (asset !== undefined) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return reply(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n');
      return reply(res, 200, asset.type, req.method === 'HEAD' ? '' : asset.body);
    }
    if (!route.startsWith('api/')) return reply(res, 404, 'text/plain; charset=utf-8', 'not found\n');
    const isAction = route === 'api/action';
    if (!originAllowed(req.headers, isAction))
      return json(res, 403, { ok: false, error: { code: 'forbidden', message: 'cross-site request refused' } });
    if (isAction) {
      if (req.method !== 'POST') return json(res, 405, { ok: false, error: { code: 'usage', message: 'POST only' } });
      if (o.readOnly) return json(res, 403, { ok: false, error: { code: 'read_only', message: 'this board is read-only (--read-only)' } });
      if (!/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
        return json(res, 415, { ok: false, error: { code: 'usage', message: 'actions are application/json' } });
      let body: unknown;
      try {
        body = JSON.parse(await readBody(req));
      } catch (err) {
        if (!(err instanceof BodyRefused)) return json(res, 400, { ok: false, error: { code: 'usage', message: 'not JSON' } });
        closeAfterAnswer(req, res);
        const code = err.status === 408 ? 'timeout' : 'usage';
        return json(res, err.status, { ok: false, error: { code, message: err.message } }, { Connection: 'close' });
      }
      const outcome = await o.api.action(body, o.signal);
      return json(res, outcome.status, outcome.result);
    }
    if (req.method !== 'GET') return json(res, 405, { ok: false, error: { code: 'usage', message: 'GET only' } });
    const listParam = url.searchParams.get('list') ?? url.searchParams.get('id') ?? undefined;
    if (listParam !== undefined && !o.api.listOk(listParam))
      return json(res, 400, { ok: false, error: { code: 'usage', message: 'list must be a list id' } });
    if (route === 'api/events') {
      res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive' });
      res.flushHeaders();
      if (!o.api.events(res, url.searchParams)) res.end('event: busy\ndata: {}\n\n');
      return;
    }
    const answer = await o.api.get(route, url.searchParams);
    return reply(res, answer.status, answer === notFound ? 'text/plain; charset=utf-8' : 'application/json', answer.body);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new TasksError('conflict', `port ${o.port} is in use; choose another with --port, or 0 for any`)
          : NOT_AN_ADDRESS_HERE.has(err.code ?? '')
            ? new TasksError('usage', `cannot listen on ${o.host}: not an address of this machine (${err.code})`)
            : new TasksError('io', `cannot listen on ${o.host}:${o.port}: ${err.message}`),
      ),
    );
    server.listen({ host: o.host, port: o.port }, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const shownHost = o.host.includes(':') ? `[${o.host}]` : o.host;
  return {
    url: `http://${shownHost}:${port}/${o.token}/`,
    port,
    close: async () => {
      o.api.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await Promise.allSettled([...inFlight]);
      server.closeAllConnections();
      await closed;
    },
  };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}

function reply(res: http.ServerResponse, status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, ...headers, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function json(res: http.ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  reply(res, status, 'application/json', JSON.stringify(value), headers);
}

/** What one machine's board reads and writes with: its config folder, its person, its hooks. */
export interface LocalBoardOptions {
  readOnly: boolean;
  configDir: string;
  /** The home folder, resolved: shown as ~ in projects. */
  home: string;
  /** The person's login name: the journal's name for the board's changes, and never a gone owner. */
  person: string | undefined;
  hookPolicy: ActionContext['hookPolicy'];
  /** The folder the board was started in: project settings and hooks, its binding (undefined: it was deleted). */
  projectDir: string | undefined;
  /** Where Claude Code's settings are read (live sessions' lists, the folder's binding). */
  settings: SettingsPlaces;
  /** A fresh session index (sharing the run's persistent cache): the board reads sessions again as they change. */
  newSessionIndex: () => SessionIndex;
  env: NodeJS.ProcessEnv;
  pid: number;
  warn: (message: string) => void;
}

/** Everything a board needs from whoever starts it (`tasks board`: its run's context). */
export interface BoardOptions extends LocalBoardOptions {
  host: string;
  /** 0: the port of the last start when it is free, else any free one. */
  port: number;
  /** Where the token and port are kept between starts (the user's state folder), and whose they are. */
  stateHome: { xdgStateHome: string | undefined; home: string | undefined; uid: number | undefined };
  /** A new token (the old URL stops working): `--new-token`. */
  newToken: boolean;
}

export interface RunningBoard {
  /** With its token: the only way in. */
  url: string;
  port: number;
  /** Listening on a loopback address only. */
  loopbackOnly: boolean;
  /**
   * Stop: running hooks are stopped, no new request is taken, the event streams end, the
   * actions under way finish their locked writes; resolves when no lock is held.
   */
  stop(): Promise<void>;
}

/** A board's API with what starts and stops what stands behind it. */
export interface BoardBackend {
  api: BoardApi;
  /** After the URL is out: read what the first page needs, start following. */
  warm(): void;
  /** After the server stopped taking requests. */
  stop(): Promise<void>;
}

/**
 * This machine's board: its live view of the config folder (sessions read again as they
 * change, processes looked at every 5 s, everything at least every 30 s; at most 64
 * event streams; a file change on the page within about 30-150 ms and a scan), and its
 * actions, recorded as the person's.
 */
export function localBoard(o: LocalBoardOptions): BoardBackend {
  const ctx: BoardContext = {
    configDir: o.configDir,
    home: o.home,
    person: o.person,
    stalledAfterMs: DEFAULT_STALLED_MS,
    now: Date.now,
    settings: o.settings,
    projectDir: o.projectDir,
    pricesFile: priceFilePath(o.env, o.home),
    startedAt: Date.now(),
  };
  const sessions = new Sessions(o.newSessionIndex, Date.now, () => liveFilesStamp(o.configDir));
  // When each task file dated ahead of the clock was first seen so, by list: one moment for its card and the Now view.
  const aheadSeen = new Map<string, Map<string, number>>();
  const firstSeen = (listId: string): Map<string, number> => {
    let seen = aheadSeen.get(listId);
    if (seen === undefined) {
      seen = new Map();
      aheadSeen.set(listId, seen);
    }
    return seen;
  };
  // The live feed and the Now view send through each other (used only once both exist: now.start() below).
  const now: BoardNow = new BoardNow({
    configDir: o.configDir,
    home: o.home,
    person: o.person,
    stalledMs: DEFAULT_STALLED_MS,
    // The board's own reading of the sessions, not a second one: kept current by the overview
    // while a tab is open; with none, read again here when older than half a round, so that
    // api/now, and a tab opened later, show a session's end within a round as with one open.
    sessions: () => (live.clientCount > 0 ? sessions.current : sessions.within(NOW_TICK_MS / 2)),
    shortIdOf: (id): string | undefined => live.known(id)?.shortId,
    now: Date.now,
    changed: (json) => live.broadcast('now', json),
    warn: o.warn,
    tickMs: NOW_TICK_MS,
    firstSeen,
  });
  const live: BoardLive = new BoardLive({
    ctx,
    sessions,
    readOnly: o.readOnly,
    maxClients: 64,
    debounceMs: 30,
    maxDelayMs: 150,
    overviewEveryMs: 5000,
    overviewAtLeastMs: 30_000,
    now: (): string => now.payload(),
    firstSeen,
  });
  const api = localApi({
    ctx,
    sessions,
    live,
    now,
    action: {
      configDir: o.configDir,
      person: o.person ?? 'unknown',
      home: o.home,
      // Read anew for each action that judges the sessions: never an answer from before an agent's last step.
      sessions: () => sessions.renew(),
      hookPolicy: o.hookPolicy,
      projectDir: o.projectDir,
      env: o.env,
      pid: o.pid,
      warn: o.warn,
    },
  });
  let warming: NodeJS.Immediate | undefined;
  return {
    api,
    // The first page needs the overview (every session's transcript, read or found in the cache): read it while the URL is printed.
    // Then the Now view starts following every list, with the sessions that read: nothing of it delays the URL.
    warm: () => {
      warming = setImmediate(() => {
        try {
          live.overview();
        } catch {
          // Read again, and the error answered, when the page asks.
        }
        now.start();
      });
    },
    stop: async () => {
      if (warming) clearImmediate(warming);
      await now.stop();
      api.close();
      sessions.save();
    },
  };
}

/** Start the board of this machine's config folder. */
export function startBoard(o: BoardOptions): Promise<RunningBoard> {
  return serveBoard(localBoard(o), { ...o, identityOf: o.configDir });
}

export interface ServeOptions {
  host: string;
  port: number;
  readOnly: boolean;
  stateHome: BoardOptions['stateHome'];
  newToken: boolean;
  /** What the board shows (its config folder, or its hosts): another one is another board, with its own URL. */
  identityOf: string;
  warn: (message: string) => void;
}

/** Serve a board's page and API, on the port and with the token of its last start when it can. */
export async function serveBoard(backend: BoardBackend, o: ServeOptions): Promise<RunningBoard> {
  const stopping = new AbortController();
  const loopbackOnly = isLoopback(o.host);
  const identity = loadIdentity({ ...o.stateHome, configDir: o.identityOf, host: o.host }, o.newToken);
  const serve = (port: number) =>
    startServer({
      host: o.host,
      port,
      token: identity.token,
      readOnly: o.readOnly,
      loopbackOnly,
      signal: stopping.signal,
      api: backend.api,
    });
  // The port of the last start, so that the URL stays the same; taken by now (another board): any.
  const again = o.port === 0 ? identity.port : undefined;
  let server: RunningServer;
  try {
    server = await serve(again ?? o.port);
  } catch (err) {
    if (again === undefined || !(err instanceof TasksError) || err.code !== 'conflict') throw err;
    server = await serve(0);
  }
  // A board that did not get its port back leaves it to the one that has it.
  if (again === undefined || server.port === again || o.newToken) {
    try {
      keepIdentity(identity, server.port);
    } catch (err) {
      o.warn(`the board's URL will change at the next start: cannot keep it in ${identity.file}: ${(err as Error).message}`);
    }
  }
  backend.warm();
  return {
    url: server.url,
    port: server.port,
    loopbackOnly,
    stop: async () => {
      stopping.abort();
      await server.close();
      await backend.stop();
      // One macrotask after the last release, so that a step that follows at once (an edge's other side) is done too.
      await new Promise<void>((resolve) => {
        const whenIdle = (): void => onLocksIdle(() => setImmediate(() => (locksActive() === 0 ? resolve() : whenIdle())));
        whenIdle();
      });
    },
  };
}
