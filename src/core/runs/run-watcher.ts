/**
 * Runs: following an agent's run live from its stream-json output (`claude -p
 * --output-format stream-json`, the Agent SDK) or its session's transcript, while they
 * are written. Lines come in (line-feed.ts), each is applied once to the run's list
 * (run-model.ts, task-calls.ts, with the readers of snapshots/), and the events are the
 * run's own transitions, in order. Where the run's list folder exists its files are
 * followed too (watch/): what they show beyond the run's results (what others changed)
 * is added after a short grace, so that the run's own steps are never reported from a
 * sampled file instead. Reads only; nothing is ever written.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Clock } from '../base/clock.js';
import { isDirectory } from '../base/is-directory.js';
import { pushAll } from '../base/many-items.js';
import { OpenToolCalls } from '../base/open-tool-calls.js';
import { listDirOf } from '../store/paths.js';
import type { Task } from '../store/schema.js';
import { ListWatcher, type WatchUpdate } from '../watch/list-watcher.js';
import { type ChangeEvent, diffSnapshots } from '../watch/watch-diff.js';
import type { RunEnd, WatchSource, WatchSourceHandlers } from '../watch/watch-source.js';
import type { LineFeed, LineFeedHandlers } from './line-feed.js';
import { LineWarnings } from './line-warnings.js';
import { listHoldingTask } from './list-holding-task.js';
import { type DeathExit, deathState } from './run-death.js';
import { isSessionStart, RunModel } from './run-model.js';

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
  /** How long a difference between the files and the run's results may wait for the result that explains it (ms). */
  graceMs?: number | undefined;
  /**
   * For a followed file, which never ends: has every process seen writing it gone? Asked,
   * at most once a second, whenever the file has been read to its end; true ends the run
   * as an input that ended without its result (the agent was killed).
   */
  writerGone?: (() => boolean) | undefined;
  /**
   * The list the run's agent writes to, as its own settings and environment say (the
   * session's process): undefined when it cannot be told (the session is not live here).
   * Asked once the session is known, and again whenever a task the run created is not
   * in the list followed.
   */
  agentList?: ((sessionId: string) => string | undefined) | undefined;
  /**
   * The agent's process, when the run started it (`tasks run`): named with its death, and
   * how it ended (a signal, its status; undefined when it has not ended within a moment).
   */
  agent?: { pid(): number | undefined; exit(): Promise<DeathExit | undefined>; exited(): boolean } | undefined;
  /**
   * For a piped input: once the run's result is read and its session is over, the pids
   * of what still holds the input open when all of it was left behind by the run (a
   * process the agent started in the background), so that the run ends with its result
   * instead of waiting for an end that may never come; undefined while anyone else holds
   * it (a script that may start another session), or where it cannot be told.
   */
  inputLeftBehind?: (() => number[] | undefined) | undefined;
  /**
   * How the session's end reads in its files (its live-session file, its transcript), as
   * `list`, `get` and `release --gone` judge it, with its process's pid when a file names
   * it; `live` while it looks live; undefined when nothing names it. Asked once the
   * input has ended (and the agent's process, when the run started it): a run's death
   * takes the state every other command gives it.
   */
  sessionEnd?: ((sessionId: string) => { state: 'ended' | 'crashed' | 'live'; pid?: number | undefined } | undefined) | undefined;
}

const SESSION_CHECK_MS = 1000;
/** A followed stream's session that still looks live as its input ends: looked at once more after this. */
const LIVE_LOOK_AGAIN_MS = 300;
/** The agent writes a task file, then prints its result: a second covers a loaded machine. */
const DEFAULT_GRACE_MS = 1000;
/**
 * After a `result`, how long the input may stay open before the session's process is
 * looked for: `claude -p` exits at once, and its output ends with it.
 */
const AFTER_RESULT_LOOK_MS = 2000;
/**
 * A session's process that printed a result and still runs, in a script tasks run started
 * or whose output is piped to watch --stream: how long before it is taken to linger (the run then ends at that result). Until then the
 * script may go on to another session; a loaded machine took over 2 s to end such a one.
 */
const LINGER_IN_SCRIPT_MS = 10_000;
/** A run tasks started whose session is unknown here: how long its output may stay open after a result (its exit's own wait). */
const AFTER_RESULT_UNKNOWN_MS = 30_000;

