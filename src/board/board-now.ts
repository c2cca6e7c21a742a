import { maxOf } from '../core/base/many-items.js';
import { listIds } from '../core/lists/list-folders.js';
import { shortIdAmong } from '../core/lists/short-ids.js';
import { type NotifyReport, runNotify } from '../core/notify/notifier.js';
import type { NotifyEvent } from '../core/notify/notify-events.js';
import { NOTIFY_EVENTS } from '../core/notify/notify-plan.js';
import type { SessionIndex } from '../core/sessions/session-index.js';
import { compareIds } from '../core/store/ids.js';
import { isLeftWork, type Task } from '../core/store/schema.js';
import type { ChangeEvent } from '../core/watch/watch-diff.js';
import type { WatchUpdate } from '../core/watch/watch-source.js';
import type { BoardStatus, NowEventView, NowFeedItem, NowListRef, NowPayload, NowWorkView } from './board-protocol.js';

/**
 * The board's Now view: every list at once. It runs `tasks notify`'s follower (core's
 * Notifier, every list, every event, with no target), so the events it shows are the
 * ones `tasks notify` sends, worked out by the same code; the tasks each look read give
 * the work in progress, and their changes (as `tasks watch` diffs them) the feed.
 */
export interface NowOptions {
  configDir: string;
  home: string;
  person: string | undefined;
  stalledMs: number;
  /** A fresh session index (sessions start and end while the board runs). */
  sessions: () => SessionIndex;
  /** A list's short id as the overview has it. */
  shortIdOf: (listId: string) => string | undefined;
  now: () => number;
  /** The payload changed: send it to every tab. */
  changed: (json: string) => void;
  warn: (message: string) => void;
  /** How often lists are looked at again without a change (stalls, sessions' ends). */
  tickMs: number;
  /** Each list's first sightings of task files dated ahead of the clock, shared with the lists' pages (board-live.ts). */
  firstSeen: (listId: string) => Map<string, number>;
}

interface ListNow {
  ref: NowListRef;
  events: readonly NotifyEvent[];
  tasks: readonly Task[];
  /** The tasks' times as notify judged them: a file dated ahead of the clock as when first seen so. */
  times: ReadonlyMap<string, number>;
  /** The files' own times. */
  fileTimes: ReadonlyMap<string, number>;
  update: WatchUpdate | undefined;
}

/** The feed's length. */
const FEED_LIMIT = 100;
/** A finished list stays under "just finished" this long after its last change. */
const FINISHED_FOR_MS = 24 * 3600_000;
/** Changes come in bursts (an agent's several writes): one payload for a burst. */
const SEND_AFTER_MS = 40;

interface When {
  at: number;
  /** Only when the board first saw it. */
  seen: boolean;
  /** Its record is dated ahead of the clock by this much (a second or more): seen, not told as a time yet to come. */
  aheadMs?: number;
}

/**
 * When an event happened (`at`: its record's time, none where no record says), as of a
 * look at `now`: that time; else when the board saw it, and, for a record dated ahead of
 * the clock (a transcript copied from a machine ahead, clock skew, a VM resumed), by how
 * much, as a task file dated ahead is counted (stalled-work.ts timesAsSeen).
 */
function whenOf(at: number | undefined, now: number): When {
  if (at === undefined) return { at: Math.floor(now), seen: true };
  const aheadMs = Math.round(at - now);
  // Whole ms, as the page and `tasks lists` say times (a file's time has a fraction).
  return aheadMs >= 1000 ? { at: Math.floor(now), seen: true, aheadMs } : { at: Math.floor(at), seen: false };
}

/**
 * When an event happened, as the records say: core's time for it (a session's end, a
 * hook's refusal), else the task files' times (a stall begins the stall time after the
 * task's last change; a task is ready for a person since it or its last blocker last
 * changed). Undefined: nothing says (a cycle, damage).
 */
function happened(e: NotifyEvent, times: ReadonlyMap<string, number>, tasks: readonly Task[], stalledMs: number): number | undefined {
  if (e.happenedAt !== undefined) return e.happenedAt;
  const first = e.tasks[0];
  const at = first === undefined ? undefined : times.get(first.id);
  if (at === undefined) return undefined;
  if (e.type === 'stalled') return at + stalledMs;
  if (e.type === 'ready-for-person') {
    const blockers = tasks.find((t) => t.id === first?.id)?.blockedBy ?? [];
    return Math.max(at, maxOf(blockers.map((b) => times.get(b) ?? 0)));
  }
  return undefined;
}

const STATUS_WORDS: Record<BoardStatus, string> = { pending: 'pending', in_progress: 'in progress', completed: 'done' };

