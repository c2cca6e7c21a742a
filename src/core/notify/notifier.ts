/**
 * Notify: telling a person when the agents need them. It follows lists as `watch` does
 * (the same ListWatcher: fs hints, debounced rescans, a safety rescan), and on every
 * change, and every few seconds for what time alone brings (a stall, a session's end),
 * works out what needs a person on each list (notify-events.ts), claims what is new in
 * the sent state (sent-state.ts: once per event, across restarts and processes) and
 * sends it to every target (deliver.ts), each target on its own queue, retried with a
 * bounded backoff, so a slow or dead one holds up no other.
 */
import fs from 'node:fs';
import type { Clock } from '../base/clock.js';
import { isTasksError } from '../base/errors.js';
import { maxOf } from '../base/many-items.js';
import { listIds, listIdsOnce } from '../lists/list-folders.js';
import { listsView } from '../lists/lists-view.js';
import { timesAsSeen } from '../progress/stalled-work.js';
import { type BusyOnList, leftOutAsOwn } from '../sessions/busy-on-list.js';
import { sessionsOfList } from '../sessions/list-sessions.js';
import { liveFilesStamp, liveSessionOfPid } from '../sessions/live-sessions.js';
import type { SessionIndex } from '../sessions/session-index.js';
import { compareIds } from '../store/ids.js';
import { listDirOf, tasksRoot } from '../store/paths.js';
import { GoneWork } from '../watch/gone-work.js';
import { ListWatcher } from '../watch/list-watcher.js';
import type { WatchUpdate } from '../watch/watch-source.js';
import { type DeliverEnv, type DesktopVia, desktopVia, messageOf, type NotifyMessage, tryDeliver } from './deliver.js';
import { HookRefusals } from './hook-refusals.js';
import { forgetOldClears, listFacts, REFUSAL_NEWS_MS } from './list-facts.js';
import { type LiveOpen, listEvents, type NotifyEvent, stallKey } from './notify-events.js';
import { type NotifyEventType, type NotifyTarget, shownTarget } from './notify-plan.js';
import { SendAgain } from './send-again.js';
import { noStateFolder, SentState, type Settle, sentStatePath } from './sent-state.js';

export type NotifyLists = { one: { id: string; dir: string } } | { all: true } | { here: string };

export interface NotifyRequest {
  configDir: string;
  lists: NotifyLists;
  events: readonly NotifyEventType[];
  targets: readonly NotifyTarget[];
  stalledMs: number;
  /** Look once, send what is new, wait for it to be sent, and end. */
  once: boolean;
  person: string | undefined;
  home: string;
  host: string;
  /** A fresh session index (live-session files change while notify runs). */
  sessions: () => SessionIndex;
  /** The session notify runs in (busy for as long as it runs): never waited for before a list is told finished. */
  ownSession?: ((s: BusyOnList) => boolean) | undefined;
  shortId: (id: string) => string;
  /**
   * Where the user's state folder is (the sent-state file goes there); undefined: kept in
   * memory only, for a view that sends nothing (the board's Now). A state that cannot be
   * kept ends the run with an `io` error: an event is never sent unclaimed.
   */
  stateHome: { xdgStateHome: string | undefined; home: string | undefined } | undefined;
  deliver: DeliverEnv;
  /**
   * How many tries a notification gets, and the first wait between them (doubled each time,
   * at most 60 s); following, how long until one given up is tried again (`againMs`, doubled
   * each time it fails again, at most 15 minutes: send-again.ts).
   */
  retry: { tries: number; baseMs: number; againMs: number };
  clock: Clock;
  stop: AbortSignal;
  /** How often lists are looked at again without a change (stalls, sessions' ends, new lists). */
  tickMs?: number | undefined;
  /**
   * Where a list's first sightings of task files dated ahead of the clock are kept
   * (stalled-work.ts timesAsSeen): a board shares them with its pages, so that a card and
   * the Now view count such a task from one moment. Default: each list its own.
   */
  firstSeen?: ((listId: string) => Map<string, number>) | undefined;
}

