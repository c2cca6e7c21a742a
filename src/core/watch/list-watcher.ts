/**
 * Watch: following a list folder live. Change hints from the file system
 * (folder-watch.ts, watch-hints.ts), debounced rescans (watch-scan.ts), what changed
 * between two scans (watch-diff.ts), and the conditions and filters a watch waits on.
 * Reads only, without locks, as agents read.
 */
import path from 'node:path';
import type { Clock } from '../base/clock.js';
import type { FileProblem } from '../store/list-read.js';
import { idFromFileName } from '../store/paths.js';
import { FolderWatch } from './folder-watch.js';
import { type ChangeEvent, diffSnapshots } from './watch-diff.js';
import { rescanDueAt } from './watch-hints.js';
import { type ScanResult, scanList, unreadableAs } from './watch-scan.js';
import type { ListWatcherHandlers, WatchSource, WatchUpdate } from './watch-source.js';

export interface ListWatcherOptions {
  /** The list folder; it need not exist yet. */
  dir: string;
  clock: Clock;
  /** Quiet time after the last hint before a rescan (ms). */
  debounceMs?: number;
  /** Longest a rescan waits after the first hint of a burst (ms). */
  maxDelayMs?: number;
  /** Safety net: rescan this long after the last rescan even without a hint (ms). */
  rescanMs?: number;
  /** How long a file must stay unreadable before it is reported (ms). */
  problemGraceMs?: number;
  /**
   * A path that is there but is no folder this user can read (a FIFO, a file, mode 000)
   * is waited for as a missing folder is (`tasks watch`), not an error (onError).
   */
  waitWhileUnreadable?: boolean;
}

export type { ListWatcherHandlers, WatchUpdate } from './watch-source.js';

/** What the last scan saw; `unreadable`: the path did not read (what it is), and the rest is the read before. */
type WatchedState = ScanResult & { unreadable?: string | undefined; unread?: string[] | undefined };

/**
 * Watches one list folder and reports every change as events, without missing any:
 *
 * - fs.watch events are hints only; each burst of them, after a short debounce, causes
 *   a full rescan of the folder, diffed against the last snapshot;
 * - a rescan also runs `rescanMs` after the previous one, whatever happened, because
 *   inotify drops events silently when its queue overflows;
 * - when the folder is missing, the nearest existing ancestor is watched until it
 *   appears; when it is removed and made again (a new inode), the watch is re-attached;
 * - with `waitWhileUnreadable`, when its path is there but is no folder this user can
 *   read (a FIFO or a file put in its place, mode 000), that is warned about once, the tasks last read stand (the
 *   update says `unreadable`), and it is waited for as a missing folder is; a note says
 *   when it reads again.
 *
 * Reads take no lock, as agents' reads do; nothing is ever written.
 */
export class ListWatcher implements WatchSource {
  private readonly dir: string;
  private readonly clock: Clock;
  private readonly debounceMs: number;
  private readonly maxDelayMs: number;
  private readonly rescanMs: number;
  private readonly problemGraceMs: number;
  private readonly waitWhileUnreadable: boolean;
  private state: WatchedState = { exists: false, inode: undefined, snapshot: new Map(), problems: [], times: new Map() };
  private readonly folder: FolderWatch;
  private debounceTimer: NodeJS.Timeout | undefined;
  private firstHintAt: number | undefined;
  private safetyTimer: NodeJS.Timeout | undefined;
  /** When each file that the last scan could not read was first seen unreadable. */
  private problemSince = new Map<string, number>();
  private closed = false;

  constructor(
    opts: ListWatcherOptions,
    private readonly handlers: ListWatcherHandlers,
  ) {
    this.dir = path.resolve(opts.dir);
    this.clock = opts.clock;
    this.debounceMs = opts.debounceMs ?? 100;
    this.maxDelayMs = opts.maxDelayMs ?? 500;
    this.rescanMs = opts.rescanMs ?? 2000;
    this.problemGraceMs = opts.problemGraceMs ?? 1000;
    this.waitWhileUnreadable = opts.waitWhileUnreadable ?? false;
    this.folder = new FolderWatch(
      this.dir,
      () => this.hint(),
      // The periodic rescan still sees every change, only later.
      (target, err) =>
        this.handlers.onWarning?.(`cannot watch ${target} (${err.message}); checking every ${this.rescanMs / 1000}s instead`),
    );
  }

  /** The first scan (synchronous; throws on an I/O error), then watching begins. */
  start(): WatchUpdate {
    this.state = this.scan();
    this.tellUnreadable(undefined, true);
    this.follow();
    this.armSafetyNet();
    return this.update([]);
  }

  get current(): WatchUpdate {
    return this.update([]);
  }

  /** Rescan now (tests and callers that know something changed). */
  rescan(): void {
    if (this.closed) return;
    this.clearDebounce();
    let next: WatchedState;
    try {
      next = this.scan();
    } catch (err) {
      this.close();
      this.handlers.onError(err);
      return;
    }
    const events = diffSnapshots(this.state.snapshot, next.snapshot);
    const existsChanged = next.exists !== this.state.exists;
    const problemsChanged =
      problemKey(next.problems) !== problemKey(this.state.problems) || (next.unread ?? []).join() !== (this.state.unread ?? []).join();
    const was = this.state.unreadable;
    this.state = next;
    this.tellUnreadable(was);
    this.follow();
    this.armSafetyNet();
    if (events.length > 0 || existsChanged || problemsChanged || next.unreadable !== was) this.handlers.onUpdate(this.update(events));
  }