/** A task's change in a few words, after its id, as the feed shows it (null: not worth a line, such as a description edit). */
function changeText(e: ChangeEvent): { text: string; task: string | null } | null {
  if (e.type === 'list-cleared') return { text: `every task removed (${e.tasks.length})`, task: null };
  const t = e.task;
  const who = t.owner ? ` (${t.owner})` : '';
  if (e.type === 'created') return { text: `"${t.subject}" created${who}`, task: t.id };
  if (e.type === 'deleted') return { text: `"${t.subject}" deleted`, task: t.id };
  const status = e.changes.status;
  if (status !== undefined) {
    const word = STATUS_WORDS[t.status as BoardStatus] ?? String(t.status);
    const verb = t.status === 'in_progress' ? 'started' : t.status === 'completed' ? 'done' : `back to ${word}`;
    return { text: `"${t.subject}" ${verb}${who}`, task: t.id };
  }
  if (e.changes.owner !== undefined) return { text: `"${t.subject}" ${t.owner ? `now ${t.owner}'s` : 'released'}`, task: t.id };
  return null;
}

/** How far a task's file is dated ahead of the time it is counted from (when first seen so), a second or more. */
function aheadOf(l: ListNow, id: string): { aheadMs?: number } {
  const at = l.times.get(id);
  const file = l.fileTimes.get(id);
  const ahead = at === undefined || file === undefined ? 0 : Math.round(file - at);
  return ahead >= 1000 ? { aheadMs: ahead } : {};
}

const aheadOfEvent = (when: When | undefined): { aheadMs?: number } => (when?.aheadMs === undefined ? {} : { aheadMs: when.aheadMs });

export class BoardNow {
  private readonly lists = new Map<string, ListNow>();
  /** When each event (by key) happened, or was first seen where no record says, while it lasts. */
  private readonly since = new Map<string, When>();
  private readonly feed: NowFeedItem[] = [];
  private readonly stopping = new AbortController();
  private running: Promise<unknown> | undefined;
  private started = false;
  private json: string | undefined;
  private due: NodeJS.Timeout | undefined;

  constructor(private readonly o: NowOptions) {}

  start(): void {
    const report: NotifyReport = {
      delivered: () => undefined,
      retrying: () => undefined,
      // A list that cannot be read is shown as such on its own page: not said again where the board runs.
      warn: () => undefined,
      started: (s) => {
        // No list at all: nothing to look at, and the view is complete as it is.
        if (s.lists.length === 0 && !this.started) {
          this.started = true;
          this.soon();
        }
      },
      looked: (look) => this.looked(look),
      forgot: (listId) => {
        this.lists.delete(listId);
        this.soon();
      },
    };
    this.running = runNotify(
      {
        configDir: this.o.configDir,
        lists: { all: true },
        events: NOTIFY_EVENTS,
        targets: [],
        stalledMs: this.o.stalledMs,
        once: false,
        person: this.o.person,
        home: this.o.home,
        host: '',
        sessions: this.o.sessions,
        shortId: (id) => this.o.shortIdOf(id) ?? shortIdAmong(id, listIds(this.o.configDir)),
        // Nothing is sent from here: no sent state either (the page keeps what it has shown).
        stateHome: undefined,
        deliver: { env: {}, platform: process.platform, bell: () => false, timeoutMs: 0 },
        retry: { tries: 1, baseMs: 0, againMs: 60_000 },
        clock: { now: this.o.now },
        stop: this.stopping.signal,
        tickMs: this.o.tickMs,
        firstSeen: this.o.firstSeen,
      },
      report,
    ).then(
      () => undefined,
      (err: unknown) => this.o.warn(`the Now view stopped following lists: ${(err as Error).message}`),
    );
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    if (this.due) clearTimeout(this.due);
    await this.running;
  }

  /** The payload as JSON (computed now if a change is waiting). */
  payload(): string {
    this.json ??= JSON.stringify(this.build());
    return this.json;
  }

  private looked(look: Parameters<NonNullable<NotifyReport['looked']>>[0]): void {
    const ref: NowListRef = { list: look.listId, shortId: look.shortId, project: look.project ?? null };
    const before = this.lists.get(look.listId);
    const first = before === undefined;
    // A tick looks again at the same update: its changes are in the feed already.
    const fileTimes = look.update.times ?? new Map<string, number>();
    // Dated ahead of the clock: when first seen so, as the events were judged (a stall counts from then).
    const times = look.times;
    const tasks = [...look.update.snapshot.values()];
    if (!first && look.update !== before.update) {
      for (const e of look.update.events) {
        const c = changeText(e);
        // The task file's time is when it changed; a deleted task has none left, and one dated ahead of
        // the clock says nothing true: when the watcher saw it.
        const file = c?.task == null ? undefined : fileTimes.get(c.task);
        if (c) this.push({ ...ref, ...whenOf(file, look.update.at), kind: 'change', ...c });
      }
    }
    const known = new Set(before?.events.map((e) => e.key));
    for (const e of look.events) {
      if (known.has(e.key)) continue;
      let when = this.since.get(e.key);
      if (when === undefined) {
        when = whenOf(happened(e, times, tasks, this.o.stalledMs), look.at);
        this.since.set(e.key, when);
      }
      // What was there when the board started is shown in its section, not as news.
      if (!first) this.push({ ...ref, ...when, kind: e.type, text: e.text, task: e.tasks[0]?.id ?? null });
    }
    const active = new Set(look.events.map((e) => e.key));
    for (const key of known) if (!active.has(key)) this.since.delete(key);
    this.lists.set(look.listId, {
      ref,
      events: look.events,
      tasks,
      times,
      fileTimes,
      update: look.update,
    });
    if (!this.started) this.started = true;
    this.soon();
  }

  /** Into the feed, newest first by when it happened (an agent's end found now may be minutes old). */
  private push(item: NowFeedItem): void {
    const i = this.feed.findIndex((f) => f.at <= item.at);
    this.feed.splice(i === -1 ? this.feed.length : i, 0, item);
    if (this.feed.length > FEED_LIMIT) this.feed.length = FEED_LIMIT;
  }

  private soon(): void {
    this.due ??= setTimeout(() => {
      this.due = undefined;
      const json = JSON.stringify(this.build());
      const shown = (j: string | undefined) => j?.replace(/^\{"at":\d+,/, '{');
      if (shown(json) === shown(this.json)) return;
      this.json = json;
      this.o.changed(json);
    }, SEND_AFTER_MS);
  }

  private build(): NowPayload {
    const now = this.o.now();
    const by = (type: NotifyEvent['type']) => {
      const out: NowEventView[] = [];
      for (const l of this.lists.values()) for (const e of l.events) if (e.type === type) out.push(this.view(l.ref, e, l.tasks));
      return out.sort((a, b) => b.since - a.since || a.key.localeCompare(b.key));
    };
    const working: NowWorkView[] = [];
    const finished: NowEventView[] = [];
    for (const l of this.lists.values()) {
      const stalled = new Set(l.events.filter((e) => e.type === 'stalled').flatMap((e) => e.tasks.map((t) => t.id)));
      const gone = new Set(l.events.filter((e) => e.type === 'agent-died').flatMap((e) => e.tasks.map((t) => t.id)));
      const waiting = new Set(l.events.filter((e) => e.type === 'needs-you').flatMap((e) => e.tasks.map((t) => t.id)));
      const tasks = l.tasks
        .filter((t) => t.status === 'in_progress')
        .sort((a, b) => compareIds(a.id, b.id))
        .map((t) => ({
          id: t.id,
          subject: t.subject,
          owner: t.owner ?? null,
          activeForm: t.activeForm ?? null,
          stalled: stalled.has(t.id),
          ownerGone: gone.has(t.id),
          waiting: waiting.has(t.id),
          changedAt: l.times.get(t.id) ?? null,
          ...aheadOf(l, t.id),
        }));
      if (tasks.length > 0) working.push({ ...l.ref, tasks });
      const done = l.events.find((e) => e.type === 'list-completed');
      if (done) {
        const last = Math.max(0, maxOf(l.times.values()));
        if (now - last <= FINISHED_FOR_MS) finished.push({ ...this.view(l.ref, done), since: Math.floor(last), seen: false });
      }
    }
    working.sort(
      (a, b) => Math.max(0, maxOf(b.tasks.map((t) => t.changedAt ?? 0))) - Math.max(0, maxOf(a.tasks.map((t) => t.changedAt ?? 0))),
    );
    finished.sort((a, b) => b.since - a.since);
    // A session at a permission prompt waits for a person as much as a task they own does.
    const waiting = [...by('needs-you'), ...by('ready-for-person')];
    const stalled = by('stalled');
    // Work no agent is left to do: held by a gone agent, or left open when the list's last session ended.
    const died = [...by('agent-died'), ...by('work-left')];
    const problems = [...by('hook-refused'), ...by('blocked-cycle'), ...by('damage')];
    return {
      at: now,
      ready: this.started,
      needsPerson: waiting.length + stalled.length + died.length + problems.length,
      working,
      waiting,
      stalled,
      died,
      problems,
      finished,
      feed: this.feed,
    };
  }

  private view(ref: NowListRef, e: NotifyEvent, tasks: readonly Task[] = []): NowEventView {
    return {
      ...ref,
      key: e.key,
      type: e.type,
      title: e.title,
      text: e.text,
      action: e.action,
      tasks: e.tasks.map((t) => ({ id: t.id, subject: t.subject, status: t.status as BoardStatus, owner: t.owner })),
      since: this.since.get(e.key)?.at ?? this.o.now(),
      seen: this.since.get(e.key)?.seen ?? true,
      ...aheadOfEvent(this.since.get(e.key)),
      // What `tasks carry` would take from the list (work carried already, marked carriedTo, is not taken again).
      leftWork: tasks.filter(isLeftWork).length,
    };
  }
}