/** One notification's fate at one target. */
export interface Delivery {
  ok: boolean;
  message: NotifyMessage;
  /** As shown: never a URL's credentials, path or query. */
  target: string;
  via: string;
  attempts: number;
  error?: string | undefined;
  /** Given up, by a following run: when it is tried again, if it still holds. */
  againInMs?: number | undefined;
}

export interface NotifyReport {
  delivered(d: Delivery): void;
  /** A try failed and another follows after `inMs`. */
  retrying(r: { target: string; event: NotifyEventType; list: string; error: string; attempt: number; tries: number; inMs: number }): void;
  warn(message: string): void;
  /** What is followed, once at the start: the lists (`missing`: those whose folder does not exist yet), which desktop notifier (when asked for), where the sent state is kept. */
  started(s: { lists: readonly string[]; missing: readonly string[]; desktop: DesktopVia | undefined; state: string | undefined }): void;
  /** What one look at a list found (every event active now, and the update looked at): for a view that shows them (the board's Now). */
  looked?(look: {
    listId: string;
    shortId: string;
    project: string | undefined;
    events: readonly NotifyEvent[];
    update: WatchUpdate;
    /** The tasks' times the events were judged by: a file dated ahead of the clock as when first seen so (timesAsSeen). */
    times: ReadonlyMap<string, number>;
    at: number;
  }): void;
  /** A list no longer followed (its folder went). */
  forgot?(listId: string): void;
}

interface Followed {
  id: string;
  dir: string;
  watcher: ListWatcher | undefined;
  update: WatchUpdate | undefined;
  /** The keys active at the last look. */
  active: Set<string>;
  first: boolean;
  errorsSince: Map<string, number>;
  /** The claims this process made on the list that are still active as far as it knows: key -> when claimed. */
  own: Map<string, number>;
  /** At the last look every task was completed but a session was at work on the list: list-completed waits for it. */
  heldBusy: boolean;
  /** At the last look its work in progress waited for a person. */
  waited?: boolean | undefined;
  /** At the last look tasks were open and a session of the list may have been at work: its end (work-left) needs no change to a file. */
  liveOpen?: LiveOpen | undefined;
  /** When that wait was last seen to end: the stall clock starts again then. */
  waitEndedAt?: number | undefined;
  /** Tasks seen to go away completed: the finished list its agent cleared, while no task is left (gone-work.ts). */
  goneWork: GoneWork;
  /** Its events whose send failed every try, tried again later while they hold. */
  sendAgain: SendAgain;
  /** Task files dated ahead of the clock: task id and file time -> when first seen so (stalled-work.ts timesAsSeen). */
  aheadSeen: Map<string, number>;
}

/**
 * Has a session seen at work on a list with open work maybe ended? Its processes are asked
 * (signal 0) and their live-session files read (a `/clear` moves the process on to another
 * session: the list's session is over, and is known cleared only while the process runs),
 * so that a list whose agent idles at its prompt for hours is not looked at in depth every
 * round; with no process to ask, every round.
 */