/**
 * One run followed as a watch source. `start()` resolves once the run is known: its
 * first `system` event (or any other entry) has been read, or, for a file, all that is in
 * it so far. From then on every change is an update; the end of the run (its `result`
 * event, the end of the input, a transcript's session gone) is reported last, after the
 * list folder (when followed) has been read one final time.
 */
export class RunWatcher implements WatchSource {
  private readonly model = new RunModel();
  /** The agent's tool calls awaiting their results: while one is, the run is at work, silent or not. */
  private readonly toolCalls = new OpenToolCalls();
  private feed: LineFeed | undefined;
  private files: ListWatcher | undefined;
  private filesLatest: WatchUpdate | undefined;
  private reconcileTimer: NodeJS.Timeout | undefined;
  /** Events of the lines read since the last update, in order. */
  private pending: ChangeEvent[] = [];
  /** When each task last changed: when the run changed it, or its file's mtime once the files agree. */
  private readonly times = new Map<string, number>();
  private pendingActed = false;
  private started = false;
  /** The run is known (its first event read): the first state is given at the end of this chunk. */
  private known = false;
  private ended = false;
  private closed = false;
  private lastSessionCheck = 0;
  /** The list the agent was found to write to, over the one given or its session's. */
  private found: string | undefined;
  private warnedUnseen = false;
  /** Lines read, and whether any was JSON: an input with lines and no JSON is not stream-json at all. */
  private linesRead = 0;
  private sawJson = false;
  /** What was wrong with lines, said a few at a time and counted (line-warnings.ts). */
  private readonly lineWarnings: LineWarnings;
  private lastInputAt: number;
  /**
   * The run's last `result`, while its input is still open: the end of the input makes it
   * the run's end; another session starting (a script's next `claude -p`) sets it aside.
   */
  private afterResult: { end: RunEnd; timer: NodeJS.Timeout | undefined } | undefined;
  private resolveStart: ((u: WatchUpdate) => void) | undefined;
  private rejectStart: ((err: unknown) => void) | undefined;

  constructor(
    private readonly opts: RunWatcherOptions,
    private readonly handlers: WatchSourceHandlers,
  ) {
    this.activityOnly = opts.agent !== undefined;
    this.model.sessionId = opts.sessionId;
    this.lastInputAt = opts.clock.now();
    this.lineWarnings = new LineWarnings((message, code, facts) => this.handlers.onWarning?.(message, code, facts));
  }

  /** Its input is the output of the agent `tasks run` started (WatchSource.activityOnly). */
  readonly activityOnly: boolean;

  get listId(): string | undefined {
    return this.found ?? this.opts.listId ?? this.model.sessionId;
  }

  /** The run's session, once known. */
  get sessionId(): string | undefined {
    return this.model.sessionId;
  }

  /** The tasks in progress the run took up, as last seen (run-model.ts): what an ended agent leaves to give back. */
  held(): Task[] {
    return this.model.held();
  }

  /** The run's list folder, once its id is known (it may not exist). */
  get listDir(): string | undefined {
    const id = this.listId;
    return id === undefined ? undefined : listDirOf(this.opts.configDir, id);
  }

  /**
   * When the input last brought anything (a stall is a run silent for long), or now while
   * a tool call is in flight: a command that runs long (a test suite) is work, not silence.
   */
  activityAt(): number {
    return this.toolCalls.any ? this.opts.clock.now() : this.lastInputAt;
  }

  /** The feed, to drain what is left of a stream input once the watch has ended. */
  drain(signal?: AbortSignal): Promise<void> {
    return this.feed?.drain(signal) ?? Promise.resolve();
  }

