/**
 * A session's own list, followed across `/clear` (docs/task-store.md section 15): the
 * process goes on as a new session with a new list, and the old list is left behind,
 * out of the agent's sight. Every so often the watch asks where the session went (the
 * caller answers from the sessions' evidence); once it has gone, the list it uses now is
 * followed from its first state, and the list left behind is still read, so that a
 * condition can speak of the work left there (watch-condition.ts, untilHoldsAcross).
 */
import path from 'node:path';
import type { Clock } from '../base/clock.js';
import { ListWatcher } from './list-watcher.js';
import type { LeftList, ListSwitch, ListWatcherHandlers, WatchSource, WatchUpdate } from './watch-source.js';

/** Where the session whose own list was followed went. */
export interface ListMove {
  sessionId: string;
  newSessionId: string;
  /** Known (the same process seen on both, or the transcripts), not taken from times alone (cleared-lists.ts). */
  sure: boolean;
  /** The list it uses now, and its folder. */
  to: string;
  dir: string;
}

export interface ListFollowOptions {
  listId: string;
  dir: string;
  clock: Clock;
  /** Where the session of `listId` went; undefined while it is still on it. Asked every `everyMs`. */
  moved(listId: string): ListMove | undefined;
  everyMs: number;
  /** false (`--no-follow`): say once that the session left, and stay on the list. */
  follow: boolean;
}

interface Followed {
  list: string;
  watcher: ListWatcher;
}

export class ListFollow implements WatchSource {
  private current: Followed;
  private readonly left: Followed[] = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly opts: ListFollowOptions,
    private readonly handlers: ListWatcherHandlers,
  ) {
    this.current = this.followed(opts.listId, opts.dir);
  }

  start(): WatchUpdate {
    const first = this.current.watcher.start();
    // A list already left behind when the watch began was asked for as it is: watched, not followed.
    const gone = this.movedFrom(this.current.list);
    if (gone !== undefined) {
      const switched: ListSwitch = { ...this.switchOf(gone), followed: false, before: true };
      setImmediate(() => {
        if (!this.closed) this.handlers.onUpdate({ ...this.current.watcher.current, list: this.current.list, switched });
      });
    } else this.arm();
    return { ...first, list: this.current.list };
  }

  private movedFrom(list: string): ListMove | undefined {
    try {
      const move = this.opts.moved(list);
      return move?.to === list ? undefined : move;
    } catch {
      return undefined; // a session file caught half-written: asked again next time
    }
  }

  private switchOf(move: ListMove): ListSwitch {
    return {
      from: this.current.list,
      to: move.to,
      sessionId: move.sessionId,
      newSessionId: move.newSessionId,
      sure: move.sure,
      followed: this.opts.follow,
    };
  }

  /** Read every list followed now (the current one last): what changed comes as updates, at once. */
  rescan(): void {
    for (const l of this.left) l.watcher.rescan();
    this.current.watcher.rescan();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.current.watcher.close();
    for (const l of this.left) l.watcher.close();
  }

  private followed(list: string, dir: string): Followed {
    const f = { list } as Followed;
    f.watcher = this.watcherOf(path.resolve(dir), f);
    return f;
  }

  private watcherOf(dir: string, self: Followed): ListWatcher {
    return new ListWatcher(
      // A live follower: a path that does not read now is waited for, as a removed list is.
      { dir, clock: this.opts.clock, waitWhileUnreadable: true },
      {
        onUpdate: (u) => {
          if (this.closed) return;
          // A list left behind changed: the followed list is as it was, what was left is not.
          if (self !== this.current)
            this.handlers.onUpdate({ ...this.current.watcher.current, list: this.current.list, events: [], left: this.leftLists() });
          else this.handlers.onUpdate({ ...u, list: this.current.list, left: this.leftLists() });
        },
        onError: (err) => {
          if (self === this.current) this.handlers.onError(err);
        },
        onWarning: this.handlers.onWarning?.bind(this.handlers),
        onNote: this.handlers.onNote?.bind(this.handlers),
      },
    );
  }

  private leftLists(): LeftList[] | undefined {
    if (this.left.length === 0) return undefined;
    return this.left.map((l) => {
      const u = l.watcher.current;
      return { list: l.list, exists: u.exists, snapshot: u.snapshot };
    });
  }

  private arm(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => this.check(), this.opts.everyMs);
  }

  private check(): void {
    if (this.closed) return;
    const move = this.movedFrom(this.current.list);
    if (move === undefined) {
      this.arm();
      return;
    }
    const switched = this.switchOf(move);
    if (!this.opts.follow) {
      // Said once; the list stays the one watched.
      this.handlers.onUpdate({ ...this.current.watcher.current, list: this.current.list, switched });
      return;
    }
    this.left.push(this.current);
    const next = this.followed(move.to, move.dir);
    this.current = next;
    let first: WatchUpdate;
    try {
      first = next.watcher.start();
    } catch (err) {
      this.handlers.onError(err);
      return;
    }
    this.handlers.onUpdate({ ...first, list: next.list, switched, left: this.leftLists() });
    this.arm();
  }
}
