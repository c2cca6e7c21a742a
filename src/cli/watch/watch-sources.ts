import fs from 'node:fs';
import path from 'node:path';
import type { Clock } from '../../core/base/clock.js';
import { TasksError } from '../../core/base/errors.js';
import { goneOwnersOfList } from '../../core/history/list-owners.js';
import { chooseList, requireTasksRootFolder } from '../../core/lists/list-choice.js';
import { busyAtWork } from '../../core/progress/busy-and-writing.js';
import { listAtWork, listWaitedOn, waitedOn, waitingInList } from '../../core/progress/stalled-work.js';
import type { AgentOutput } from '../../core/runs/agent-output.js';
import { FollowedFileFeed, type LineFeed, type LineFeedHandlers, openLineFeed, stdinLineFeed } from '../../core/runs/line-feed.js';
import { RunWatcher, type RunWatcherOptions } from '../../core/runs/run-watcher.js';
import {
  descriptorLink,
  heldOnlyByLeftovers,
  processesHolding,
  processesWithLink,
  stillRunning,
  type WriterProcess,
} from '../../core/runs/stream-writers.js';
import { busyOnList, leftOutAsOwn } from '../../core/sessions/busy-on-list.js';
import { listAfterClear } from '../../core/sessions/cleared-lists.js';
import { sessionsOfList, useTranscriptCache } from '../../core/sessions/list-sessions.js';
import { listOfLiveSession } from '../../core/sessions/live-lists.js';
import { procProbe, sessionActivity } from '../../core/sessions/live-sessions.js';
import { ProcessMemory } from '../../core/sessions/process-memory.js';
import { SessionDeaths } from '../../core/sessions/session-deaths.js';
import { isSessionId, SessionIndex } from '../../core/sessions/session-index.js';
import { signsOfLife } from '../../core/sessions/signs-of-life.js';
import { taskToolsUsed } from '../../core/sessions/task-tools-used.js';
import { memoryCache } from '../../core/sessions/transcript-cache.js';
import { readList } from '../../core/store/list-read.js';
import { listDirOf, sanitizeListId } from '../../core/store/paths.js';
import type { Task } from '../../core/store/schema.js';
import { taskFileTimes } from '../../core/store/task-times.js';
import { ListFollow, type ListMove } from '../../core/watch/list-follow.js';
import type { StallWatch, WatchSessionOptions, WatchSink } from '../../core/watch/watch-session.js';
import type { WatchSource, WatchSourceHandlers } from '../../core/watch/watch-source.js';
import { describeDeath, renderFollowingTranscript } from '../../render/watch-outcome.js';
import type { Context } from '../runtime/context.js';
import { ownSessionTest } from '../runtime/own-session.js';
import { handOffInput } from './input-handoff.js';

/**
 * What `tasks watch` follows, chosen from its flags: a list folder (the usual), a run's
 * stream-json output (`--stream <file|->`), or, for `--session <id>` when that session's
 * todos exist only in its transcript, the transcript.
 */
export interface WatchTarget {
  /** The list id shown until the source names its own; undefined: not known until the run says. */
  listId: string | undefined;
  /** The folder of that list (shown while it does not exist). */
  dir: string;
  /** What a hint's commands add to name the list watched now; undefined: name it by its id. */
  listArgs?: (() => string[]) | undefined;
  /** The session whose busy state says whether its work stalls, when known. */
  sessionId(): string | undefined;
  /** For a run: the tasks in progress it took up, as last seen. */
  runHeld?: (() => Task[]) | undefined;
  /** The list folder whose file times say when tasks last changed, when known. */
  listDir(): string | undefined;
  /** Set for a run: what is read, for people. */
  following?: string | undefined;
  /** Set when a TodoWrite session's transcript is followed: that session. */
  transcriptOf?: string | undefined;
  source(handlers: WatchSourceHandlers): WatchSource;
  /**
   * A run's input that must be read to its end once the watch has ended (stdin, a FIFO),
   * so that its writer never meets a closed pipe. Resolves at its end or when `signal` aborts.
   */
  drain?: ((signal: AbortSignal) => Promise<void>) | undefined;
  /**
   * A piped stdin left open after the run's result: handed to a reader of its own
   * (input-handoff.ts), its pid and the pids still holding the input; undefined when it
   * could not be (the watch drains it itself).
   */
  handOff?: (() => { pid: number; holders: number[] } | undefined) | undefined;
}

