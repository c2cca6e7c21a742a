import fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { sessionsInShowOrder, summarizeList } from '../core/lists/list-summary.js';
import { sessionsOfList } from '../core/sessions/list-sessions.js';
import { listDirOf, tasksRoot } from '../core/store/paths.js';
import { teamForList } from '../core/teams/teams.js';
import { ListWatcher, type WatchUpdate } from '../core/watch/list-watcher.js';
import { scanList } from '../core/watch/watch-scan.js';
import type { ListPayload, OverviewPayload } from './board-protocol.js';
import { type BoardContext, listPayload, overviewPayload, rowView, type Sessions, shortIdsNow } from './board-state.js';

/**
 * The board, live: one ListWatcher (core's, as `tasks watch` follows a list) per list
 * that some tab has open, however many tabs; every change becomes one payload,
 * serialised once and sent to each of those tabs as a server-sent event. The overview
 * follows the config folder's `tasks/` (a list's files: that list's row again; a list
 * added or removed: every row) and `sessions/` (sessions start, end, turn busy or idle),
 * and is read again every few seconds whatever happens (a crashed session leaves no
 * file event).
 */
export interface LiveOptions {
  ctx: BoardContext;
  sessions: Sessions;
  readOnly: boolean;
  /** At most this many open event streams; more are refused (503). */
  maxClients: number;
  /** Watch timing: a file change is on the page within about debounce + a scan. */
  debounceMs: number;
  maxDelayMs: number;
  overviewEveryMs: number;
}

interface Client {
  res: ServerResponse;
  list: string | undefined;
}

interface Followed {
  watcher: ListWatcher;
  clients: Set<Client>;
  last: string | undefined;
}

/** A client that stops reading is dropped once this much waits for it. */
const MAX_BUFFERED = 8 * 1024 * 1024;

