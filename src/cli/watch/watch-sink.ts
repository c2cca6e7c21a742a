import type { Clock } from '../../core/base/clock.js';
import { goneHeldInProgress } from '../../core/history/list-owners.js';
import type { TaskFilter } from '../../core/lists/task-filter.js';
import type { GoneHeld } from '../../core/sessions/gone-owners.js';
import { SessionIndex } from '../../core/sessions/session-index.js';
import { listDirOf } from '../../core/store/paths.js';
import type { Task } from '../../core/store/schema.js';
import type { WatchSink } from '../../core/watch/watch-session.js';
import { renderFilterLabel } from '../../render/watch-outcome.js';
import type { Context } from '../runtime/context.js';
import { type LiveOptions, LiveSink } from './watch-live.js';
import type { WatchTarget } from './watch-sources.js';
import { StreamSink } from './watch-stream.js';

/** The tasks in progress of a list whose agent is gone, from a fresh look at the sessions (they change while the watch runs). */
function goneHeldNow(ctx: Context, listId: string, tasks: readonly Task[]): ReadonlyMap<string, GoneHeld> {
  const index = new SessionIndex(ctx.configDir, { settings: ctx.settingsPlaces, namedFolder: ctx.namedProjectFolder });
  return goneHeldInProgress(index, listDirOf(ctx.configDir, listId), listId, () => ctx.person, tasks);
}

/**
 * Where a watch's events go: the live view on a terminal that can take it, else NDJSON
 * on stdout (with --json, piped, or on a dumb terminal, which gets the lines a pipe
 * gets: the full-screen view would be escape codes). `onQuit`: the live view's q.
 */
export function watchSink(
  ctx: Context,
  target: WatchTarget,
  opts: {
    until: string | undefined;
    timeoutMs: number | undefined;
    filter: TaskFilter;
    clock: Clock;
    onQuit(): void;
    /** The live view's: a list named that is not there, said after a while (watch-live.ts). */
    missingList?: LiveOptions['missingList'];
    beforeView?: LiveOptions['beforeView'];
  },
): WatchSink {
  if (ctx.io.json || !ctx.io.fullScreen) return new StreamSink(ctx, target.listId, opts.until);
  return new LiveSink(ctx.io.terminal(), {
    listId: target.listId ?? 'the run',
    listUnnamed: target.listId === undefined,
    listName: (id) => ctx.shortId(id),
    // Read each frame: a followed /clear moves the target to the new list's folder.
    dir: () => target.dir,
    until: opts.until,
    deadline: opts.timeoutMs === undefined ? undefined : opts.clock.now() + opts.timeoutMs,
    filterLabel: renderFilterLabel(opts.filter),
    following: target.following,
    style: ctx.io.style,
    clock: opts.clock,
    onQuit: opts.onQuit,
    missingList: opts.missingList,
    beforeView: opts.beforeView,
    print: (text) => ctx.io.out(text),
    // A list's tasks, marked as `list` marks them when their agent is gone: a followed run's
    // other sessions' too (a shared list). The run's own death is told by its end, which
    // marks the tasks it held (watch-live.ts): its session, alive while its input flows, is left out.
    goneHeld: (listId, tasks) => {
      const held = goneHeldNow(ctx, listId, tasks);
      const own = target.following === undefined ? undefined : target.sessionId();
      return own === undefined ? held : new Map([...held].filter(([, h]) => h.session?.sessionId !== own));
    },
  });
}
