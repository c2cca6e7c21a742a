import type { Clock } from '../../core/base/clock.js';
import { TasksError } from '../../core/base/errors.js';
import { countTasks } from '../../core/graph/blockers.js';
import type { TaskFilter } from '../../core/lists/task-filter.js';
import { readTasks } from '../../core/store/list-read.js';
import { expandHome } from '../../core/store/paths.js';
import { formatUntil, type UntilCondition } from '../../core/watch/watch-condition.js';
import { type JudgeWhen, type WatchOutcome, WatchSession, type WatchSink } from '../../core/watch/watch-session.js';
import { countsJson } from '../../render/task-json.js';
import { renderConditionHeld, renderFilterLabel, renderTaskNotYet, watchEndMessage } from '../../render/watch-outcome.js';
import type { Context } from '../runtime/context.js';
import { INTERRUPTS, withInterrupt } from '../runtime/interrupt.js';
import { LiveSink } from './watch-live.js';
import { listTarget, sessionsOverWatch, stallWatch, streamTarget, transcriptTarget, type WatchTarget } from './watch-sources.js';
import { StreamSink } from './watch-stream.js';

/** A watch as its flags ask for it, checked. */
export interface WatchPlan {
  filter: TaskFilter;
  until?: UntilCondition | undefined;
  timeoutMs?: number | undefined;
  /** `--fail-if-stalled`. */
  stallMs?: number | undefined;
  /** `--stream <file|->`. */
  stream?: string | undefined;
  /** `--session <id>` (the global option). */
  session?: string | undefined;
  /** When --until is judged. */
  judge: JudgeWhen;
}

/**
 * One `tasks watch`: what it follows (a list folder, a run's stream, a session's
 * transcript), where it shows it (the live view in a terminal, else NDJSON), core's
 * watch session run with Ctrl-C, SIGTERM and SIGHUP as its stop, and its outcome turned
 * into an exit status. A stream's input is read to its end, whatever happens.
 */
export async function runWatch(ctx: Context, plan: WatchPlan): Promise<void> {
  const { filter, until, timeoutMs, stallMs } = plan;
  const clock: Clock = { now: () => Date.now() };
  const target =
    plan.stream !== undefined
      ? streamTarget(ctx, plan.stream === '-' ? '-' : expandHome(plan.stream, ctx.home), clock)
      : ((plan.session === undefined ? undefined : transcriptTarget(ctx, plan.session, clock)) ?? listTarget(ctx, clock));
  const untilText = until ? formatUntil(until) : undefined;
  const watchedDir = target.listDir();
  if (until?.kind === 'task-status' && watchedDir !== undefined && readTasks(watchedDir, [until.id]).length === 0) {
    // Likely a typo, but an agent may yet create it: say so now, and wait all the same.
    ctx.io.warn(renderTaskNotYet(until.id, until.status), 'task_not_yet', { id: until.id });
  }

  let session: WatchSession | undefined;
  let sink: WatchSink;
  // A dumb terminal gets the lines a pipe gets: the full-screen view would be escape codes.
  if (ctx.io.json || !ctx.io.fullScreen) {
    sink = new StreamSink(ctx, target.listId, untilText);
  } else {
    sink = new LiveSink(ctx.io.terminal(), {
      listId: target.listId ?? 'the run',
      listName: (id) => ctx.shortId(id),
      dir: target.dir,
      until: untilText,
      deadline: timeoutMs === undefined ? undefined : clock.now() + timeoutMs,
      filterLabel: renderFilterLabel(filter),
      following: target.following,
      style: ctx.io.style,
      clock,
      onQuit: () => session?.stop(),
      print: (text) => ctx.io.out(text),
    });
  }
  const stall = stallMs === undefined ? undefined : stallWatch(ctx, target, stallMs);
  // A list watched for a condition: when its agents are all gone, nothing will meet it.
  const sessionsOver =
    untilText !== undefined && target.following === undefined ? sessionsOverWatch(ctx, target, plan.session !== undefined) : undefined;
  const timers = {
    setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
    clearTimeout: (t: unknown) => clearTimeout(t as NodeJS.Timeout),
  };
  // A reader of the events that goes away ends the watch quietly (status 0); a stream's
  // input is still read to its end below.
  let readerGone = false;
  const offReaderGone = target.drain
    ? ctx.io.onReaderGone(() => {
        readerGone = true;
        session?.stop();
      })
    : undefined;
  // Ctrl-C, SIGTERM and a closed terminal (SIGHUP) stop the watch; it ends as its outcome says.
  let outcome: WatchOutcome;
  try {
    outcome = await withInterrupt(
      (stop) => {
        session = new WatchSession(
          { source: target.source, filter, until, judge: plan.judge, timeoutMs, stall, clock, timers, stop, sessionsOver },
          sink,
        );
        return session.run();
      },
      [...INTERRUPTS, 'SIGHUP'],
    );
  } catch (err) {
    if (!target.drain || (err instanceof TasksError && err.code === 'interrupted')) throw err;
    // Said now; the writer upstream still gets to finish.
    ctx.io.fail(err);
    await drainInput(target);
    return;
  } finally {
    offReaderGone?.();
  }
  const verdict = readerGone ? undefined : verdictOf(outcome, { untilText, timeoutMs });
  if (verdict) ctx.io.fail(verdict);
  else if (outcome.met && untilText !== undefined && !ctx.io.json && ctx.io.fullScreen)
    ctx.io.note(renderConditionHeld(untilText, ctx.io.errStyle), 'condition_met');
  // The verdict is out; a stream's input is read to its end (not after a signal), so the
  // agent upstream never meets a closed pipe and a tee beside it keeps every line.
  if (outcome.reason !== 'stopped' || readerGone) await drainInput(target);
}