/**
 * A list folder. When it is a session's own list and that session is cleared (`/clear`),
 * the list its process uses now is followed (unless `follow` is false: `--no-follow`),
 * and the target names that list from then on. `gate`: the gate's own words (`--until
 * all-completed`), when the watch passes or fails a job: then a list taken for being the
 * latest changed of several, or the only one, and no session's of this directory, is
 * refused: it could pass on another project's finished work.
 */
export function listTarget(ctx: Context, clock: Clock, follow: boolean, gate?: string): WatchTarget {
  const choice = ctx.list(false, { mayBeMissing: true, gate });
  const { id, dir } = choice;
  const configDir = ctx.configDir;
  const memory = new ProcessMemory();
  const moved = (listId: string): ListMove | undefined => {
    if (!isSessionId(listId)) return undefined;
    // A fresh index: live-session files change while we watch.
    // One memory of the processes seen on each session for the whole watch, so that a
    // /clear is seen as it happens.
    const found = listAfterClear(
      new SessionIndex(configDir, { settings: ctx.settingsPlaces, namedFolder: ctx.namedProjectFolder, memory }),
      listId,
    );
    return (
      found && {
        sessionId: found.sessionId,
        newSessionId: found.newSessionId,
        sure: found.sure,
        to: found.newList,
        dir: listDirOf(configDir, found.newList),
      }
    );
  };
  const target: WatchTarget = {
    listId: id,
    dir,
    // The list chosen by the variable or the binding is found again by a pasted command; one followed to after /clear is not.
    listArgs: () => (target.listId === id || target.listId === undefined ? ctx.listArgs(choice) : ['-l', ctx.shortId(target.listId)]),
    sessionId: () => undefined,
    listDir: () => target.dir,
    source: (handlers) =>
      new ListFollow(
        { listId: id, dir, clock, follow, everyMs: FOLLOW_CHECK_MS, moved },
        {
          ...handlers,
          onUpdate: (u) => {
            if (u.switched?.followed) {
              target.listId = u.switched.to;
              target.dir = listDirOf(configDir, u.switched.to);
            }
            handlers.onUpdate(u);
          },
        },
      ),
  };
  return target;
}

/** How often a watched session's list is checked for a `/clear` (a fresh look at the live sessions). */
const FOLLOW_CHECK_MS = 1500;

/** `--stream <file|->`: a run's stream-json output, on stdin or in a file. */
export function streamTarget(ctx: Context, file: string, clock: Clock): WatchTarget {
  if (file === '') throw new TasksError('usage', '--stream needs a file, or - for stdin');
  // The config folder may not exist yet (a first run makes it); a file where its lists go is damage.
  requireTasksRootFolder(ctx.configDir);
  const fromStdin = file === '-';
  if (fromStdin && ctx.io.stdin.isTTY) {
    throw new TasksError(
      'usage',
      '--stream -: stdin is a terminal; pipe a run into it (claude -p ... --output-format stream-json --verbose | tasks watch --stream -)',
    );
  }
  const pipe = fromStdin ? stdinPipe(ctx) : undefined;
  const target = runTarget(ctx, clock, {
    following: fromStdin ? 'the stream on stdin' : file,
    openFeed: (h) => (fromStdin ? stdinLineFeed(ctx.io.stdin.stream(), ctx.io.stdin.fd, h) : openLineFeed(file, h, ctx.cwd)),
    // A pipe ends when its writer does; a file is watched through its writers.
    writerGone: fromStdin ? undefined : (sessionId) => writerWatch(ctx, file, sessionId),
    inputLeftBehind:
      pipe === undefined ? undefined : () => heldOnlyByLeftovers(pipe.link, (pid) => procProbe.claudeProcess?.(pid) !== undefined),
  });
  if (pipe === undefined) return target;
  return {
    ...target,
    handOff: () => {
      // Who holds it, before the new reader does too.
      const holders = processesWithLink(pipe.link).map((p) => p.pid);
      const pid = handOffInput(pipe.fd);
      return pid === undefined ? undefined : { pid, holders };
    },
  };
}