export class BoardLive {
  private readonly clients = new Set<Client>();
  private readonly followed = new Map<string, Followed>();
  private overviewJson: string | undefined;
  private overviewTimer: NodeJS.Timeout | undefined;
  private overviewDue: NodeJS.Timeout | undefined;
  private readonly dirtyRows = new Set<string>();
  private watchers: fs.FSWatcher[] = [];
  private heartbeat: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly o: LiveOptions) {}

  get clientCount(): number {
    return this.clients.size;
  }

  /** The overview as JSON, read now if nothing is cached. */
  overview(): string {
    this.overviewJson ??= JSON.stringify(this.readOverview());
    return this.overviewJson;
  }

  private readOverview(): OverviewPayload {
    return overviewPayload(this.o.ctx, this.o.sessions.current, this.o.readOnly);
  }

  /** One list's payload now, from its watcher when a tab follows it, else read afresh. */
  listJson(listId: string): string {
    const followed = this.followed.get(listId);
    if (followed?.last !== undefined) return followed.last;
    const scan = scanList(listDirOf(this.o.ctx.configDir, listId), new Map());
    return JSON.stringify(
      this.payloadOf(listId, { at: this.o.ctx.now(), events: [], exists: scan.exists, snapshot: scan.snapshot, problems: scan.problems }),
    );
  }

  private payloadOf(listId: string, update: WatchUpdate): ListPayload {
    const short = shortIdsNow(this.o.ctx.configDir);
    return listPayload(
      this.o.ctx,
      this.o.sessions.current,
      listId,
      { exists: update.exists, tasks: [...update.snapshot.values()], problems: update.problems },
      (id) => short.get(id) ?? id,
      teamForList(this.o.ctx.configDir, listId),
    );
  }

  /** A new event stream: the overview, then the list it follows (if any), then every change. */
  open(res: ServerResponse, listId: string | undefined): boolean {
    if (this.closed || this.clients.size >= this.o.maxClients) return false;
    const client: Client = { res, list: listId };
    this.clients.add(client);
    res.on('close', () => this.drop(client));
    this.start();
    this.send(client, 'overview', this.overview());
    if (listId !== undefined) this.follow(client, listId);
    return true;
  }

  private follow(client: Client, listId: string): void {
    let followed = this.followed.get(listId);
    if (!followed) {
      const entry: Followed = { clients: new Set(), last: undefined, watcher: undefined as unknown as ListWatcher };
      entry.watcher = new ListWatcher(
        {
          dir: listDirOf(this.o.ctx.configDir, listId),
          clock: { now: this.o.ctx.now },
          debounceMs: this.o.debounceMs,
          maxDelayMs: this.o.maxDelayMs,
        },
        {
          onUpdate: (update) => this.listChanged(listId, entry, update),
          onError: () => this.unfollowAll(listId),
        },
      );
      this.followed.set(listId, entry);
      followed = entry;
      try {
        entry.last = JSON.stringify(this.payloadOf(listId, entry.watcher.start()));
      } catch {
        this.unfollowAll(listId);
        this.send(client, 'gone', JSON.stringify({ list: listId }));
        return;
      }
    }
    followed.clients.add(client);
    if (followed.last !== undefined) this.send(client, 'list', followed.last);
  }

  private listChanged(listId: string, entry: Followed, update: WatchUpdate): void {
    const payload = this.payloadOf(listId, update);
    entry.last = JSON.stringify(payload);
    for (const c of entry.clients) this.send(c, 'list', entry.last);
    // Its row in the overview, from what was just read: no second read of the list.
    if (payload.row) this.broadcast('row', JSON.stringify(payload.row));
  }

  private unfollowAll(listId: string): void {
    const entry = this.followed.get(listId);
    entry?.watcher.close();
    this.followed.delete(listId);
  }

  private drop(client: Client): void {
    this.clients.delete(client);
    if (client.list !== undefined) {
      const entry = this.followed.get(client.list);
      entry?.clients.delete(client);
      if (entry && entry.clients.size === 0) this.unfollowAll(client.list);
    }
    if (this.clients.size === 0) this.stop();
  }

  private send(client: Client, event: string, json: string): void {
    const { res } = client;
    if (res.writableLength > MAX_BUFFERED) {
      res.destroy();
      return;
    }
    res.write(`event: ${event}\ndata: ${json}\n\n`);
  }

  private broadcast(event: string, json: string): void {
    for (const c of this.clients) this.send(c, event, json);
  }

  /** Overview watching runs while some tab is open. */
  private start(): void {
    if (this.overviewTimer || this.closed) return;
    this.overviewTimer = setInterval(() => this.refreshOverview(), this.o.overviewEveryMs);
    this.heartbeat = setInterval(() => {
      for (const c of this.clients) c.res.write(': keep-alive\n\n');
    }, 15_000);
    const root = tasksRoot(this.o.ctx.configDir);
    this.watch(root, true, (name) => {
      const first = name?.split(path.sep)[0];
      // A list's own files: its row; anything at the top (a list made or removed): every row.
      if (first !== undefined && name !== first) this.rowDirty(first);
      else this.overviewSoon();
    });
    this.watch(path.join(this.o.ctx.configDir, 'sessions'), false, () => this.overviewSoon(true));
  }

  private stop(): void {
    if (this.overviewTimer) clearInterval(this.overviewTimer);
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.overviewDue) clearTimeout(this.overviewDue);
    this.overviewTimer = this.heartbeat = this.overviewDue = undefined;
    for (const w of this.watchers) w.close();
    this.watchers = [];
  }

  private watch(dir: string, recursive: boolean, onHint: (name: string | undefined) => void): void {
    try {
      const w = fs.watch(dir, { recursive, persistent: false }, (_type, name) => onHint(name === null ? undefined : String(name)));
      w.on('error', () => undefined);
      this.watchers.push(w);
    } catch {
      // Missing (no session has run yet) or out of watches: the periodic read still sees changes.
    }
  }

  /** A list's row again, shortly (several hints of one write come together). */
  private rowDirty(listId: string): void {
    // A followed list sends its row with its own payload.
    if (this.followed.has(listId)) return;
    this.dirtyRows.add(listId);
    this.overviewDue ??= setTimeout(() => this.flushRows(), this.o.debounceMs);
  }

  private flushRows(): void {
    this.overviewDue = undefined;
    const ids = [...this.dirtyRows];
    this.dirtyRows.clear();
    const index = this.o.sessions.current;
    const short = shortIdsNow(this.o.ctx.configDir);
    for (const id of ids) {
      if (!fs.existsSync(listDirOf(this.o.ctx.configDir, id))) continue;
      const summary = summarizeList(this.o.ctx.configDir, id);
      const row = rowView(
        { ...summary, kind: 'tasks', shortId: short.get(id) ?? id, sessions: sessionsInShowOrder(sessionsOfList(index, id)) },
        teamForList(this.o.ctx.configDir, id),
        this.o.ctx.home,
      );
      this.broadcast('row', JSON.stringify(row));
    }
  }

  private overviewSoon(sessionsChanged = false): void {
    if (sessionsChanged) this.o.sessions.renew();
    if (this.overviewDue) clearTimeout(this.overviewDue);
    this.overviewDue = setTimeout(() => {
      this.overviewDue = undefined;
      this.dirtyRows.clear();
      this.refreshOverview();
    }, this.o.debounceMs * 3);
  }

  private refreshOverview(): void {
    const json = JSON.stringify(this.readOverview());
    // `at` always differs: compare what is shown.
    const shown = (s: string | undefined) => s?.replace(/^\{"at":\d+,/, '{');
    const changed = shown(json) !== shown(this.overviewJson);
    this.overviewJson = json;
    if (changed) this.broadcast('overview', json);
  }

  close(): void {
    this.closed = true;
    this.stop();
    for (const id of [...this.followed.keys()]) this.unfollowAll(id);
    for (const c of this.clients) c.res.end();
    this.clients.clear();
  }
}
