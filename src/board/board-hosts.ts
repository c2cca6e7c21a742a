import { TasksError } from '../core/base/errors.js';
import { type Connect, FeedClient } from './board-feed-client.js';
import { hubApi } from './board-hub.js';
import { type RunningBoard, type ServeOptions, serveBoard } from './board-server.js';

/** A host to show: its name as the user gave it, and how its board is reached (over ssh: cli/board-hosts). */
export interface BoardHost {
  label: string;
  connect: Connect;
}

/**
 * The board of several hosts: each host's board runs there (nothing listens there) and
 * this machine's server merges them for the page (board-hub.ts). Resolves once every
 * host is reached or down; when none is reached, fails with their causes (exit 8), and
 * nothing listens here either.
 */
export async function startHostsBoard(hosts: readonly BoardHost[], o: Omit<ServeOptions, 'identityOf'>): Promise<RunningBoard> {
  const feeds = hosts.map((h) => new FeedClient(h.label, h.connect));
  const first = await Promise.all(feeds.map((f) => f.start()));
  const causes = first.map((v) => v.message ?? `host ${v.label}: not reached`);
  if (first.every((v) => v.state === 'down')) {
    for (const f of feeds) f.close();
    throw new TasksError('unreachable', causes.length === 1 ? (causes[0] as string) : `no host reached: ${causes.join('; ')}`, {
      details: { hosts: hosts.map((h) => h.label) },
    });
  }
  first.forEach((v, i) => {
    if (v.state === 'down') o.warn(`${causes[i]}; the board tries it again by itself`);
  });
  const api = hubApi(feeds, o.readOnly);
  return serveBoard(
    { api, warm: () => undefined, stop: async () => api.close() },
    // Another set of hosts is another board, with a URL of its own.
    { ...o, identityOf: `/ssh-hosts/${encodeURIComponent(hosts.map((h) => h.label).join(' '))}` },
  );
}
