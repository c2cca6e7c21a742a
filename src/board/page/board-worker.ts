/**
 * The board's live feed, shared by every tab of it in one browser (a SharedWorker): a
 * browser keeps at most six connections open to one server, and each event stream
 * holds one, so ten tabs with a stream each would leave the seventh unable to load.
 * Here, tabs that follow the same list share one stream; the last overview, the rows
 * since and the last list payload are kept, so a tab that joins is drawn at once.
 *
 * tab -> worker: {type: 'follow', list?: string}, {type: 'bye'}
 * worker -> tab: {type: 'overview' | 'row' | 'list' | 'now', data: <JSON text>}, {type: 'connection', data: 'live' | 'reconnecting'},
 * {type: 'clock', data: <the server's time now, ms>}, {type: 'host-clock', data: <{"host":"h0","at":ms}, that host's time now>}
 */
interface Feed {
  source: EventSource;
  ports: Set<MessagePort>;
  overview: string | undefined;
  rows: Map<string, string>;
  list: string | undefined;
  now: string | undefined;
  /** The server's clock less this one (the tabs'), as of its last clock event: a tab that joins is given the server's time then. */
  skew: number | undefined;
  /** On a board of hosts: each host's clock less this one, as of its last clock. */
  hostSkews: Map<string, number>;
  state: 'live' | 'reconnecting';
}

const feeds = new Map<string, Feed>();
const followed = new Map<MessagePort, string>();

function send(feed: Feed, type: string, data: string): void {
  for (const port of feed.ports) port.postMessage({ type, data });
}

/** A stream the browser gave up on (an answer that was no stream) is opened again this often. */
const REOPEN_MS = 3000;

function open(key: string): Feed {
  const source = new EventSource(key === '' ? 'api/events' : `api/events?list=${encodeURIComponent(key)}`);
  const feed: Feed = {
    source,
    ports: new Set(),
    overview: undefined,
    rows: new Map(),
    list: undefined,
    now: undefined,
    skew: undefined,
    hostSkews: new Map(),
    state: 'reconnecting',
  };
  listen(feed, key);
  return feed;
}

function listen(feed: Feed, key: string): void {
  const source = feed.source;
  source.addEventListener('overview', (e) => {
    feed.overview = (e as MessageEvent<string>).data;
    feed.rows.clear();
    send(feed, 'overview', feed.overview);
  });
  source.addEventListener('row', (e) => {
    const data = (e as MessageEvent<string>).data;
    const id = (JSON.parse(data) as { id: string }).id;
    feed.rows.delete(id);
    feed.rows.set(id, data);
    send(feed, 'row', data);
  });
  source.addEventListener('list', (e) => {
    feed.list = (e as MessageEvent<string>).data;
    send(feed, 'list', feed.list);
  });
  source.addEventListener('now', (e) => {
    feed.now = (e as MessageEvent<string>).data;
    send(feed, 'now', feed.now);
  });
  source.addEventListener('clock', (e) => {
    const at = Number((e as MessageEvent<string>).data);
    feed.skew = at - Date.now();
    send(feed, 'clock', String(at));
  });
  source.addEventListener('host-clock', (e) => {
    const data = (e as MessageEvent<string>).data;
    const { host, at } = JSON.parse(data) as { host: string; at: number };
    feed.hostSkews.set(host, at - Date.now());
    send(feed, 'host-clock', data);
  });
  source.addEventListener('open', () => {
    feed.state = 'live';
    send(feed, 'connection', 'live');
  });
  source.addEventListener('error', () => {
    feed.state = 'reconnecting';
    send(feed, 'connection', 'reconnecting');
    // A network error is retried by the browser; an answer that was no stream (a board
    // starting, a proxy) closes it for good: tried again here while a tab follows it.
    if (source.readyState === EventSource.CLOSED)
      setTimeout(() => {
        if (feeds.get(key) !== feed || feed.source !== source) return;
        feed.source = new EventSource(source.url);
        listen(feed, key);
      }, REOPEN_MS);
  });
}

function leave(port: MessagePort): void {
  const key = followed.get(port);
  followed.delete(port);
  if (key === undefined) return;
  const feed = feeds.get(key);
  if (!feed) return;
  feed.ports.delete(port);
  if (feed.ports.size === 0) {
    feed.source.close();
    feeds.delete(key);
  }
}

function join(port: MessagePort, key: string): void {
  let feed = feeds.get(key);
  if (!feed) feeds.set(key, (feed = open(key)));
  feed.ports.add(port);
  followed.set(port, key);
  if (feed.skew !== undefined) port.postMessage({ type: 'clock', data: String(Date.now() + feed.skew) });
  for (const [host, skew] of feed.hostSkews)
    port.postMessage({ type: 'host-clock', data: JSON.stringify({ host, at: Date.now() + skew }) });
  if (feed.overview !== undefined) port.postMessage({ type: 'overview', data: feed.overview });
  for (const row of feed.rows.values()) port.postMessage({ type: 'row', data: row });
  if (feed.list !== undefined) port.postMessage({ type: 'list', data: feed.list });
  if (feed.now !== undefined) port.postMessage({ type: 'now', data: feed.now });
  port.postMessage({ type: 'connection', data: feed.state });
}

(globalThis as unknown as { onconnect: (e: MessageEvent) => void }).onconnect = (e: MessageEvent) => {
  const port = e.ports[0];
  if (!port) return;
  port.onmessage = (m: MessageEvent<{ type: string; list?: string }>) => {
    if (m.data.type === 'bye') leave(port);
    else if (m.data.type === 'follow') {
      leave(port);
      join(port, typeof m.data.list === 'string' ? m.data.list : '');
    }
  };
  port.start();
};
