import type { ServerResponse } from 'node:http';
import { maxOf } from '../core/base/many-items.js';
import type { ApiAnswer, BoardApi } from './board-api.js';
import { answer, notFound, usage } from './board-api.js';
import type { FeedClient } from './board-feed-client.js';
import type {
  CarryPreviewPayload,
  GoneListsPayload,
  HostStateView,
  ListPayload,
  ListRowView,
  NowListRef,
  NowPayload,
  OverviewPayload,
} from './board-protocol.js';

/**
 * The board of several hosts (`tasks board -H a -H b`): this machine serves the page and
 * nothing of its own lists; each host's board runs there (board-feed.ts, over ssh) and
 * this one merges them. The page knows a list by `h<n>-<id>`, n the host's place on the
 * command line (a list of the same id on two hosts is two lists); every read, stream
 * and action for it goes to that host alone, with the host's own id. A host that is not
 * reached has its lists taken off the page (nothing shown as live that is not), and its
 * state said in the overview's `hosts`.
 */
const PAGE_ID = /^h(\d{1,3})-([A-Za-z0-9_-]{1,255})$/;

interface HostData {
  feed: FeedClient;
  overview: OverviewPayload | undefined;
  now: NowPayload | undefined;
}

interface Client {
  res: ServerResponse;
  unsubscribe: Array<() => void>;
}

const MAX_CLIENTS = 64;

/** The i-th host, as the page names it: `h0`, the head of its lists' ids. */
const hostKey = (i: number): string => `h${i}`;

/** A list of the i-th host, as the page names it (and its URL: `#list=h0-web`). */
export const hostListPageId = (i: number, id: string): string => `${hostKey(i)}-${id}`;

