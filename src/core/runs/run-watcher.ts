/**
 * Runs: following an agent's run as it happens, from its stream-json output (`claude -p
 * --output-format stream-json`, the Agent SDK) or its session's transcript, while they
 * are written. Lines come in (line-feed.ts), the run's list is rebuilt from them
 * (run-model.ts, with the readers of snapshots/), and where the run's list folder exists
 * its files are watched instead (watch/), the stream then telling only when the run
 * ended. Reads only; nothing is ever written.
 */
import type { Clock } from '../base/clock.js';
import { isDirectory } from '../base/is-directory.js';
import { listDirOf } from '../store/paths.js';
import type { Task } from '../store/schema.js';
import { ListWatcher, type WatchUpdate } from '../watch/list-watcher.js';
import { type ChangeEvent, diffSnapshots, snapshotOf } from '../watch/watch-diff.js';
import type { RunEnd, WatchSource, WatchSourceHandlers } from '../watch/watch-source.js';
import type { LineFeed, LineFeedHandlers } from './line-feed.js';
import { RunModel } from './run-model.js';

export interface RunWatcherOptions {
  configDir: string;
  /** The list the run writes to, when known ($CLAUDE_CODE_TASK_LIST_ID); else its session's. */
  listId?: string | undefined;
  /** The session, when known in advance (a transcript); else the stream's `system` event names it. */
  sessionId?: string | undefined;
  clock: Clock;
  /** Opens the input; the feed calls back the handlers given. */
  openFeed(handlers: LineFeedHandlers): LineFeed;
  /**
   * For a transcript, which has no `result` event: is the session over? Asked, at most
   * once a second, whenever the transcript has been read to its end.
   */
  sessionOver?: (() => boolean) | undefined;
}

const SESSION_CHECK_MS = 1000;

/**
 * One run followed as a watch source. `start()` resolves once the run is known: its
 * first `system` event (or any other entry) has been read, or, for a file, all that is in
 * it so far. From then on every change is an update; the end of the run (its `result`
 * event, the end of the input, a transcript's session gone) is reported last, after the
 * list folder (when followed) has been read one final time.
 */
export class RunWatcher implements WatchSource {
  private readonly model = new RunModel();
  private feed: LineFeed | undefined;
  private files: ListWatcher | undefined;
  private current = new Map<string, Task>();
  private started = false;
  private ended = false;
  private closed = false;
  private lastSessionCheck = 0;
  private resolveStart: ((u: WatchUpdate) => void) | undefined;
  private rejectStart: ((err: unknown) => void) | undefined;

  constructor(
    private readonly opts: RunWatcherOptions,
    private readonly handlers: WatchSourceHandlers,
  ) {
    this.model.sessionId = opts.sessionId;
  }

  get listId(): string | undefined {
    return this.opts.listId ?? this.model.sessionId;
  }

  /** The run's session, once known. */
  get sessionId(): string | undefined {
    return this.model.sessionId;
  }

  /** The run's list folder, once its id is known (it may not exist). */
  get listDir(): string | undefined {
    const id = this.listId;
    return id === undefined ? undefined : listDirOf(this.opts.configDir, id);
  }

  start(): Promise<WatchUpdate> {
    return new Promise<WatchUpdate>((resolve, reject) => {
      this.resolveStart = resolve;
      this.rejectStart = reject;
      try {
        this.feed = this.opts.openFeed({
          onLine: (text, line) => this.onLine(text, line),
          onEnd: () => this.endRun({ how: 'input-ended' }),
          onError: (err) => this.fail(err),
          onWarning: (message) => this.handlers.onWarning?.(message),
          onCaughtUp: () => this.onCaughtUp(),
        });
        this.feed.start();
      } catch (err) {
        this.close();
        reject(err);
      }
    });
  }

  close(): void {
    this.closed = true;
    this.feed?.close();
    this.files?.close();
  }

  private onLine(text: string, line: number): void {
    if (this.closed || this.ended) return;
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      this.handlers.onWarning?.(`line ${line} is not JSON (${(err as Error).message}): skipped`);
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.handlers.onWarning?.(`line ${line} is not a JSON object: skipped`);
      return;
    }
    const effect = this.model.apply(value as Record<string, unknown>, line);
    if (effect.warning !== undefined) this.handlers.onWarning?.(`line ${line}: ${effect.warning}`);
    if (!this.started) {
      // A stream opens with its `system` event; a transcript's session is known already.
      const known = this.model.sessionId !== undefined || (value as Record<string, unknown>).type !== 'system';
      if (known && this.feed?.followsFile !== true) this.begin();
    } else if (this.files === undefined) {
      if (effect.taskTool && this.followFiles() !== undefined) return;
      if (effect.changed) this.publish();
    }
    if (effect.end) this.endRun(effect.end);
  }

  private onCaughtUp(): void {
    if (this.closed || this.ended) return;
    if (!this.started) this.begin();
    const over = this.opts.sessionOver;
    if (over === undefined) return;
    const now = this.opts.clock.now();
    if (now - this.lastSessionCheck < SESSION_CHECK_MS) return;
    this.lastSessionCheck = now;
    if (over()) this.endRun({ how: 'session-ended' });
  }

  private begin(): void {
    if (this.started) return;
    this.started = true;
    this.current = snapshotOf(this.model.tasks());
    let first: WatchUpdate;
    try {
      first = this.followFiles(false) ?? this.update([]);
    } catch (err) {
      this.close();
      this.rejectStart?.(err);
      return;
    }
    this.resolveStart?.(first);
  }

  /**
   * Where the run's list folder exists, its files are the truth: they show what other
   * agents and people change too. Switching over reports what the files say beyond what
   * the stream said. Returns the files' first state when they are followed from now on.
   */
  private followFiles(report = true): WatchUpdate | undefined {
    const id = this.listId;
    if (id === undefined || !isDirectory(listDirOf(this.opts.configDir, id))) return undefined;
    const files = new ListWatcher(
      { dir: listDirOf(this.opts.configDir, id), clock: this.opts.clock },
      {
        onUpdate: (u) => {
          this.current = new Map(u.snapshot);
          this.handlers.onUpdate({ ...u, list: id });
        },
        onError: (err) => this.fail(err),
        onWarning: (m) => this.handlers.onWarning?.(m),
      },
    );
    const first = files.start();
    this.files = files;
    const events = diffSnapshots(this.current, first.snapshot);
    this.current = new Map(first.snapshot);
    const update = this.update(events, first);
    if (report && events.length > 0) this.handlers.onUpdate(update);
    return update;
  }

  private publish(): void {
    const next = snapshotOf(this.model.tasks());
    const events = diffSnapshots(this.current, next);
    this.current = next;
    if (events.length > 0) this.handlers.onUpdate(this.update(events));
  }

  private update(events: ChangeEvent[], files?: WatchUpdate): WatchUpdate {
    return {
      at: this.opts.clock.now(),
      list: this.listId,
      events,
      exists: files ? files.exists : true,
      snapshot: this.current,
      problems: files ? files.problems : [],
    };
  }

  private endRun(end: RunEnd): void {
    if (this.ended || this.closed) return;
    this.ended = true;
    if (!this.started) this.begin();
    this.feed?.close();
    // The last writes may still wait for the watcher's debounce: read the folder now.
    this.files?.rescan();
    // After the first state has been handed over and taken in.
    setImmediate(() => {
      if (!this.closed) this.handlers.onRunEnd?.(end);
    });
  }

  private fail(err: unknown): void {
    if (this.closed) return;
    this.close();
    if (!this.started) this.rejectStart?.(err);
    else this.handlers.onError(err);
  }
}
