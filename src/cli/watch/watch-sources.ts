import path from 'node:path';
import type { Clock } from '../../core/base/clock.js';
import { TasksError } from '../../core/base/errors.js';
import { listSessionBusy } from '../../core/progress/stalled-work.js';
import { FollowedFileFeed, openLineFeed, StreamLineFeed } from '../../core/runs/line-feed.js';
import { RunWatcher } from '../../core/runs/run-watcher.js';
import { useTranscriptCache } from '../../core/sessions/list-sessions.js';
import { sessionActivity } from '../../core/sessions/live-sessions.js';
import { SessionIndex } from '../../core/sessions/session-index.js';
import { memoryCache } from '../../core/sessions/transcript-cache.js';
import { listDirOf, sanitizeListId } from '../../core/store/paths.js';
import type { Task } from '../../core/store/schema.js';
import { taskFileTimes } from '../../core/store/task-times.js';
import { ListWatcher } from '../../core/watch/list-watcher.js';
import type { StallWatch } from '../../core/watch/watch-session.js';
import type { WatchSource, WatchSourceHandlers } from '../../core/watch/watch-source.js';
import { renderFollowingTranscript } from '../../render/watch-outcome.js';
import type { Context } from '../runtime/context.js';

/**
 * What `tasks watch` follows, chosen from its flags: a list folder (the usual), a run's
 * stream-json output (`--stream <file|->`), or, for `--session <id>` when that session's
 * todos exist only in its transcript, the transcript.
 */
export interface WatchTarget {
  /** The list id shown until the source names its own. */
  listId: string;
  /** The folder of that list (shown while it does not exist). */
  dir: string;
  /** The session whose busy state says whether its work stalls, when known. */
  sessionId(): string | undefined;
  /** The list folder whose file times say when tasks last changed, when known. */
  listDir(): string | undefined;
  /** Set for a run: what is read, for people. */
  following?: string | undefined;
  source(handlers: WatchSourceHandlers): WatchSource;
}

export function listTarget(ctx: Context, clock: Clock): WatchTarget {
  const { id, dir } = ctx.list(false, { mayBeMissing: true });
  return {
    listId: id,
    dir,
    sessionId: () => undefined,
    listDir: () => dir,
    source: (handlers) => new ListWatcher({ dir, clock }, handlers),
  };
}

/**
 * `--stream <file|->`. The run's list is $CLAUDE_CODE_TASK_LIST_ID or --list when given
 * (the agent uses it too), else its session's, named by the stream's first event.
 */
export function streamTarget(ctx: Context, file: string, clock: Clock): WatchTarget {
  if (file === '') throw new TasksError('usage', '--stream needs a file, or - for stdin');
  const fromStdin = file === '-';
  if (fromStdin && ctx.io.stdin.isTTY) {
    throw new TasksError(
      'usage',
      '--stream -: stdin is a terminal; pipe a run into it (claude -p ... --output-format stream-json --verbose | tasks watch --stream -)',
    );
  }
  const named = ctx.globals().list ?? (ctx.env.CLAUDE_CODE_TASK_LIST_ID || undefined);
  const listId = named === undefined ? undefined : sanitizeListId(named);
  const configDir = ctx.configDir;
  let watcher: RunWatcher | undefined;
  return {
    listId: listId ?? '(run)',
    dir: listId === undefined ? path.join(configDir, 'tasks') : listDirOf(configDir, listId),
    sessionId: () => watcher?.sessionId,
    listDir: () => watcher?.listDir,
    following: fromStdin ? 'the stream on stdin' : file,
    source: (handlers) =>
      (watcher = new RunWatcher(
        {
          configDir,
          listId,
          clock,
          openFeed: (h) => (fromStdin ? new StreamLineFeed(ctx.io.stdin.stream(), h) : openLineFeed(file, h, ctx.cwd)),
        },
        handlers,
      )),
  };
}

/**
 * `watch --session <id>`: the session's list when it has one on disk (as --session
 * means for every command); else, when it has a transcript, that transcript, followed
 * until the session stops running. Undefined: let the usual list choice decide (and
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
  ctx.io.note(renderFollowingTranscript(sessionId, transcript));
  return {
    listId: sessionId,
    dir: listDirOf(configDir, sessionId),
    sessionId: () => sessionId,
    listDir: () => listDirOf(configDir, sessionId),
    following: `transcript ${path.basename(transcript)}`,
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
    sessionBusy: () => {
      const session = target.sessionId();
      if (session !== undefined) return sessionActivity(configDir, session) === 'busy';
      // A fresh index: live-session files change while we watch.
      if (target.following !== undefined) return undefined;
      const index = new SessionIndex(configDir, { settings: ctx.settingsPlaces });
      useTranscriptCache(index, transcripts);
      return listSessionBusy(index, target.listId);
    },
  };
}