/** This process's stdin, when it is a pipe /proc names (`pipe:[<inode>]`): whoever else holds it can be found. */
function stdinPipe(ctx: Context): { fd: number; link: string } | undefined {
  const fd = ctx.io.stdin.fd;
  if (fd === undefined) return undefined;
  const link = descriptorLink(process.pid, fd);
  return link?.startsWith('pipe:[') === true ? { fd, link } : undefined;
}

/** The agent `tasks run` started: its pid, and how its process ended. */
type AgentOfRun = NonNullable<RunWatcherOptions['agent']>;

/**
 * `tasks run`: the output of the agent it started, followed as a stream is. Nothing is
 * drained here: the run reads the agent's output to its end itself.
 */
export function agentTarget(ctx: Context, output: AgentOutput, clock: Clock, agent: AgentOfRun): WatchTarget {
  const { drain: _, ...target } = runTarget(ctx, clock, { following: "the agent's output", openFeed: (h) => output.attach(h), agent });
  return target;
}

/**
 * A followed run, whatever its input. Its list is $CLAUDE_CODE_TASK_LIST_ID or --list when
 * given (the agent uses it too), else its session's, named by the stream's first event.
 */
function runTarget(
  ctx: Context,
  clock: Clock,
  input: {
    following: string;
    openFeed(handlers: LineFeedHandlers): LineFeed;
    /** Given the run's session as it becomes known, is the input's writer gone? */
    writerGone?: ((sessionId: () => string | undefined) => () => boolean) | undefined;
    /** The agent's process, when tasks run started it. */
    agent?: AgentOfRun | undefined;
    inputLeftBehind?: RunWatcherOptions['inputLeftBehind'];
  },
): WatchTarget {
  const listId = runListId(ctx);
  const configDir = ctx.configDir;
  let watcher: RunWatcher | undefined;
  return {
    listId,
    dir: listId === undefined ? path.join(configDir, 'tasks') : listDirOf(configDir, listId),
    sessionId: () => watcher?.sessionId,
    runHeld: () => watcher?.held() ?? [],
    listDir: () => watcher?.listDir,
    following: input.following,
    drain: (signal) => watcher?.drain(signal) ?? Promise.resolve(),
    source: (handlers) =>
      (watcher = new RunWatcher(
        {
          configDir,
          listId,
          clock,
          openFeed: input.openFeed,
          agentList: (sessionId) => agentListOf(ctx, sessionId),
          sessionEnd: (sessionId) => sessionEndOf(ctx, sessionId),
          writerGone: input.writerGone?.(() => watcher?.sessionId),
          agent: input.agent,
          inputLeftBehind: input.inputLeftBehind,
        },
        handlers,
      )),
  };
}

/**
 * The list a followed run writes to, when named: `--list` as every command takes it (a
 * session UUID list also by a unique prefix: the agent `tasks run` starts gets its whole
 * id, never a new list named by the short one; an ambiguous prefix is refused), else
 * $CLAUDE_CODE_TASK_LIST_ID as Claude Code reads it (trimmed; empty is unset).
 */
export function runListId(ctx: Context): string | undefined {
  const flag = ctx.globals().list;
  if (flag !== undefined && fs.existsSync(ctx.configDir)) {
    return chooseList(ctx.configDir, { flag, forWrite: false, cwd: ctx.cwd, home: ctx.home, index: freshIndex(ctx) }).id;
  }
  const named = (flag ?? ctx.env.CLAUDE_CODE_TASK_LIST_ID)?.trim() || undefined;
  return named === undefined ? undefined : sanitizeListId(named);
}

/**
 * The list a run's agent writes to, when its session runs here: its project's binding or
 * the CLAUDE_CODE_TASK_LIST_ID it was started with (sessions/live-lists.ts), or its
 * team's; undefined when that is its own session's list, or nothing can be told.
 */
function agentListOf(ctx: Context, sessionId: string): string | undefined {
  const index = freshIndex(ctx);
  const session = index.session(sessionId);
  if (session === undefined || session.state !== 'live') return undefined;
  const list = listOfLiveSession(index, session);
  return list === sessionId ? undefined : list;
}

