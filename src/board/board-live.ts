import fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { TasksError } from '../core/base/errors.js';
import { summarizeList } from '../core/lists/list-summary.js';
import { shortIds } from '../core/lists/short-ids.js';
import { judgeProcess, readLiveSessionFiles } from '../core/sessions/live-sessions.js';
import { listDirOf, tasksRoot } from '../core/store/paths.js';
import { teamForList } from '../core/teams/teams.js';
import { ListWatcher, type WatchUpdate } from '../core/watch/list-watcher.js';
import { scanList } from '../core/watch/watch-scan.js';
import type { ListPayload, ListRowView, OverviewPayload } from './board-protocol.js';
import {
  agentsGoneAsSeen,
  type BoardContext,
  type BoardRow,
  changeAsSeen,
  listPayload,
  overviewPayload,
  type RowsSeen,
  readOverview,
  rowAsSeen,
  rowOf,
  type Sessions,
  sessionsAsSeen,
} from './board-state.js';
import { ChildrenWatch } from './children-watch.js';

/**
 * The board, live: one ListWatcher (core's, as `tasks watch` follows a list) per list
 * that some tab has open, however many tabs; every change becomes one payload,
 * serialised once and sent to each of those tabs as a server-sent event.
 *
 * The overview is `tasks lists` (every list, its sessions, TodoWrite sessions, live
 * sessions' lists before their first task), read again with a fresh session index:
 * soon after a list is made or removed, a session starts, ends or turns busy or idle
 * (`sessions/`), or a transcript is written (`projects/`: at most once every few
 * seconds while agents write), when a live session's process is gone (a crash leaves no
 * file event: looked for every few seconds), and at least every half minute (a session
 * known live by its transcript alone stops being so with time). A list's own files
 * change only its row, read at once. A followed list whose sessions changed is sent again.
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
  /** Processes are looked at this often, and transcripts' writes read at most this often. */
  overviewEveryMs: number;
  /** The overview is read again at least this often. */
  overviewAtLeastMs: number;
  /** The Now view's payload, sent to each new stream after the overview. */
  now?: () => string;
  /**
   * Each list's first sightings of task files dated ahead of the clock, shared with the Now
   * view (board-now.ts): a card counts such a task from when the board first saw it, not
   * from when a page first asked for its list.
   */
  firstSeen: (listId: string) => Map<string, number>;
}

interface Client {
  res: ServerResponse;
  list: string | undefined;
}

interface Followed {
  /** Undefined while the list cannot be read (its path is no folder): tried again every UNREADABLE_RETRY_MS. */
  watcher: ListWatcher | undefined;
  clients: Set<Client>;
  last: string | undefined;
  update: WatchUpdate | undefined;
  retry: NodeJS.Timeout | undefined;
}

/** A followed list that cannot be read is looked at again this often (it may be made a folder again). */
const UNREADABLE_RETRY_MS = 2000;

/** A client that stops reading is dropped once this much waits for it. */
const MAX_BUFFERED = 8 * 1024 * 1024;