export function hubApi(feeds: readonly FeedClient[], readOnly: boolean, now: () => number = Date.now): BoardApi {
  const hosts: HostData[] = feeds.map((feed) => ({ feed, overview: undefined, now: undefined }));
  const clients = new Set<Client>();
  const pageId = hostListPageId;
  const route = (id: string): { host: HostData; i: number; id: string } | undefined => {
    const m = PAGE_ID.exec(id);
    const host = m ? hosts[Number(m[1])] : undefined;
    return m && host ? { host, i: Number(m[1]), id: m[2] as string } : undefined;
  };
  const row = (i: number, r: ListRowView): ListRowView => ({ ...r, id: pageId(i, r.id), host: hosts[i]?.feed.label });
  const ref = <T extends NowListRef & { key?: string; action?: string }>(i: number, r: T): T => ({
    ...r,
    list: pageId(i, r.list),
    host: hosts[i]?.feed.label,
    ...(r.key === undefined ? {} : { key: `h${i}:${r.key}` }),
    // The command that acts on it, as typed here: on that host.
    ...(r.action?.startsWith('tasks ') ? { action: `tasks -H ${hosts[i]?.feed.label} ${r.action.slice(6)}` } : {}),
  });

  const overview = (): OverviewPayload => {
    // Each host's board start, which its lists' first sights are judged by (a board of hosts has none of its own).
    const views: HostStateView[] = hosts.map((h) => {
      const startedAt = h.feed.state.state === 'live' ? h.overview?.startedAt : undefined;
      return startedAt === undefined ? h.feed.state : { ...h.feed.state, startedAt };
    });
    const lists = hosts.flatMap((h, i) => (h.feed.state.state === 'live' ? (h.overview?.lists ?? []).map((r) => row(i, r)) : []));
    lists.sort((a, b) => b.changedAt - a.changedAt || a.id.localeCompare(b.id));
    const live = hosts.filter((h) => h.feed.state.state === 'live' && h.overview !== undefined);
    return {
      at: now(),
      readOnly,
      hosts: views,
      lists,
      binding: null,
      unsureNotes: live.flatMap((h) => h.overview?.unsureNotes.map((n) => `${h.feed.label}: ${n}`) ?? []),
      todoWriteShown: Math.max(1, maxOf(live.map((h) => h.overview?.todoWriteShown ?? 0))),
    };
  };

  const nowView = (): NowPayload => {
    const parts = hosts.map((h, i) => ({ i, p: h.feed.state.state === 'live' ? h.now : undefined }));
    const all = <K extends 'working' | 'waiting' | 'stalled' | 'died' | 'problems' | 'finished'>(key: K): NowPayload[K] =>
      parts.flatMap(({ i, p }) => (p?.[key] ?? []).map((e) => ref(i, e))) as NowPayload[K];
    const feed = parts.flatMap(({ i, p }) => (p?.feed ?? []).map((e) => ref(i, e))).sort((a, b) => b.at - a.at);
    const known = parts.filter((x) => x.p !== undefined);
    return {
      at: now(),
      ready: hosts.every((h) => h.feed.state.state !== 'connecting') && known.every(({ p }) => p?.ready),
      needsPerson: known.reduce((n, { p }) => n + (p?.needsPerson ?? 0), 0),
      working: all('working'),
      waiting: all('waiting'),
      stalled: all('stalled'),
      died: all('died'),
      problems: all('problems'),
      finished: all('finished'),
      feed: feed.slice(0, Math.max(0, maxOf(known.map(({ p }) => p?.feed.length ?? 0)))),
    };
  };

  const send = (c: Client, event: string, json: string): void => {
    if (c.res.writableLength > 4 << 20) return void c.res.destroy();
    c.res.write(`event: ${event}\ndata: ${json}\n\n`);
  };
  const toAll = (event: string, json: string): void => {
    for (const c of clients) send(c, event, json);
  };

  for (const [i, h] of hosts.entries()) {
    h.feed.onState((view) => {
      if (view.state !== 'live') {
        h.overview = undefined;
        h.now = undefined;
      }
      toAll('overview', JSON.stringify(overview()));
      toAll('now', JSON.stringify(nowView()));
      // A tab that follows one of its lists: that list cannot be read now, and says why.
      if (view.state === 'down') for (const c of clients) followedDown(c, i, view);
    });
  }
  const followed = new WeakMap<Client, { i: number; id: string }>();
  const followedDown = (c: Client, i: number, view: HostStateView): void => {
    const f = followed.get(c);
    if (f?.i === i) send(c, 'list', JSON.stringify(unreachedList(pageId(i, f.id), view)));
  };

  /** One host's event, as this board's: ids made the page's, the merged overview and Now view sent. */
  const fromHost = (c: Client, i: number, event: string, data: string): void => {
    const h = hosts[i] as HostData;
    try {
      if (event === 'overview') {
        h.overview = JSON.parse(data) as OverviewPayload;
        send(c, 'overview', JSON.stringify(overview()));
      } else if (event === 'now') {
        h.now = JSON.parse(data) as NowPayload;
        send(c, 'now', JSON.stringify(nowView()));
      } else if (event === 'row') {
        const r = JSON.parse(data) as ListRowView;
        if (h.overview) h.overview = { ...h.overview, lists: [r, ...h.overview.lists.filter((l) => l.id !== r.id)] };
        send(c, 'row', JSON.stringify(row(i, r)));
      } else if (event === 'list') send(c, 'list', JSON.stringify(listOf(i, JSON.parse(data) as ListPayload)));
      // The host's clock (as it opens the stream, and with each keep-alive): its times count on it (page-clock.ts).
      else if (event === 'clock' && /^\d+$/.test(data)) send(c, 'host-clock', JSON.stringify({ host: hostKey(i), at: Number(data) }));
    } catch {
      // A line that is not what the feed sends: nothing to show.
    }
  };
  const listOf = (i: number, p: ListPayload): ListPayload => ({ ...p, id: pageId(i, p.id), row: p.row === null ? null : row(i, p.row) });

  /** A host's answer, its ids made the page's. */
  const rewrite = (i: number, route: string, a: ApiAnswer): ApiAnswer => {
    if (a.status !== 200) return a;
    try {
      const v = JSON.parse(a.body) as Record<string, unknown>;
      if (route === 'api/list') return answer(200, listOf(i, v as unknown as ListPayload));
      if (route === 'api/carry') {
        const c = v as unknown as CarryPreviewPayload;
        const t = (x: CarryPreviewPayload['targets'][number]) => ({ ...x, list: pageId(i, x.list) });
        return answer(200, { ...c, targets: c.targets.map(t), target: c.target === null ? null : t(c.target) });
      }
      if (typeof v.list === 'string') return answer(200, { ...v, list: pageId(i, v.list) });
      return a;
    } catch {
      return a;
    }
  };

  return {
    listOk: (id) => route(id) !== undefined,
    async get(path, query) {
      // Asked of each host now (a tab's stream keeps them current too, but a read needs no tab).
      if (path === 'api/overview' || path === 'api/now') {
        await Promise.all(
          hosts.map(async (h) => {
            if (h.feed.state.state !== 'live') return;
            const a = await h.feed.request({ get: path, query: '' });
            if (a.status !== 200 || h.feed.state.state !== 'live') return;
            if (path === 'api/overview') h.overview = JSON.parse(a.body) as OverviewPayload;
            else h.now = JSON.parse(a.body) as NowPayload;
          }),
        );
        return answer(200, path === 'api/overview' ? overview() : nowView());
      }
      if (path === 'api/gone-lists') {
        const answers = await Promise.all(
          hosts.map((h) => (h.feed.state.state === 'live' ? h.feed.request({ get: path, query: '' }) : Promise.resolve(undefined))),
        );
        const lists = answers.flatMap((a, i) => {
          if (a?.status !== 200) return [];
          const payload = JSON.parse(a.body) as GoneListsPayload;
          return payload.lists.map((l) => ({ ...l, id: pageId(i, l.id), host: hosts[i]?.feed.label }));
        });
        return answer(200, { lists });
      }
      const id = query.get('list') ?? query.get('id');
      if (id === null) return path.startsWith('api/') ? usage('list is required') : notFound;
      const to = route(id);
      if (to === undefined) return usage('list must be a list id');
      // Every value of the query as asked (restore's `from` may be given several times), the list the host's own.
      const asked = new URLSearchParams(query);
      asked.delete('id');
      asked.set('list', to.id);
      return rewrite(to.i, path, await to.host.feed.request({ get: path, query: asked.toString() }));
    },
    async action(body) {
      const list = body !== null && typeof body === 'object' ? (body as { list?: unknown }).list : undefined;
      const to = typeof list === 'string' ? route(list) : undefined;
      if (to === undefined)
        return { status: 400, result: { ok: false, error: { code: 'usage', message: 'list must be a list of one of the hosts' } } };
      const a = await to.host.feed.request({ action: { ...(body as object), list: to.id } });
      try {
        return { status: a.status, result: JSON.parse(a.body) };
      } catch {
        return {
          status: 502,
          result: { ok: false, error: { code: 'unreachable', message: `host ${to.host.feed.label}: an answer that is not JSON` } },
        };
      }
    },
    events(res, query) {
      if (clients.size >= MAX_CLIENTS) return false;
      const client: Client = { res, unsubscribe: [] };
      clients.add(client);
      const list = query.get('list');
      const to = list === null ? undefined : route(list);
      if (to) followed.set(client, { i: to.i, id: to.id });
      // The clock of the machine serving the page first, then with each keep-alive (page-clock.ts).
      send(client, 'clock', String(Date.now()));
      send(client, 'overview', JSON.stringify(overview()));
      send(client, 'now', JSON.stringify(nowView()));
      if (to && to.host.feed.state.state === 'down')
        send(client, 'list', JSON.stringify(unreachedList(list as string, to.host.feed.state)));
      for (const [i, h] of hosts.entries()) {
        client.unsubscribe.push(h.feed.subscribe(to?.i === i ? to.id : undefined, (event, data) => fromHost(client, i, event, data)));
      }
      const heartbeat = setInterval(() => res.write(`event: clock\ndata: ${Date.now()}\n\n`), 15_000);
      res.on('close', () => {
        clearInterval(heartbeat);
        clients.delete(client);
        for (const u of client.unsubscribe) u();
      });
      return true;
    },
    close() {
      for (const c of clients) c.res.end();
      clients.clear();
      for (const h of hosts) h.feed.close();
    },
  };
}

/** A list of a host not reached: no tasks, and why, as a list that cannot be read says it. */
function unreachedList(id: string, view: HostStateView): ListPayload {
  return {
    at: view.since,
    id,
    kind: 'tasks',
    exists: false,
    tasks: [],
    todos: [],
    facts: {},
    row: null,
    goneWhy: null,
    life: null,
    problems: [],
    unreadable: `host ${view.label} is not reached${view.message ? ` (${view.message.replace(/^host \S+: /, '')})` : ''}; it is tried again by itself`,
    undo: null,
    redo: null,
    stalledAfterMs: 0,
    atWork: false,
  };
}