/** Read what is left of a stream's input, discarding it; a signal stops that too. */
async function drainInput(target: WatchTarget): Promise<void> {
  const drain = target.drain;
  if (drain) await withInterrupt((signal) => drain(signal), [...INTERRUPTS, 'SIGHUP']);
}

/** How a watch that ended turns into an error (and so an exit status); undefined: it went well (0). */
function verdictOf(outcome: WatchOutcome, opts: { untilText: string | undefined; timeoutMs: number | undefined }): TasksError | undefined {
  const { untilText } = opts;
  const listCounts = countTasks(outcome.view.shown, outcome.view.index);
  const counts = countsJson(listCounts);
  // Without --until, a deadline is just how long to watch.
  if (outcome.reason === 'timeout' && untilText !== undefined) {
    return new TasksError('timeout', watchEndMessage.timeout(opts.timeoutMs ?? 0, untilText, listCounts), {
      details: { until: untilText, counts },
    });
  }
  if (outcome.reason === 'stalled') {
    const stalled = outcome.stalled ?? [];
    return new TasksError('stalled', watchEndMessage.stalled(stalled, listCounts, outcome.idleMs), {
      hint: outcome.idleMs === undefined ? 'is the agent stuck? tasks list --stalled shows such tasks' : 'is the agent stuck?',
      details: {
        stalled: stalled.map((s) => ({ id: s.id, idleMs: Math.round(s.idleMs) })),
        ...(outcome.idleMs === undefined ? {} : { idleMs: Math.round(outcome.idleMs) }),
        counts,
      },
    });
  }
  if (outcome.reason === 'stopped' && untilText !== undefined && !outcome.met) {
    return new TasksError('interrupted', watchEndMessage.stopped(untilText, listCounts));
  }
  if (outcome.run && untilText !== undefined && !outcome.met) {
    return new TasksError('run_ended', watchEndMessage.runEnded(outcome.reason, untilText, listCounts), {
      details: {
        until: untilText,
        reason: outcome.reason,
        result: outcome.run.subtype ?? null,
        counts,
        ...(outcome.gone === undefined ? {} : { gone: outcome.gone }),
      },
    });
  }
  return undefined;
}