function endMayHaveCome(live: LiveOpen | undefined, configDir: string): boolean {
  if (live === undefined) return false;
  if (live === true) return true;
  return live.some(({ pid, named }) => {
    try {
      process.kill(pid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EPERM') return true;
    }
    return liveSessionOfPid(configDir, pid) !== named;
  });
}

/**
 * When a list's folder was made (ms), where the file system keeps a birth time; undefined
 * where it does not: Node gives 0 then, or without statx the change time, which moves with
 * every file made or removed in the folder and so says nothing of its birth.
 */
function folderBornAt(dir: string): number | undefined {
  try {
    const st = fs.statSync(dir);
    return st.birthtimeMs > 0 && st.birthtimeMs < st.ctimeMs ? st.birthtimeMs : undefined;
  } catch {
    return undefined;
  }
}

/** An error must last this long to be told: an agent's plain write caught half-way is over by then. */
const ERROR_GRACE_MS = 1500;

/** The events of `check`'s errors, which wait out ERROR_GRACE_MS before they are told. */
const ERROR_EVENTS: ReadonlySet<string> = new Set<NotifyEventType>(['blocked-cycle', 'damage']);

/**
 * Event types whose claims stay though no key of theirs is active now. An error still in
 * its grace may be the damage told before. A finished list whose session went busy again
 * (a turn that changed no task) is the list told finished before: dropped, it would be
 * told again when the turn ends.
 */
function undecidedTypes(errorsPending: boolean, heldBusy: boolean): ReadonlySet<string> | undefined {
  if (!errorsPending && !heldBusy) return undefined;
  const types = new Set<string>(errorsPending ? ERROR_EVENTS : []);
  if (heldBusy) types.add('list-completed');
  return types;
}

/** An update's time is taken as its scan ends; the files were read up to this long before. */
const SCAN_MARGIN_MS = 500;

/** The safety rescan of each list under --all and --here. */
const MANY_LISTS_RESCAN_MS = 10_000;

/** Rounds between looks for hooks' refusals in a list nothing changed in (a round: tickMs, 2 s by default). */
const REFUSAL_ROUNDS = 2;

/** Most notifications waiting at one target; past it new ones are dropped, their claims given back (a target down for hours). */
const QUEUE_LIMIT = 200;

export class Notifier {
  private readonly followed = new Map<string, Followed>();
  private readonly state: SentState;
  private readonly statePath: string | undefined;
  private readonly wanted: ReadonlySet<NotifyEventType>;
  private readonly queues = new Map<string, { tail: Promise<void>; waiting: number }>();
  private chain: Promise<void> = Promise.resolve();
  private tick: NodeJS.Timeout | undefined;
  private ticks = 0;
  /** The last error of a look for lists, said once until it changes or goes away. */
  private discoverError: string | undefined;
  /** Following lists live (not --once): a list found later is followed at once. */
  private watching = false;
  private index: SessionIndex | undefined;
  /** The live-session files as they were when `index` was read (liveFilesStamp). */
  private indexStamp = '';
  private readonly counts = { sent: 0, failed: 0 };
  /** What hooks refused, read from transcripts as they grow (only when hook-refused is asked for). */
  private readonly refusals = new HookRefusals();
  /** Sessions seen cleared by a `/clear` (list-facts.ts): their lists' work was left by a person, not an agent's end. */
  private readonly seenCleared = new Map<string, number>();
  /** Why the run ends early: the sent state cannot be kept (nothing more is looked at or claimed). */
  private failed: Error | undefined;
  /** Ends a following run's wait. */
  private end: (() => void) | undefined;
  /** When this run began: the session it runs in is left out only while the turn that started it goes on (ownSession). */
  private readonly startedAt: number;
  /** Targets the sent state knew nothing of at the start: their first run (quietOldNews). */
  private newTargets = new Set<string>();

  constructor(
    private readonly req: NotifyRequest,
    private readonly report: NotifyReport,
  ) {
    this.statePath = req.stateHome === undefined ? undefined : sentStatePath({ ...req.stateHome, configDir: req.configDir });
    this.state = new SentState(
      this.statePath,
      () => req.clock.now(),
      (message) => this.report.warn(message),
    );
    this.wanted = new Set(req.events);
    this.startedAt = req.clock.now();
  }

  /** The session this notify runs in, left out while it is at work on the turn that runs notify (busy-on-list.ts leftOutAsOwn). */
  private readonly ownSession = (b: BusyOnList): boolean => leftOutAsOwn(b, this.req.ownSession, this.startedAt);

  async run(): Promise<{ sent: number; failed: number }> {
    const { req } = this;
    if (req.stateHome !== undefined && this.statePath === undefined) throw noStateFolder();
    this.state.ready();
    await this.forgetGoneLists();
    this.newTargets = this.state.newTargets(req.targets.map((t) => t.id));
    this.discover();
    this.report.started({
      lists: [...this.followed.keys()].sort(compareIds),
      missing: [...this.followed.values()].filter((f) => !fs.existsSync(f.dir)).map((f) => f.id),
      desktop: req.targets.some((t) => t.kind === 'desktop') ? desktopVia(req.deliver) : undefined,
      state: this.statePath,
    });
    if (req.once) {
      for (const f of this.followed.values()) {
        f.watcher = new ListWatcher({ dir: f.dir, clock: req.clock }, { onUpdate: () => {}, onError: () => {} });
        f.update = f.watcher.start();
        f.watcher.close();
        f.watcher = undefined;
      }
      await this.lookAll(true);
      await this.drained();
      if (this.failed) throw this.failed;
      return this.counts;
    }
    this.watching = true;
    for (const f of this.followed.values()) this.follow(f);
    await this.lookAll(true);
    await new Promise<void>((resolve) => {
      const done = () => resolve();
      this.end = done;
      if (req.stop.aborted || this.failed) done();
      else req.stop.addEventListener('abort', done, { once: true });
      this.armTick();
    });
    if (this.tick) clearTimeout(this.tick);
    for (const f of this.followed.values()) f.watcher?.close();
    await this.chain;
    await this.drained();
    if (this.failed) throw this.failed;
    return this.counts;
  }

  /** The lists asked for, as they are now: new ones followed, gone ones dropped. */
  /**
   * The lists to follow, looked for again from the timer: a tasks folder made unreadable
   * meanwhile (mode 000, replaced by a file) is said once, the lists already followed are
   * kept, and the next round looks again. (At the start, the same error ends the run.)
   */
  private discoverAgain(): void {
    try {
      this.discover();
      this.discoverError = undefined;
    } catch (err) {
      const message = (err as Error).message;
      if (message !== this.discoverError) this.report.warn(`cannot look for lists: ${message}; trying again`);
      this.discoverError = message;
    }
  }

  private discover(): void {
    const { req } = this;
    let ids: string[];
    if ('one' in req.lists) ids = [req.lists.one.id];
    // Each folder once: a list reached under two names is one list, told of once.
    else if ('all' in req.lists) ids = listIdsOnce(req.configDir);
    else {
      const here = req.lists.here;
      const folders = new Set(listIds(req.configDir));
      ids = listsView(req.configDir, this.sessionIndex(), { here, live: false })
        .lists.map((l) => l.id)
        .filter((id) => folders.has(id));
    }
    const wanted = new Set(ids);
    for (const [id, f] of this.followed) {
      if (wanted.has(id)) continue;
      f.watcher?.close();
      this.followed.delete(id);
      this.report.forgot?.(id);
    }
    for (const id of ids) {
      if (this.followed.has(id)) continue;
      const dir = 'one' in req.lists ? req.lists.one.dir : listDirOf(req.configDir, id);
      this.followed.set(id, {
        id,
        dir,
        goneWork: new GoneWork(),
        sendAgain: new SendAgain(req.retry.againMs),
        aheadSeen: req.firstSeen?.(id) ?? new Map(),
        watcher: undefined,
        update: undefined,
        active: new Set(),
        first: true,
        errorsSince: new Map(),
        own: new Map(),
        heldBusy: false,
      });
      if (this.watching) this.follow(this.followed.get(id) as Followed);
    }
  }

  private follow(f: Followed): void {
    // Many lists: fs hints still bring each change within a second; the safety rescan (for
    // hints inotify dropped) comes less often, so that hundreds of idle lists cost little.
    const rescanMs = 'one' in this.req.lists ? undefined : MANY_LISTS_RESCAN_MS;
    const watcher = new ListWatcher(
      { dir: f.dir, clock: this.req.clock, ...(rescanMs === undefined ? {} : { rescanMs }) },
      {
        onUpdate: (u) => {
          f.goneWork.note(u.events);
          f.update = u;
          void this.schedule(() => this.look(f, true));
        },
        onError: (err) => {
          // Followed again at the next tick.
          this.report.warn(`stopped following list ${this.req.shortId(f.id)}: ${(err as Error).message}`);
          f.watcher = undefined;
        },
        onWarning: (message) => this.report.warn(message),
      },
    );
    try {
      f.update = watcher.start();
      f.watcher = watcher;
    } catch (err) {
      watcher.close();
      this.report.warn(`cannot read list ${this.req.shortId(f.id)}: ${(err as Error).message}`);
    }
  }

  private armTick(): void {
    if (this.req.stop.aborted || this.failed) return;
    this.tick = setTimeout(() => {
      this.ticks++;
      // Sessions and lists change between looks: a fresh index for each round.
      this.index = undefined;
      forgetOldClears(this.seenCleared, this.req.clock.now());
      // --here asks the sessions which lists are here: not every round.
      if (!('one' in this.req.lists) && ('all' in this.req.lists || this.ticks % 5 === 0)) this.discoverAgain();
      for (const f of this.followed.values()) if (f.watcher === undefined) this.follow(f);
      void this.lookAll(false).finally(() => this.armTick());
    }, this.req.tickMs ?? 2000);
  }

  private sessionIndex(): SessionIndex {
    if (this.index === undefined) {
      // Taken before the index reads anything: a file changed while it reads makes it stale, never the other way.
      this.indexStamp = liveFilesStamp(this.req.configDir);
      this.index = this.req.sessions();
    }
    return this.index;
  }

  /**
   * A list changed between rounds: the change may be a session's the round's index never
   * saw (an agent started since, its first step done; a session gone idle), and "every
   * task completed" told then, with no session known at work, is told too early. The
   * index is read again when the live-session files changed since it was read; else it
   * still holds (transcripts are read again each round, at a heavy user's scale).
   */
  private freshenIndex(): void {
    if (this.index !== undefined && liveFilesStamp(this.req.configDir) !== this.indexStamp) this.index = undefined;
  }

  /**
   * Looks run one at a time, in order: two looks at one list never settle at once. Each
   * after a turn of the event loop, so that a process that does other work too (the
   * board answering its pages) is not held up by a round over hundreds of lists.
   */
  private schedule(fn: () => Promise<void>): Promise<void> {
    this.chain = this.chain
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(fn)
      .catch((err: unknown) => this.report.warn(`notify: ${(err as Error).message}`));
    return this.chain;
  }

  /** `changed`: the lists may have changed (the start); else only time passed, and only what time brings is looked at again. */
  private lookAll(changed: boolean): Promise<void> {
    for (const f of this.followed.values()) void this.schedule(() => this.look(f, changed));
    return this.chain;
  }

  private async look(f: Followed, changed: boolean): Promise<void> {
    const { req } = this;
    const u = f.update;
    // A list named before its folder exists (agents make it on first use): nothing to tell until it does.
    if (u === undefined || !u.exists || !this.followed.has(f.id) || this.failed) return;
    // Time alone changes only stalls, sessions' ends and errors waiting out their grace.
    // A hook's refusal changes no file: the transcripts of a list with open work that
    // changed lately (an agent at work on it) are looked at every other round.
    const refusalsMatter =
      this.wanted.has('hook-refused') &&
      this.ticks % REFUSAL_ROUNDS === 0 &&
      [...u.snapshot.values()].some((t) => t.status !== 'completed') &&
      req.clock.now() - Math.max(0, maxOf(u.times?.values() ?? [])) <= REFUSAL_NEWS_MS;
    if (
      !changed &&
      !f.first &&
      f.errorsSince.size === 0 &&
      !f.heldBusy &&
      !endMayHaveCome(f.liveOpen, req.configDir) &&
      !refusalsMatter &&
      !f.sendAgain.due(req.clock.now()) &&
      ![...u.snapshot.values()].some((t) => t.status === 'in_progress') &&
      !this.waitingMatters(f, u)
    )
      return;
    if (changed) this.freshenIndex();
    const now = req.clock.now();
    // A file dated ahead of the clock counts from when it was first seen so: it stalls, as in a watch, the stall time after.
    const times = timesAsSeen(u.times ?? new Map(), f.aheadSeen, now);
    const left = [...u.snapshot.values()];
    // None left, and those that went went completed: the finished list its agent cleared.
    const tasks = [...(left.length === 0 ? (f.goneWork.finished ?? left) : left)].sort((a, b) => compareIds(a.id, b.id));
    const facts = listFacts({
      listId: f.id,
      dir: f.dir,
      shortId: req.shortId(f.id),
      tasks,
      times,
      wanted: this.wanted,
      now,
      stalledMs: req.stalledMs,
      person: req.person,
      home: req.home,
      sessions: () => this.sessionIndex(),
      errorsSince: f.errorsSince,
      checkFiles: changed || f.first,
      errorGraceMs: req.once ? 0 : ERROR_GRACE_MS,
      refusals: this.wanted.has('hook-refused') ? this.refusals : undefined,
      ownSession: this.ownSession,
      // Waiting at the last look: if it no longer does, the wait ended now.
      waitEndedAt: f.waited === true ? now : f.waitEndedAt,
      watchEnds: f.liveOpen !== undefined,
      seenCleared: this.seenCleared,
    });
    f.liveOpen = facts.liveOpen;
    if (facts.waitingWork === true) f.waited = true;
    else if (f.waited === true) {
      f.waited = false;
      f.waitEndedAt = now;
    }
    const heldBusy = (facts.busy?.length ?? 0) > 0;
    const events = listEvents(facts, this.wanted);
    // The session waited for went idle or ended: its last writes, made just before, may not
    // have reached the watcher yet. And a list told finished anew: the tasks were read
    // before the sessions, and an agent may have added one and gone idle in between (a
    // loaded machine). Read the list again first; a change is looked at as it comes.
    const freshlyDone = events.some((e) => e.type === 'list-completed' && !f.active.has(e.key));
    if (((f.heldBusy && !heldBusy) || freshlyDone) && f.watcher !== undefined) {
      const before = f.update;
      f.watcher.rescan();
      if (f.update !== before) return;
    }
    this.report.looked?.({ listId: f.id, shortId: facts.shortId, project: facts.project, events, update: u, times, at: now });
    const active = new Set(events.map((e) => e.key));
    // New, or given up earlier and due to be tried again (its claim was given back).
    const again = f.sendAgain.dueKeys(active, now);
    const fresh = events.filter((e) => !f.active.has(e.key) || again.has(e.key));
    // An error seen but not yet past its grace (every error, at a restart's first look)
    // may be the damage or cycle told before, and a finished list held while a session
    // works the list told finished before: their claims stay until that is known.
    const undecided = undecidedTypes(facts.errorsPending === true, heldBusy);
    // A stall's spell lasts while its task stays in progress, unchanged: another session's
    // work on the list may hide it for a while, and it must not be told again after.
    const lasting = new Set(
      this.wanted.has('stalled') ? tasks.filter((t) => t.status === 'in_progress').map((t) => stallKey(f.id, t.id, times.get(t.id))) : [],
    );
    // What this process claimed and has now seen clear: it is told again when it comes back, however soon.
    const ownCleared = new Map(
      [...f.own].filter(([k]) => !active.has(k) && !lasting.has(k) && !undecided?.has(k.slice(0, k.indexOf('|')))),
    );
    const claims = await this.claim(
      req.targets.map((t) => t.id),
      {
        listId: f.id,
        fresh: fresh.map((e) => e.key),
        active,
        types: this.wanted,
        scannedAt: u.at - SCAN_MARGIN_MS,
        undecided,
        lasting,
        ownCleared,
        bornAt: folderBornAt(f.dir),
        quiet:
          f.first && this.newTargets.size > 0
            ? { keys: quietOldNews(events, u, now, () => this.hasLiveSession(f.id)), targets: this.newTargets }
            : undefined,
      },
    );
    f.sendAgain.tried(again);
    for (const k of ownCleared.keys()) f.own.delete(k);
    for (const c of claims) f.own.set(c.key, c.at);
    f.heldBusy = heldBusy;
    f.first = false;
    f.active = active;
    const byKey = new Map(events.map((e) => [e.key, e]));
    for (const claim of claims) {
      const target = req.targets.find((t) => t.id === claim.target);
      const event = byKey.get(claim.key);
      if (target && event) this.enqueue(f, target, event, messageOf(event, now, req.host), claim.at);
    }
  }

  /**
   * Once a run, at its start: forget what was told of lists whose folder is gone (one look
   * at each list the state names). Not while the folder of lists is missing altogether (a
   * config folder not mounted yet): every list would seem gone, and be told again once back.
   * Another notify holding the state meanwhile: the next run does it.
   */
  private async forgetGoneLists(): Promise<void> {
    if (!fs.existsSync(tasksRoot(this.req.configDir))) return;
    try {
      await this.state.forgetLists((list) => !fs.existsSync(listDirOf(this.req.configDir, list)));
    } catch (err) {
      if (!isTasksError(err) || err.code !== 'busy') throw err;
    }
  }

  /**
   * What is new to send, claimed in the sent state. A state that cannot be kept ends the
   * run with its error (a following one too: it must not go on telling nobody); the lock
   * held too long by another notify is a warning, and this look's events are claimed at the next.
   */
  private async claim(targets: string[], s: Settle): Promise<Array<{ target: string; key: string; at: number }>> {
    try {
      return await this.state.settle(targets, s);
    } catch (err) {
      if (isTasksError(err) && err.code === 'busy') throw err;
      this.failed ??= err as Error;
      this.end?.();
      return [];
    }
  }

  /**
   * Time alone can bring a session to a permission prompt, or take it away, on a list with
   * open work and nothing in progress: looked at when one of its sessions (as the live
   * files say, no transcript read) waits now or waited at the last look.
   */
  private waitingMatters(f: Followed, u: WatchUpdate): boolean {
    if (!this.wanted.has('needs-you')) return false;
    if ([...f.active].some((k) => k.startsWith('needs-you|'))) return true;
    if (u.snapshot.size === 0) return false;
    return sessionsOfList(this.sessionIndex(), f.id).some((s) => s.state === 'live' && s.activity === 'waiting');
  }

  private hasLiveSession(listId: string): boolean {
    return sessionsOfList(this.sessionIndex(), listId).some((s) => s.state === 'live');
  }

  /** `claimedAt`: when its claim was made, given back if it is never sent (and, following, tried again later). */
  private enqueue(f: Followed, target: NotifyTarget, event: NotifyEvent, message: NotifyMessage, claimedAt: number): void {
    const later = () => this.sendLater(f, event);
    const q = this.queues.get(target.id) ?? { tail: Promise.resolve(), waiting: 0 };
    this.queues.set(target.id, q);
    if (q.waiting >= QUEUE_LIMIT) {
      // After what waits: the run ends once its queues are drained, this too.
      q.tail = q.tail.then(() => this.giveBack(target, event, claimedAt));
      this.counts.failed++;
      this.report.delivered({
        ok: false,
        message,
        target: shownTarget(target),
        via: target.kind,
        attempts: 0,
        error: `${QUEUE_LIMIT} notifications already wait for this target; dropped`,
        againInMs: later(),
      });
      return;
    }
    q.waiting++;
    q.tail = q.tail.then(async () => {
      try {
        if (!(await this.send(target, event, message, later))) await this.giveBack(target, event, claimedAt);
      } finally {
        q.waiting--;
      }
    });
  }

  /**
   * The claim of an event never sent, given back: a later run (the next `--once` from cron,
   * a restart) tells it again, the target back up. Where the state cannot be kept, it stays
   * claimed, as it was: told never rather than twice.
   */
  private async giveBack(target: NotifyTarget, event: NotifyEvent, claimedAt: number): Promise<void> {
    try {
      await this.state.release(target.id, event.key, claimedAt);
    } catch {
      // The state's failure is the run's at its next claim.
    }
  }

  /** A send given up: following, when it is tried again (undefined: by the next run, or never). */
  private sendLater(f: Followed, event: NotifyEvent): number | undefined {
    if (!this.watching || this.req.stop.aborted || this.failed) return undefined;
    return f.sendAgain.later(event.key, this.req.clock.now());
  }

  /** Sent (true), or given up after every try (`later`: when it is tried again, for the report). */
  private async send(target: NotifyTarget, event: NotifyEvent, message: NotifyMessage, later: () => number | undefined): Promise<boolean> {
    const { tries, baseMs } = this.req.retry;
    const shown = shownTarget(target);
    for (let attempt = 1; ; attempt++) {
      let result: Awaited<ReturnType<typeof tryDeliver>>;
      try {
        result = await tryDeliver(target, event, message, this.req.deliver);
      } catch (err) {
        result = { ok: false, via: target.kind, error: (err as Error).message, retry: true };
      }
      if (result.ok) {
        this.counts.sent++;
        this.report.delivered({ ok: true, message, target: shown, via: result.via, attempts: attempt });
        return true;
      }
      const last = !result.retry || attempt >= tries || this.req.stop.aborted;
      if (last) {
        this.counts.failed++;
        this.report.delivered({
          ok: false,
          message,
          target: shown,
          via: result.via,
          attempts: attempt,
          error: result.error,
          againInMs: later(),
        });
        return false;
      }
      const inMs = Math.min(60_000, baseMs * 2 ** (attempt - 1));
      this.report.retrying({ target: shown, event: event.type, list: event.shortId, error: result.error, attempt, tries, inMs });
      await this.pause(inMs);
    }
  }

  /** A wait between tries that a stop cuts short (the last try then follows at once). */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const stop = this.req.stop;
      const done = () => {
        clearTimeout(timer);
        stop.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      stop.addEventListener('abort', done, { once: true });
    });
  }

  private async drained(): Promise<void> {
    for (;;) {
      const tails = [...this.queues.values()].map((q) => q.tail);
      await Promise.all(tails);
      if ([...this.queues.values()].every((q) => q.waiting === 0)) return;
    }
  }
}

/** `tasks notify`: follow the lists asked for and tell each event once, until stopped (or, with `once`, after one look). */
export function runNotify(req: NotifyRequest, report: NotifyReport): Promise<{ sent: number; failed: number }> {
  return new Notifier(req, report).run();
}

/**
 * A list finished before the last 30 minutes, its sessions over, as a first run for a
 * target finds it: old news, claimed without being told, so that setting up `notify --all`
 * on a machine with a history does not send every list ever finished at once (as
 * work-left tells only an end of the last 30 minutes). Its time is its tasks' last change.
 * A live session's list is told however long ago it finished: it is the person's work now.
 */
function quietOldNews(events: readonly NotifyEvent[], u: WatchUpdate, now: number, live: () => boolean): Set<string> {
  const finishedAt = maxOf(u.times?.values() ?? []);
  // No time known (-Infinity, NaN): not judged old.
  if (!Number.isFinite(finishedAt) || now - finishedAt <= REFUSAL_NEWS_MS) return new Set();
  const finished = events.filter((e) => e.type === 'list-completed').map((e) => e.key);
  return finished.length === 0 || live() ? new Set() : new Set(finished);
}