/**
 * A session index that looks afresh (no persistent cache, nothing of an earlier look): a
 * watch asks again and again while sessions start, change and end.
 */
function freshIndex(ctx: Context): SessionIndex {
  return new SessionIndex(ctx.configDir, { settings: ctx.settingsPlaces, namedFolder: ctx.namedProjectFolder });
}

/** The session's end as its files tell it (list's answer), with the pid its live-session file names; `live` while it looks live; undefined when unknown here. */
function sessionEndOf(ctx: Context, sessionId: string): { state: 'ended' | 'crashed' | 'live'; pid?: number | undefined } | undefined {
  const session = freshIndex(ctx).session(sessionId);
  if (session === undefined || session.state === 'unknown') return undefined;
  return { state: session.state, pid: session.pid };
}

/**
 * For a followed stream file: the processes holding it open (its writer: `claude -p >
 * run.jsonl`, or `tee`), else the run's session's process; gone once every one seen is.
 * Nothing seen: nothing known, the file is followed on.
 */
function writerWatch(ctx: Context, file: string, session: () => string | undefined): () => boolean {
  const where = ctx.cwd === undefined ? file : path.resolve(ctx.cwd, file);
  let writers: WriterProcess[] = [];
  let sessionSeen = false;
  return () => {
    if (writers.length === 0) writers = processesHolding(where);
    if (writers.some((w) => stillRunning(w))) return false;
    const again = processesHolding(where);
    if (again.length > 0) {
      writers = again;
      return false;
    }
    const id = session();
    const alive = id !== undefined && sessionActivity(ctx.configDir, id) !== undefined;
    if (alive) sessionSeen = true;
    return !alive && (writers.length > 0 || sessionSeen);
  };
}

/**
 * `watch --session <id>`: the session's list when it has one on disk (as --session
 * means for every command), or when it has the Task tools (its list is waited for);
 * else, for a TodoWrite session, its transcript, followed until the session stops running. Undefined: let the usual list choice decide (and
 * report an unknown or ambiguous session).
 */
export function transcriptTarget(ctx: Context, raw: string, clock: Clock): WatchTarget | undefined {
  const index = ctx.sessions;
  const matches = index.sessionsByPrefix(raw.toLowerCase());
  const sessionId = matches[0];
  if (matches.length !== 1 || sessionId === undefined) return undefined;
  if (index.listsOfSession(sessionId).length > 0) return undefined;
  const transcript = index.transcripts().get(sessionId);
  if (transcript === undefined) return undefined;
  const configDir = ctx.configDir;
  // A Task-tools session writes a list, made at its first TaskCreate: that list is
  // watched (and waited for), never its transcript, whose todos it has none of. Where
  // nothing says yet which tools it has, a live session is given the same: waiting for
  // a list is safe, judging an empty transcript is not.
  const tools = taskToolsUsed(transcript);
  if (tools === 'tasks' || (tools === undefined && sessionActivity(configDir, sessionId) !== undefined)) return undefined;
  ctx.io.note(renderFollowingTranscript(sessionId, transcript), 'following_transcript', { sessionId, transcript });
  return {
    listId: sessionId,
    dir: listDirOf(configDir, sessionId),
    sessionId: () => sessionId,
    listDir: () => listDirOf(configDir, sessionId),
    following: `transcript ${path.basename(transcript)}`,
    transcriptOf: sessionId,
    source: (handlers) =>
      new RunWatcher(
        {
          configDir,
          sessionId,
          clock,
          openFeed: (h) => new FollowedFileFeed(transcript, h),
          sessionOver: () => sessionActivity(configDir, sessionId) === undefined,
        },
        handlers,
      ),
  };
}