  start(): Promise<WatchUpdate> {
    return new Promise<WatchUpdate>((resolve, reject) => {
      this.resolveStart = resolve;
      this.rejectStart = reject;
      try {
        this.feed = this.opts.openFeed({
          onLine: (text, line) => this.onLine(text, line),
          onChunk: () => this.onChunk(),
          onEnd: () => this.endRun(this.afterResult?.end ?? { how: 'input-ended' }),
          onError: (err) => this.fail(err),
          onWarning: (message) => this.handlers.onWarning?.(message),
          onNote: (message, code) => this.handlers.onNote?.(message, code),
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
    if (!this.closed) this.lineWarnings.finish();
    this.closed = true;
    this.feed?.close();
    this.files?.close();
    if (this.reconcileTimer) clearTimeout(this.reconcileTimer);
    this.setResultAside();
  }

  private onLine(text: string, line: number): void {
    if (this.closed || this.ended) return;
    if (text.trim() === '') return;
    this.linesRead++;
    let value: unknown;
    try {
      value = JSON.parse(text);
      this.sawJson = true;
    } catch (err) {
      this.lineWarnings.add('not-json', `line ${line} is not JSON (${(err as Error).message}): skipped`);
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.lineWarnings.add('not-object', `line ${line} is not a JSON object: skipped`);
      return;
    }
    if (this.afterResult !== undefined && isSessionStart(value as Record<string, unknown>)) {
      this.setResultAside();
      const id = String((value as Record<string, unknown>).session_id);
      this.handlers.onNote?.(
        `session ${id.slice(0, 8)} started after the run's result: the run goes on, judged at its end`,
        'run_went_on',
        { sessionId: id },
      );
    }
    this.toolCalls.apply(value as Record<string, unknown>);
    const effect = this.model.apply(value as Record<string, unknown>, line);
    if (effect.warning !== undefined) this.lineWarnings.add('task-call', `line ${line}: ${effect.warning}`);
    pushAll(this.pending, effect.events);
    this.stamp(effect.events, this.opts.clock.now());
    if (effect.acted) this.pendingActed = true;
    if (!this.started) {
      // A stream opens with its `system` event; a transcript's session is known already.
      // Where the run's list folder exists, the rest of the chunk that event came in
      // belongs to the first state too: it happened before the files (read at the first
      // state) were read. Without files, the lines after it are events.
      this.known ||= this.model.sessionId !== undefined || (value as Record<string, unknown>).type !== 'system';
      const dir = this.listDir;
      if (this.known && this.feed?.followsFile !== true && (dir === undefined || !isDirectory(dir))) this.begin();
    } else {
      if (this.files === undefined && effect.taskTool) this.followFiles(false);
      for (const e of effect.events) if (e.type === 'created' && effect.taskTool) this.checkSeen(e.task.id, e.task.subject);
      if (effect.unknownTask !== undefined) this.checkSeen(effect.unknownTask, undefined);
    }
    if (effect.end) this.resultRead(effect.end);
  }

  /**
   * A `result`: the run's end, unless its command goes on. Where nothing can tell (no
   * session files; a followed file, which never ends), at once, as the stream says. Else
   * its input ends with the agent's process (`claude -p` exits after its result); a
   * script that runs another session after it (`claude -p`, then `claude -p --resume`)
   * keeps the input open, and the run is judged at the end of the last one, never at the
   * first. The session's process that printed the result still running a moment later is
   * an agent lingering after its result: the run ended then. Another process of the same
   * session (a resume, whose first line may take seconds) is not; nor is a session over.
   * A session unknown here: for a run tasks started, its agent gets up to
   * AFTER_RESULT_UNKNOWN_MS to end its output; else the result ends it.
   */
  private resultRead(end: RunEnd): void {
    if (this.opts.sessionEnd === undefined || this.feed?.followsFile === true) {
      this.endRun(end);
      return;
    }
    this.setResultAside();
    const session = this.model.latestSessionId ?? this.model.sessionId;
    const atResult = session === undefined ? undefined : this.opts.sessionEnd(session);
    const printedBy = atResult?.state === 'live' ? atResult.pid : undefined;
    let waited = AFTER_RESULT_LOOK_MS;
    const look = (): void => {
      const pending = this.afterResult;
      if (pending === undefined || this.ended || this.closed) return;
      pending.timer = undefined;
      const again = (): void => {
        pending.timer = setTimeout(look, AFTER_RESULT_LOOK_MS);
        pending.timer.unref?.();
        waited += AFTER_RESULT_LOOK_MS;
      };
      // The agent tasks run started has exited: whatever still holds its output was left
      // behind (tasks run ends it); the run is over.
      if (this.opts.agent?.exited() === true) {
        this.endRun(pending.end);
        return;
      }
      const looked = session === undefined ? undefined : this.opts.sessionEnd?.(session);
      if (looked === undefined) {
        if (this.opts.agent === undefined || waited >= AFTER_RESULT_UNKNOWN_MS) this.endRun(pending.end);
        else again();
        return;
      }
      if (looked.state === 'live' && looked.pid !== undefined && looked.pid === printedBy) {
        // The agent tasks run started printed it itself: nothing can follow, it lingers. One
        // a script started (or one whose output is piped in) may be slow to exit (a loaded
        // machine, a SessionEnd hook), and the script's next session follow it: given
        // LINGER_IN_SCRIPT_MS.
        if (this.opts.agent?.pid() === printedBy || waited >= LINGER_IN_SCRIPT_MS) {
          this.endRun(pending.end);
        } else again();
        return;
      }
      // The session is over and its input still open: held only by what the run left behind.
      const leftovers = looked.state === 'live' ? undefined : this.opts.inputLeftBehind?.();
      if (leftovers !== undefined) {
        this.handlers.onNote?.(
          `the run's session is over and its input is still held open only by ${leftovers.map((p) => `pid ${p}`).join(', ')}, left behind: the run ended with its result`,
          'input_left_open',
          { pids: leftovers },
        );
        this.endRun(pending.end);
        return;
      }
      // Still waiting for the next session or the output's end: a run tasks started, or a
      // piped input whose holders can be told, is looked at again.
      if (this.opts.agent !== undefined || this.opts.inputLeftBehind !== undefined) again();
    };
    const timer = setTimeout(look, AFTER_RESULT_LOOK_MS);
    timer.unref?.();
    this.afterResult = { end, timer };
  }

  private setResultAside(): void {
    if (this.afterResult?.timer !== undefined) clearTimeout(this.afterResult.timer);
    this.afterResult = undefined;
  }

  /** One chunk read: the input is alive; what its lines changed is one update. */
  private onChunk(): void {
    this.lastInputAt = this.opts.clock.now();
    if (this.closed) return;
    if (!this.started && this.known && this.feed?.followsFile !== true) this.begin();
    else if (this.started) this.publish();
  }

  private onCaughtUp(): void {
    if (this.closed || this.ended) return;
    if (!this.started) this.begin();
    const over = this.opts.sessionOver;
    const writerGone = this.opts.writerGone;
    if (over === undefined && writerGone === undefined) return;
    const now = this.opts.clock.now();
    if (now - this.lastSessionCheck < SESSION_CHECK_MS) return;
    this.lastSessionCheck = now;
    if (over?.()) this.endRun({ how: 'session-ended' });
    else if (writerGone?.()) this.endRun(this.afterResult?.end ?? { how: 'input-ended' });
  }

  /**
   * The agent writes a task's file before its result comes back: a task the run created
   * that is not in the list folder followed means its Task tools write to another list.
   * Said at once; the list is looked for (the agent's settings and environment, then a
   * folder holding that task) and, once found, named and followed.
   */
  private checkSeen(id: string, subject: string | undefined): void {
    const dir = this.listDir;
    if (dir === undefined || fs.existsSync(path.join(dir, `${id}.json`))) return;
    const found = this.lookForList(id, subject);
    if (found !== undefined && found !== this.listId) {
      this.switchTo(found, `the run's Task tools write to list "${found}", not "${this.listId ?? ''}": following "${found}"`);
      return;
    }
    if (this.warnedUnseen) return;
    this.warnedUnseen = true;
    this.handlers.onWarning?.(
      `the run's Task tools write to a list this watch cannot see: task #${id} is not in ${dir}; its events come from the stream alone until the list is found`,
      'list_not_visible',
      { list: this.listId ?? null, taskId: id },
    );
  }

  private lookForList(id: string, subject: string | undefined): string | undefined {
    const session = this.model.sessionId;
    const byAgent = session === undefined ? undefined : this.opts.agentList?.(session);
    if (byAgent !== undefined && fs.existsSync(path.join(listDirOf(this.opts.configDir, byAgent), `${id}.json`))) return byAgent;
    return listHoldingTask(this.opts.configDir, id, subject, this.opts.clock.now());
  }

  /** Follow another list from now on: what it holds beyond what was shown is told as changes. */
  private switchTo(list: string, why: string): void {
    this.found = list;
    this.files?.close();
    this.files = undefined;
    this.filesLatest = undefined;
    this.handlers.onNote?.(why, 'list_found', { list });
    const before = new Map(this.model.shown());
    this.followFiles(true);
    pushAll(this.pending, diffSnapshots(before, this.model.shown()));
  }

  private begin(): void {
    if (this.started) return;
    this.started = true;
    // The agent's own settings or environment may name another list than its session's.
    const session = this.model.sessionId;
    const byAgent = session === undefined ? undefined : this.opts.agentList?.(session);
    if (byAgent !== undefined && byAgent !== this.listId) {
      const given = this.opts.listId;
      this.found = byAgent;
      this.handlers.onNote?.(
        given === undefined
          ? `the run's agent writes to list "${byAgent}" (its CLAUDE_CODE_TASK_LIST_ID or its project's binding), not its session's: following "${byAgent}"`
          : `the run's agent writes to list "${byAgent}", not "${given}": following "${byAgent}"`,
        'list_found',
        { list: byAgent },
      );
    }
    // What was read before the first state is part of it, not events. But what the run's own
    // stream said it did there is still the run's doing (a fast agent's first chunk can hold its
    // init and its first writes); a transcript followed may open with earlier runs' entries.
    const actedBefore = this.pendingActed && this.feed?.followsFile !== true;
    this.pending = [];
    this.pendingActed = false;
    try {
      this.followFiles(true);
    } catch (err) {
      this.close();
      this.rejectStart?.(err);
      return;
    }
    this.pending = [];
    this.resolveStart?.(this.update([], actedBefore));
  }

  /**
   * Where the run's list folder exists, its files are followed too: they are the list
   * the run's results apply to, and show what others change. At the start they are the
   * first state; found later (the run's first create made the folder), what they hold
   * beyond what the stream said is told as any difference is, after the grace.
   */
  private followFiles(initial: boolean): void {
    const dir = this.listDir;
    if (this.files !== undefined || dir === undefined || !isDirectory(dir)) return;
    const files = new ListWatcher(
      { dir, clock: this.opts.clock },
      {
        onUpdate: (u) => this.onFiles(u),
        onError: (err) => this.fail(err),
        onWarning: (m) => this.handlers.onWarning?.(m),
      },
    );
    const first = files.start();
    this.files = files;
    if (initial) {
      this.filesLatest = first;
      this.model.adoptFiles(first.snapshot);
      this.takeFileTimes(first);
    } else this.onFiles(first);
  }

  /**
   * A rescan of the files. Where they agree with the run's results, nothing is said;
   * where they differ, the run's own result may still be on its way (the agent writes the
   * file first): the difference is told after the grace, if it is still there.
   */
  private onFiles(update: WatchUpdate): void {
    this.filesLatest = update;
    if (this.closed) return;
    const differs = this.model.reconcileWouldChange(update.snapshot);
    if (!differs) {
      this.model.reconcile(update.snapshot);
      this.takeFileTimes(update);
      if (update.problems.length > 0 || update.events.length === 0) this.handlers.onUpdate(this.update([], false));
      return;
    }
    if (this.reconcileTimer === undefined) {
      this.reconcileTimer = setTimeout(() => {
        this.reconcileTimer = undefined;
        this.reconcileNow();
      }, this.opts.graceMs ?? DEFAULT_GRACE_MS);
    }
  }

  private reconcileNow(): void {
    if (this.closed || this.filesLatest === undefined) return;
    if (this.reconcileTimer) clearTimeout(this.reconcileTimer);
    this.reconcileTimer = undefined;
    pushAll(this.pending, this.model.reconcile(this.filesLatest.snapshot));
    this.takeFileTimes(this.filesLatest);
    this.publish(true);
  }

  private publish(always = false): void {
    if (this.pending.length === 0 && !always) return;
    const events = this.pending;
    const acted = this.pendingActed;
    this.pending = [];
    this.pendingActed = false;
    if (events.length > 0 || always) this.handlers.onUpdate(this.update(events, acted));
  }

  private update(events: ChangeEvent[], runActed: boolean): WatchUpdate {
    const files = this.filesLatest;
    return {
      at: this.opts.clock.now(),
      list: this.listId,
      events,
      runActed,
      // Not followed in files (yet): the run's own view, but for a list named (--list, the
      // variable) whose folder is not there and in which the run has made nothing, and for
      // no list at all (none named, none seen yet: `list` is null, and no list exists).
      exists: files ? files.exists : this.model.shown().size > 0 || this.runListThere(),
      // A copy: the list goes on changing, and the first state is taken in a turn later.
      snapshot: new Map(this.model.shown()),
      times: new Map(this.times),
      problems: files ? files.problems : [],
    };
  }

  /** Is there a list the run writes to? Its session's own, once known; a list named, when its folder is there. */
  private runListThere(): boolean {
    if (this.listId === undefined) return false;
    return this.opts.listId === undefined || fs.existsSync(listDirOf(this.opts.configDir, this.opts.listId));
  }

  /** The run's own steps: each task changed now. */
  private stamp(events: readonly ChangeEvent[], at: number): void {
    for (const e of events) {
      if (e.type === 'list-cleared') this.times.clear();
      else if (e.type === 'deleted') this.times.delete(e.task.id);
      else this.times.set(e.task.id, at);
    }
  }

  /** Where the files agree, their mtimes are the change times. */
  private takeFileTimes(files: WatchUpdate): void {
    for (const [id, at] of files.times ?? []) this.times.set(id, at);
  }

  private endRun(end: RunEnd): void {
    if (this.ended || this.closed) return;
    this.ended = true;
    this.setResultAside();
    // The lines were warned about (a few, then counted); what the input should have been is said once (plain `claude -p` text, say).
    this.lineWarnings.finish();
    if (end.how === 'input-ended' && this.linesRead > 0 && !this.sawJson)
      this.handlers.onWarning?.(
        'no line of the input was JSON: the watch reads stream-json (claude -p --output-format stream-json --verbose)',
      );
    if (!this.started) this.begin();
    this.feed?.close();
    // The last writes may still wait for the watcher's debounce: read the folder now, and
    // take what the files say as they are: the run has nothing more to tell.
    if (this.files) {
      this.files.rescan();
      this.reconcileNow();
      // Not followed in files: one last update, so that the end says whether the list is there now.
    } else this.publish(true);
    // After the first state has been handed over and taken in.
    setImmediate(() => {
      const died = this.deathOf(end);
      if (died === undefined) {
        if (!this.closed) this.handlers.onRunEnd?.(end);
        return;
      }
      // How its process ended says how it died: waited for (the caller bounds the wait).
      void (this.opts.agent?.exit() ?? Promise.resolve(undefined)).then(async (exit) => {
        if (this.closed) return;
        // The files say how the session ended where they can (Claude Code on SIGTERM writes
        // its end and exits 143: ended, as list says). A session whose file names another
        // process than the one started (a wrapper script ran the agent) is told by its own
        // pid, without the wrapper's exit, which is not the agent's.
        let looked = this.opts.sessionEnd?.(died.sessionId);
        if (looked?.state === 'live' && this.opts.agent === undefined) {
          // A followed stream (no process of ours) whose session still runs: its input ended,
          // its agent did not (a reader in between went away), or the writer that closed the
          // pipe is still on its way out: looked at again a moment later. Still live: no
          // death, and nothing of its work to give back; the run did not finish here.
          await new Promise((resolve) => setTimeout(resolve, LIVE_LOOK_AGAIN_MS));
          if (this.closed) return;
          looked = this.opts.sessionEnd?.(died.sessionId);
          if (looked?.state === 'live') {
            this.handlers.onRunEnd?.(end);
            return;
          }
        }
        // Our agent's process has ended: files that still say live have not caught up.
        const seen = looked?.state === 'ended' || looked?.state === 'crashed' ? { state: looked.state, pid: looked.pid } : undefined;
        const wrapped = seen?.pid !== undefined && died.pid !== undefined && seen.pid !== died.pid;
        const state = seen?.state ?? deathState(exit);
        this.handlers.onRunEnd?.({
          ...end,
          died: [{ ...died, state, pid: wrapped ? seen?.pid : died.pid, exit: wrapped ? undefined : exit }],
        });
      });
    });
  }

  /**
   * A run whose input ended before its result did not finish: its session died (killed,
   * or crashed), and the tasks in progress it held will not move on. Judged on the list
   * as it stands at the end (the files read one last time).
   */
  private deathOf(end: RunEnd): { sessionId: string; pid: number | undefined; tasks: Task[] } | undefined {
    const sessionId = this.model.latestSessionId ?? this.model.sessionId;
    if (end.how !== 'input-ended' || sessionId === undefined) return undefined;
    const tasks = this.model.held();
    if (tasks.length === 0) return undefined;
    return { sessionId, pid: this.opts.agent?.pid(), tasks };
  }

  private fail(err: unknown): void {
    if (this.closed) return;
    this.close();
    if (!this.started) this.rejectStart?.(err);
    else this.handlers.onError(err);
  }
}