/** A payload without its time: what is shown. */
const shown = (json: string | undefined) => json?.replace(/^\{"at":\d+,/, '{');

export class BoardLive {
  private readonly clients = new Set<Client>();
  private readonly followed = new Map<string, Followed>();
  private overviewJson: string | undefined;
  /** The overview as last sent, rows since included: what a tab that opens now is sent first. */
  private overviewNow: OverviewPayload | undefined;
  private overviewStale = false;
  private lists: BoardRow[] | undefined;
  private byId = new Map<string, BoardRow>();
  private overviewReadAt = 0;
  private lifeKey = '';
  private ticker: NodeJS.Timeout | undefined;
  private overviewDue: NodeJS.Timeout | undefined;
  private overviewDueAt = 0;
  private rowsDue: NodeJS.Timeout | undefined;
  private readonly dirtyRows = new Set<string>();
  private watchers: fs.FSWatcher[] = [];
  private trees: ChildrenWatch[] = [];
  private heartbeat: NodeJS.Timeout | undefined;
  private closed = false;
  /** Rows whose last change is dated ahead of the clock: when each was first seen so (rowAsSeen). */
  private readonly rowsSeen: RowsSeen = new Map();
  /**
   * Sessions whose last activity is dated ahead of the clock: when each was first seen so
   * (sessionAsSeen), by session id; kept while that time is ahead (a list's own row may
   * show a session the overview does not), dropped once the clock passes it.
   */
  private readonly sessionsSeen: RowsSeen = new Map();
  /** Changes to undo or redo recorded ahead of the clock: when each was first seen so (changeAsSeen), by list and change. */
  private readonly changesSeen: RowsSeen = new Map();

  constructor(private readonly o: LiveOptions) {}

  /**
   * A row dated ahead of the clock as its card counts it: "seen" when the board first saw
   * its time; and so its sessions whose last activity is (the head's "active" pill).
   */
  private asSeen(read: ListRowView): ListRowView {
    const now = this.o.ctx.now();
    const row = sessionsAsSeen(read, this.sessionsSeen, now);
    if (row.changedAt <= now && !this.rowsSeen.has(row.id)) return row;
    return rowAsSeen(row, this.o.firstSeen(row.id), this.rowsSeen, now);
  }

  get clientCount(): number {
    return this.clients.size;
  }

  /** The overview as JSON, read now if nothing is cached. */
  overview(): string {
    // Kept current while a tab is open; asked otherwise, read again when no longer fresh.
    const stale = this.ticker === undefined && this.o.ctx.now() - this.overviewReadAt > this.o.overviewEveryMs;
    if (this.overviewJson === undefined || stale) this.readOverviewNow();
    else if (this.overviewStale && this.overviewNow !== undefined) this.overviewJson = JSON.stringify(this.overviewNow);
    this.overviewStale = false;
    return this.overviewJson as string;
  }

  /** Read the overview now, with a fresh session index; true when what it shows changed. */
  private readOverviewNow(): boolean {
    const index = this.o.sessions.renew();
    this.lifeKey = this.lifeNow();
    this.lists = readOverview(this.o.ctx, index);
    this.byId = new Map(this.lists.map((l) => [l.id, l]));
    this.overviewReadAt = this.o.ctx.now();
    const overview = overviewPayload(this.o.ctx, this.lists, this.o.readOnly);
    this.overviewNow = { ...overview, lists: overview.lists.map((r) => this.asSeen(r)) };
    for (const id of this.rowsSeen.keys()) if (!this.byId.has(id)) this.rowsSeen.delete(id);
    const json = JSON.stringify(this.overviewNow);
    const changed = shown(json) !== shown(this.overviewJson);
    this.overviewJson = json;
    this.overviewStale = false;
    return changed;
  }

  /** A list's row as just read: sent to every tab, and kept in the overview a new tab gets (in `tasks lists` order). */
  private sendRow(read: ListRowView): void {
    const row = this.asSeen(read);
    const now = this.overviewNow;
    if (now !== undefined) {
      const lists = [row, ...now.lists.filter((l) => l.id !== row.id)];
      lists.sort((a, b) => b.changedAt - a.changedAt || a.id.localeCompare(b.id));
      this.overviewNow = { ...now, lists };
      this.overviewStale = true;
    }
    this.broadcast('row', JSON.stringify(row));
  }

  /** What says which sessions run: the live-session files and whether their processes do. */
  private lifeNow(): string {
    const { probe } = this.o.sessions.current;
    return readLiveSessionFiles(this.o.ctx.configDir)
      .map((f) => `${f.pid}:${f.sessionId}:${f.status ?? ''}:${judgeProcess(f, probe)}`)
      .sort()
      .join(' ');
  }

  /** One list's payload now, from its watcher when a tab follows it, else read afresh. */
  listJson(listId: string): string {
    const followed = this.followed.get(listId);
    if (followed?.last !== undefined) return followed.last;
    if (this.lists === undefined) this.readOverviewNow();
    let scan: ReturnType<typeof scanList>;
    try {
      scan = scanList(listDirOf(this.o.ctx.configDir, listId), new Map());
    } catch (err) {
      return JSON.stringify(this.unreadablePayload(listId, err));
    }
    return JSON.stringify(
      this.payloadOf(listId, { at: this.o.ctx.now(), events: [], exists: scan.exists, snapshot: scan.snapshot, problems: scan.problems }),
    );
  }

  /** A list whose folder cannot be read (its path a FIFO, a device, a file): no tasks, and why, as `tasks list` says it. */
  private unreadablePayload(listId: string, err: unknown): ListPayload {
    const why = err instanceof TasksError ? err.message : `cannot read the list: ${(err as Error).message}`;
    return this.payloadOf(listId, { at: this.o.ctx.now(), events: [], exists: false, snapshot: new Map(), problems: [] }, why);
  }

  /** The row `tasks lists` shows for a list (its kind, a TodoWrite session's todos), as last read. */
  known(listId: string): BoardRow | undefined {
    return this.byId.get(listId);
  }

  private payloadOf(listId: string, update: Omit<WatchUpdate, 'times'>, unreadable?: string): ListPayload {
    const known = this.byId.get(listId);
    const payload = listPayload(
      this.o.ctx,
      this.o.sessions.current,
      listId,
      { exists: update.exists, tasks: [...update.snapshot.values()], problems: update.problems, unreadable },
      (id) => this.byId.get(id)?.shortId ?? this.shortIdOf(id),
      teamForList(this.o.ctx.configDir, listId),
      known,
      this.o.firstSeen(listId),
    );
    const now = this.o.ctx.now();
    return {
      ...payload,
      // Its row heads the list's page until the overview has it: its sessions counted as the overview's are.
      row: payload.row === null ? null : sessionsAsSeen(payload.row, this.sessionsSeen, now),
      // Its agents gone, their sessions' last activity counted as those sessions' pills count it.
      facts: agentsGoneAsSeen(payload.facts, this.sessionsSeen, now),
      undo: changeAsSeen(payload.undo, listId, this.changesSeen, now),
      redo: changeAsSeen(payload.redo, listId, this.changesSeen, now),
    };
  }

  /** A list the last overview did not have (made since): its short id among them and it. */
  private shortIdOf(id: string): string {
    return shortIds([...this.byId.keys(), id]).get(id) ?? id;
  }

  /** A new event stream: the overview, then the list it follows (if any), then every change. */
  open(res: ServerResponse, listId: string | undefined): boolean {
    if (this.closed || this.clients.size >= this.o.maxClients) return false;
    const client: Client = { res, list: listId };
    this.clients.add(client);
    res.on('close', () => this.drop(client));
    const overview = this.overview();
    this.start();
    // The server's clock first: the page counts every age on it (page-clock.ts), not on the browser's.
    this.send(client, 'clock', String(Date.now()));
    this.send(client, 'overview', overview);
    if (this.o.now) this.send(client, 'now', this.o.now());
    if (listId !== undefined) this.follow(client, listId);
    return true;
  }

  private follow(client: Client, listId: string): void {
    let followed = this.followed.get(listId);
    if (!followed) {
      followed = { clients: new Set(), last: undefined, update: undefined, watcher: undefined, retry: undefined };
      this.followed.set(listId, followed);
      this.watchList(listId, followed);
    }
    followed.clients.add(client);
    if (followed.last !== undefined) this.send(client, 'list', followed.last);
  }

  /**
   * Start following a list's folder. One that cannot be read (its path made a FIFO, a
   * device, a file; at the start or since) is sent as such, with no tasks, rather than
   * as the tasks it last had: then it is looked at again every UNREADABLE_RETRY_MS.
   */
  private watchList(listId: string, entry: Followed): void {
    const watcher = new ListWatcher(
      {
        dir: listDirOf(this.o.ctx.configDir, listId),
        clock: { now: this.o.ctx.now },
        debounceMs: this.o.debounceMs,
        maxDelayMs: this.o.maxDelayMs,
      },
      {
        onUpdate: (update) => this.listChanged(listId, entry, update),
        onError: (err) => this.listUnreadable(listId, entry, err),
      },
    );
    entry.watcher = watcher;
    try {
      entry.update = watcher.start();
    } catch (err) {
      this.listUnreadable(listId, entry, err);
      return;
    }
    this.sendList(entry, JSON.stringify(this.payloadOf(listId, entry.update)));
  }

  private listUnreadable(listId: string, entry: Followed, err: unknown): void {
    entry.watcher?.close();
    entry.watcher = undefined;
    entry.update = undefined;
    this.sendList(entry, JSON.stringify(this.unreadablePayload(listId, err)));
    if (this.closed || this.followed.get(listId) !== entry) return;
    entry.retry = setTimeout(() => {
      entry.retry = undefined;
      if (!this.closed && this.followed.get(listId) === entry) this.watchList(listId, entry);
    }, UNREADABLE_RETRY_MS);
  }

  /** A followed list's payload, to every tab that follows it when what it shows changed. */
  private sendList(entry: Followed, json: string): void {
    const changed = shown(json) !== shown(entry.last);
    entry.last = json;
    if (changed) for (const c of entry.clients) this.send(c, 'list', json);
  }

  private listChanged(listId: string, entry: Followed, update: WatchUpdate): void {
    entry.update = update;
    const payload = this.payloadOf(listId, update);
    entry.last = JSON.stringify(payload);
    for (const c of entry.clients) this.send(c, 'list', entry.last);
    // Its row in the overview, from what was just read: no second read of the list.
    if (payload.row && payload.kind !== 'todowrite') this.sendRow(payload.row);
  }

  private unfollowAll(listId: string): void {
    const entry = this.followed.get(listId);
    entry?.watcher?.close();
    if (entry?.retry) clearTimeout(entry.retry);
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
    // Room for a few overviews however many lists there are; a tab that reads nothing meanwhile is let go.
    if (res.writableLength > Math.max(MAX_BUFFERED, 3 * (this.overviewJson?.length ?? 0))) {
      res.destroy();
      return;
    }
    res.write(`event: ${event}\ndata: ${json}\n\n`);
  }

  /** An event to every open stream. */
  broadcast(event: string, json: string): void {
    for (const c of this.clients) this.send(c, event, json);
  }

  /** Overview watching runs while some tab is open. */
  private start(): void {
    if (this.ticker || this.closed) return;
    this.ticker = setInterval(() => this.tick(), this.o.overviewEveryMs);
    this.heartbeat = setInterval(() => {
      // The clock again with each keep-alive: a clock stepped on either side since is caught up.
      for (const c of this.clients) c.res.write(`event: clock\ndata: ${Date.now()}\n\n`);
    }, 15_000);
    // A list's own files: its row; a list made or removed: every row.
    this.watchTree(
      tasksRoot(this.o.ctx.configDir),
      () => this.overviewSoon(this.o.debounceMs * 3),
      (list) => this.rowDirty(list),
    );
    this.watch(path.join(this.o.ctx.configDir, 'sessions'), () => this.overviewSoon(this.o.debounceMs * 3));
    // Transcripts: sessions made, prompts typed, activity; written all the time while agents work.
    const transcriptsWritten = () =>
      this.overviewSoon(Math.max(this.o.debounceMs * 3, this.overviewReadAt + this.o.overviewEveryMs - this.o.ctx.now()));
    this.watchTree(path.join(this.o.ctx.configDir, 'projects'), transcriptsWritten, transcriptsWritten);
  }

  /** Every few seconds: a process gone without a word (a crash), or the overview due anyway. */
  private tick(): void {
    // A folder made since, made again, or whose watch was lost without a word: watched again here.
    for (const t of this.trees) t.sync();
    const due = this.o.ctx.now() - this.overviewReadAt >= this.o.overviewAtLeastMs;
    if (due || this.lifeNow() !== this.lifeKey) this.refreshOverview();
  }

  private stop(): void {
    if (this.ticker) clearInterval(this.ticker);
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.overviewDue) clearTimeout(this.overviewDue);
    if (this.rowsDue) clearTimeout(this.rowsDue);
    this.ticker = this.heartbeat = this.overviewDue = this.rowsDue = undefined;
    for (const w of this.watchers) w.close();
    for (const t of this.trees) t.close();
    this.watchers = [];
    this.trees = [];
    this.o.sessions.save();
  }

  private watch(dir: string, onHint: () => void): void {
    try {
      const w = fs.watch(dir, { persistent: false }, onHint);
      w.on('error', () => undefined);
      this.watchers.push(w);
    } catch {
      // Missing (no session has run yet) or out of watches: the periodic read still sees changes.
    }
  }

  /** A folder and each folder in it (children-watch.ts); one not made yet, or made again, is looked for at each tick. */
  private watchTree(dir: string, onTop: () => void, onChild: (child: string) => void): void {
    const tree = new ChildrenWatch(dir, onTop, onChild);
    tree.start();
    this.trees.push(tree);
  }

  /** A list's row again, shortly (several hints of one write come together). */
  private rowDirty(listId: string): void {
    // A followed list sends its row with its own payload.
    if (this.followed.has(listId)) return;
    this.dirtyRows.add(listId);
    this.rowsDue ??= setTimeout(() => this.flushRows(), this.o.debounceMs);
  }

  private flushRows(): void {
    this.rowsDue = undefined;
    const ids = [...this.dirtyRows];
    this.dirtyRows.clear();
    const index = this.o.sessions.current;
    for (const id of ids) {
      if (!fs.existsSync(listDirOf(this.o.ctx.configDir, id))) continue;
      let summary: ReturnType<typeof summarizeList>;
      try {
        summary = summarizeList(this.o.ctx.configDir, id);
      } catch {
        // No longer a folder since its change (a FIFO, a file): the overview says what it is now.
        this.overviewSoon(0);
        continue;
      }
      const row = rowOf(
        this.o.ctx,
        index,
        { ...summary, kind: 'tasks' },
        this.byId.get(id)?.shortId ?? this.shortIdOf(id),
        teamForList(this.o.ctx.configDir, id),
      );
      this.sendRow(row);
    }
  }

  /** The overview again in `ms`, or sooner if already due sooner (a session's change is not held back by transcripts' pace). */
  private overviewSoon(ms: number): void {
    const at = this.o.ctx.now() + Math.max(0, ms);
    if (this.overviewDue !== undefined) {
      if (this.overviewDueAt <= at) return;
      clearTimeout(this.overviewDue);
    }
    this.overviewDueAt = at;
    this.overviewDue = setTimeout(
      () => {
        this.overviewDue = undefined;
        this.refreshOverview();
      },
      Math.max(0, ms),
    );
  }

  private refreshOverview(): void {
    if (this.overviewDue) clearTimeout(this.overviewDue);
    this.overviewDue = undefined;
    this.dirtyRows.clear();
    const changed = this.readOverviewNow();
    if (changed) this.broadcast('overview', this.overviewJson as string);
    // A followed list's sessions, signs of life, gone owners and stalled work come from the sessions just read.
    for (const [listId, entry] of this.followed) {
      if (entry.update === undefined) continue;
      const json = JSON.stringify(this.payloadOf(listId, entry.update));
      if (shown(json) === shown(entry.last)) continue;
      entry.last = json;
      for (const c of entry.clients) this.send(c, 'list', json);
    }
  }

  close(): void {
    this.closed = true;
    this.stop();
    for (const id of [...this.followed.keys()]) this.unfollowAll(id);
    for (const c of this.clients) c.res.end();
    this.clients.clear();
  }
}
