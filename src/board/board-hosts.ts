import { ERROR_CODES, type ErrorCode, TasksError } from '../core/base/errors.js';
import { type Connect, FeedClient } from './board-feed-client.js';
import { hostListPageId, hubApi } from './board-hub.js';
import { type RunningBoard, type ServeOptions, serveBoard } from './board-server.js';

/** A host to show: its name as the user gave it, how its board is reached (over ssh: cli/board-hosts), and how long it has to answer. */
export interface BoardHost {
  label: string;
  connect: Connect;
  deadlineMs?: number;
}

/**
 * The board of several hosts: each host's board runs there (nothing listens there) and
 * this machine's server merges them for the page (board-hub.ts). Resolves once every
 * host is reached or down; when none is reached, fails with their causes (exit 8), and
 * nothing listens here either. `named`: the command line named a list (`-l`, `--session`),
 * which the one host resolves as its commands do; the board opens on it (`opensOn`), or
 * fails with the host's own error when there is no such list there.
 */
export async function startHostsBoard(
  hosts: readonly BoardHost[],
  o: Omit<ServeOptions, 'identityOf'> & { named?: boolean },
): Promise<RunningBoard & { opensOn?: string }> {
  const feeds = hosts.map((h) => new FeedClient(h.label, h.connect, h.deadlineMs));
  const first = await Promise.all(feeds.map((f) => f.start()));
  const causes = first.map((v) => v.message ?? `host ${v.label}: not reached`);
  if (first.every((v) => v.state === 'down')) {
    for (const f of feeds) f.close();
    throw new TasksError('unreachable', causes.length === 1 ? (causes[0] as string) : `no host reached: ${causes.join('; ')}`, {
      details: { hosts: hosts.map((h) => h.label) },
    });
  }
  let opensOn: string | undefined;
  if (o.named) {
    try {
      opensOn = hostListPageId(0, namedOnHost(feeds[0] as FeedClient));
    } catch (err) {
      for (const f of feeds) f.close();
      throw err;
    }
  }
  first.forEach((v, i) => {
    if (v.state === 'down') o.warn(`${causes[i]}; the board tries it again by itself`);
  });
  const api = hubApi(feeds, o.readOnly);
  const board = await serveBoard(
    { api, warm: () => undefined, stop: async () => api.close() },
    // Another set of hosts is another board, with a URL of its own.
    { ...o, identityOf: `/ssh-hosts/${encodeURIComponent(hosts.map((h) => h.label).join(' '))}` },
  );
  return opensOn === undefined ? board : Object.assign(board, { opensOn });
}

/** The list the host found for the command line's `-l` / `--session` (board-feed-command.ts), or its error, naming the host. */
function namedOnHost(feed: FeedClient): string {
  const hello = feed.hello ?? {};
  if (typeof hello.list === 'string') return hello.list;
  const e = (hello.listError ?? {}) as { code?: unknown; message?: unknown; hint?: unknown };
  const code: ErrorCode = typeof e.code === 'string' && e.code in ERROR_CODES ? (e.code as ErrorCode) : 'not_found';
  const message = typeof e.message === 'string' ? e.message : 'the list named was not found there';
  throw new TasksError(code, `host ${feed.label}: ${message}`, typeof e.hint === 'string' ? { hint: e.hint } : {});
}