/** --fail-if-stalled for a target: file times where the files exist; the session's activity where known. */
export function stallWatch(ctx: Context, target: WatchTarget, afterMs: number): StallWatch {
  const configDir = ctx.configDir;
  // What transcripts say of their tasks, kept across the checks: only a grown one is read again.
  const transcripts = memoryCache();
  const fresh = () => {
    const index = freshIndex(ctx);
    useTranscriptCache(index, transcripts);
    return index;
  };
  return {
    afterMs,
    initialTimes: (tasks: readonly Task[]) => {
      const dir = target.listDir();
      return dir === undefined
        ? new Map()
        : taskFileTimes(
            dir,
            tasks.map((t) => t.id),
          );
    },
    // Busy counts only while the session's transcript grows or a tool call is in flight: a headless run is busy all its life.
    sessionBusy: () => {
      const session = target.sessionId();
      const now = Date.now();
      if (session !== undefined) {
        const index = freshIndex(ctx);
        return sessionActivity(configDir, session) === 'busy' && busyAtWork(index.transcripts().get(session), afterMs, now);
      }
      const listId = target.listId;
      if (target.following !== undefined || listId === undefined) return undefined;
      // A fresh index: live-session files change while we watch. The rule is list's and notify's (stalled-work.ts).
      return listAtWork(fresh(), listId, afterMs, now);
    },
    // A session at a permission prompt: the work it holds waits for a person, it has not stalled (stalled-work.ts).
    waitingOf: (tasks: readonly Task[]) => {
      const session = target.sessionId();
      if (session !== undefined) return new Set(sessionActivity(configDir, session) === 'waiting' ? tasks.map((t) => t.id) : []);
      const listId = target.listId;
      const dir = target.listDir();
      if (target.following !== undefined || listId === undefined || dir === undefined) return new Set();
      return new Set(waitingInList(fresh(), listId, dir, tasks, Date.now()).keys());
    },
  };
}

/**
 * Which session the watched work waits on, when one waits for a person (a permission
 * prompt): the followed session's own, else the list's (progress/stalled-work.ts). Looked
 * at every second: nothing in the list's files changes while it waits.
 */
export function personWatch(ctx: Context, target: WatchTarget): WatchSessionOptions['personWait'] {
  const configDir = ctx.configDir;
  // What transcripts say, kept across the looks: only a grown one is read again.
  const transcripts = memoryCache();
  // A fresh index each look: live-session files change while we watch.
  const fresh = () => {
    const index = freshIndex(ctx);
    useTranscriptCache(index, transcripts);
    return index;
  };
  return {
    everyMs: 1000,
    look: () => {
      const session = target.sessionId();
      if (session !== undefined) {
        if (sessionActivity(configDir, session) !== 'waiting') return undefined;
        const found = fresh().session(session);
        return found === undefined ? undefined : waitedOn([found]);
      }
      const listId = target.listId;
      if (target.following !== undefined || listId === undefined) return undefined;
      return listWaitedOn(fresh(), listId, listDirOf(configDir, listId));
    },
  };
}

/**
 * A list watched for a condition ends when every known session of the list is over (no
 * sign of life left, sessions/signs-of-life.ts): nothing will change it any more. A
 * session must have been seen alive during this watch first, unless it was named
 * (--session): a list whose old sessions ended may yet get a new agent. Twice in a row,
 * so that a moment between two turns is not taken for the end.
 */
export function sessionsOverWatch(ctx: Context, target: WatchTarget, named: boolean): WatchSessionOptions['sessionsOver'] {
  if (target.listId === undefined) return undefined;
  let listId = target.listId;
  let seenAlive = named;
  let overBefore = false;
  // The sessions seen on the list during the watch: the list's own and those whose process
  // writes to it now (no transcript is read in full for it: that is for lists and log).
  const known = new Set<string>();
  const fresh = () => freshIndex(ctx);
  return {
    everyMs: 2000,
    check: () => {
      // Followed to another list (`/clear`): its sessions are the ones that count now.
      if (target.listId !== undefined && target.listId !== listId) {
        listId = target.listId;
        known.clear();
        overBefore = false;
      }
      const index = fresh();
      for (const s of sessionsOfList(index, listId)) known.add(s.sessionId);
      const sessions = [...known].flatMap((id) => index.session(id) ?? []);
      if (sessions.length === 0) return false;
      // Cleared (`/clear`), not over: its process goes on as another session, which the
      // watch follows (or, with --no-follow, ends on as session-cleared).
      if (sessions.some((s) => s.replacedBy !== undefined)) return false;
      if (signsOfLife(index, listId, sessions) !== undefined) {
        seenAlive = true;
        overBefore = false;
        return false;
      }
      if (!seenAlive) return false;
      if (!overBefore) {
        overBefore = true;
        return false;
      }
      return true;
    },
    goneOwners: () => {
      const dir = target.listDir();
      if (dir === undefined) return [];
      const gone = goneOwnersOfList(fresh(), dir, listId, ctx.person, { deep: true });
      if (gone === undefined) return [];
      let tasks: Task[] = [];
      try {
        tasks = readList(dir).tasks;
      } catch {
        return [];
      }
      return [...new Set(tasks.filter((t) => t.status !== 'completed' && t.owner && gone.isGone(t.owner)).map((t) => t.owner as string))];
    },
  };
}