  close(): void {
    this.closed = true;
    this.clearDebounce();
    if (this.safetyTimer) clearTimeout(this.safetyTimer);
    this.safetyTimer = undefined;
    this.folder.close();
  }

  /**
   * A file that failed to read is reported only once it has failed for `problemGraceMs`:
   * an agent's plain writeFile caught half-way (or a slow writer) has finished by then,
   * and its finishing write brings a rescan. Until then it is retried, not reported.
   */
  private scan(): WatchedState {
    let result: ScanResult;
    try {
      result = scanList(this.dir, this.state.snapshot, this.state.times);
    } catch (err) {
      const unreadable = this.waitWhileUnreadable ? unreadableAs(this.dir, err) : undefined;
      if (unreadable === undefined) throw err;
      // Not a folder that reads now: nothing is known of the tasks, the last read stands.
      return { ...this.state, unreadable };
    }
    // A link in the folder's place that leads nowhere: something is there, and it is no list.
    if (this.waitWhileUnreadable && result.dangling !== undefined) return { ...this.state, unreadable: result.dangling };
    const now = this.clock.now();
    const seen = new Map<string, number>();
    for (const p of result.problems) seen.set(p.file, this.problemSince.get(p.file) ?? now);
    this.problemSince = seen;
    return {
      ...result,
      problems: result.problems.filter((p) => now - (seen.get(p.file) ?? now) >= this.problemGraceMs),
      unread: unreadTasks(result),
    };
  }

  /**
   * Keep the fs.watch on the folder the last scan saw; a new watch is followed by a rescan.
   * A path that does not read is watched from its parent, as a missing folder is: its
   * coming back (a folder again, its mode given back) is an event there.
   */
  private follow(): void {
    if (!this.closed && this.folder.sync(this.state.exists && this.state.unreadable === undefined, this.state.inode)) this.hint();
  }

  /** Said once when the path stops being a folder that reads (or becomes another thing that does not), and once when it reads again. */
  private tellUnreadable(was: string | undefined, first = false): void {
    const now = this.state.unreadable;
    if (now === was) return;
    if (now !== undefined) {
      this.handlers.onWarning?.(
        `${this.dir} is ${first ? '' : 'now '}${now}${now.startsWith('a ') && !now.startsWith('a folder') ? ', not a folder' : ''}: waiting for the list to read again (its tasks as last read)`,
        'list_unreadable',
        { dir: this.dir, is: now },
      );
    } else this.handlers.onNote?.(`${this.dir} reads again: following the list`, 'list_readable', { dir: this.dir });
  }

  private update(events: ChangeEvent[]): WatchUpdate {
    return {
      at: this.clock.now(),
      events,
      exists: this.state.exists,
      snapshot: this.state.snapshot,
      times: this.state.times,
      problems: this.state.problems,
      unread: this.state.unread,
      unreadable: this.state.unreadable,
    };
  }

  private hint(): void {
    if (this.closed) return;
    const now = this.clock.now();
    this.firstHintAt ??= now;
    if (this.debounceTimer) clearTimeout(this.debounceTimer);
    const due = rescanDueAt(this.firstHintAt, now, this.debounceMs, this.maxDelayMs);
    this.debounceTimer = setTimeout(() => this.rescan(), due - now);
  }

  private clearDebounce(): void {
    if (this.debounceTimer) clearTimeout(this.debounceTimer);
    this.debounceTimer = undefined;
    this.firstHintAt = undefined;
  }

  /**
   * The next rescan without a hint: `rescanMs` after this one, or sooner, when a file the
   * scan could not read ends its grace: nothing else may bring a rescan then (the torn
   * file stays as it is), and with a long `rescanMs` (many lists followed) its damage
   * would be reported late, or not at all if repaired meanwhile.
   */
  private armSafetyNet(): void {
    if (this.closed) return;
    if (this.safetyTimer) clearTimeout(this.safetyTimer);
    const now = this.clock.now();
    let delay = this.rescanMs;
    for (const since of this.problemSince.values()) {
      const left = since + this.problemGraceMs - now;
      if (left > 0) delay = Math.min(delay, left);
    }
    this.safetyTimer = setTimeout(() => this.rescan(), delay);
  }
}

/** The ids of task files that did not read and have no last good version standing for them, however briefly. */
function unreadTasks(result: ScanResult): string[] {
  const ids = result.problems.map((p) => idFromFileName(p.file)).filter((id): id is string => id !== undefined);
  return [...new Set(ids)].filter((id) => !result.snapshot.has(id)).sort();
}

function problemKey(problems: readonly FileProblem[]): string {
  return problems
    .map((p) => `${p.file}\0${p.reason}`)
    .sort()
    .join('\n');
}