/**
 * A list (or a TodoWrite session's transcript) watched for a condition: the sessions at
 * work on it now (sessions/busy-on-list.ts), which a condition met waits for. Undefined
 * for a followed run: its own end is what its gate waits for.
 */
export function busyWatch(ctx: Context, target: WatchTarget): WatchSessionOptions['busy'] {
  if (target.following !== undefined && target.transcriptOf === undefined) return undefined;
  const configDir = ctx.configDir;
  const transcriptSession = target.transcriptOf;
  if (transcriptSession !== undefined) {
    return {
      everyMs: 1000,
      look: () => {
        // At a permission prompt it is still in its turn: the turn goes on once answered.
        const activity = sessionActivity(configDir, transcriptSession);
        return activity === 'busy' || activity === 'waiting' ? [{ sessionId: transcriptSession, state: activity }] : [];
      },
    };
  }
  // The session this watch runs in is busy for as long as it waits in its turn: it never holds its own gate then (leftOutAsOwn).
  const mine = ownSessionTest(ctx.env);
  // Wall-clock time, as the live-session file's status time is.
  const startedAt = Date.now();
  return {
    everyMs: 1000,
    look: () => {
      const listId = target.listId;
      if (listId === undefined) return [];
      // A fresh index: live-session files and processes change while we watch.
      const index = freshIndex(ctx);
      return busyOnList(index, listId).filter((b) => !leftOutAsOwn(b, mine, startedAt));
    },
  };
}

/**
 * A list watched for a condition: a session of the list that dies holding work in progress
 * ends the watch (sessions/session-deaths.ts), looked for every second, so a fan-out fails
 * within seconds while its other agents still run. One that died holding nothing is said
 * in a note. Undefined where the list is not known (a run's, followed otherwise).
 * `ends` false (a watch with no condition to fail, or --allow-deaths): a death holding work
 * is only said, in the same note (`session_died`, with the tasks it held), and the watch goes on.
 */
export function deathWatch(ctx: Context, target: WatchTarget, tell: Pick<WatchSink, 'note'>, ends = true): WatchSessionOptions['deaths'] {
  const listId = target.listId;
  const dir = target.listDir();
  if (listId === undefined || dir === undefined) return undefined;
  const deathsOf = (id: string, folder: string) => ({
    id,
    deaths: new SessionDeaths(ctx.configDir, id, folder, { settings: ctx.settingsPlaces, namedFolder: ctx.namedProjectFolder }),
  });
  let watched = deathsOf(listId, dir);
  return {
    everyMs: 1000,
    look: (tasks) => {
      // Followed to another list (`/clear`): the deaths that count are that list's.
      const now = target.listId;
      if (now !== undefined && now !== watched.id) watched = deathsOf(now, target.listDir() ?? listDirOf(ctx.configDir, now));
      const found = watched.deaths.look(tasks);
      for (const d of found) {
        // Without the watch to end, one that held nothing (a run that ended as it should) is no news.
        if (ends ? d.tasks.length === 0 : d.tasks.length > 0)
          tell.note?.(describeDeath(d), 'session_died', {
            sessionId: d.sessionId,
            state: d.state,
            pid: d.pid ?? null,
            tasks: d.tasks.map((t) => t.id),
          });
      }
      return ends ? found.filter((d) => d.tasks.length > 0) : [];
    },
  };
}
