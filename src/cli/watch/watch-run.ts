import type { Clock } from '../../core/base/clock.js';
import { TasksError } from '../../core/base/errors.js';
import type { TaskFilter } from '../../core/lists/task-filter.js';
import { idRetired, readTasks } from '../../core/store/list-read.js';
import { expandHome } from '../../core/store/paths.js';
import { formatUntil, type UntilCondition } from '../../core/watch/watch-condition.js';
import { type JudgeWhen, type WatchOutcome, WatchSession } from '../../core/watch/watch-session.js';
import { shellWord } from '../../render/list-choice-note.js';
import { renderNote } from '../../render/note.js';
import {
  renderConditionHeld,
  renderInputHandedOff,
  renderRunChangedNothing,
  renderRunDied,
  renderTaskNotYet,
} from '../../render/watch-outcome.js';
import type { Context } from '../runtime/context.js';
import { INTERRUPTS, withInterrupt } from '../runtime/interrupt.js';
import { missingListWords } from './missing-list-words.js';
import { watchSink } from './watch-sink.js';
import {
  busyWatch,
  deathWatch,
  listTarget,
  personWatch,
  sessionsOverWatch,
  stallWatch,
  streamTarget,
  transcriptTarget,
  type WatchTarget,
} from './watch-sources.js';
import { verdictOf } from './watch-verdict.js';

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
  /** `--allow-deaths`: a session of the list that dies holding work does not end the watch. */
  allowDeaths: boolean;
  /** false (`--no-follow`): a session's list stays watched after `/clear`. */
  follow: boolean;
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
      : ((plan.session === undefined ? undefined : transcriptTarget(ctx, plan.session, clock)) ??
        listTarget(ctx, clock, plan.follow, gateWords(plan)));
  const untilText = until ? formatUntil(until) : undefined;
  const watchedDir = target.listDir();
  if (
    until?.kind === 'task-status' &&
    watchedDir !== undefined &&
    readTasks(watchedDir, [until.id]).length === 0 &&
    !idRetired(watchedDir, until.id)
  ) {
    // Likely a typo, but an agent may yet create it: say so now, and wait all the same.
    ctx.io.warn(renderTaskNotYet(until.id, until.status), 'task_not_yet', { id: until.id });
  }

  let session: WatchSession | undefined;
  // A list typed (-l, CLAUDE_CODE_TASK_LIST_ID) that is not there, a name near it: the live
  // view says the name meant, as the note before it did (the view covers that note).
  const typed =
    plan.stream === undefined && plan.session === undefined && (ctx.globals().list ?? ctx.env.CLAUDE_CODE_TASK_LIST_ID) !== undefined;
  const missingList = typed && target.listId !== undefined ? { after: 0, words: missingListWords(ctx, target.listId, true) } : undefined;
  const sink = watchSink(ctx, target, { until: untilText, timeoutMs, filter, clock, onQuit: () => session?.stop(), missingList });
  const stall = stallMs === undefined ? undefined : stallWatch(ctx, target, stallMs);
  // A list watched for a condition: when its agents are all gone, nothing will meet it.
  const sessionsOver =
    untilText !== undefined && target.following === undefined ? sessionsOverWatch(ctx, target, plan.session !== undefined) : undefined;
  // A session of a shared list that dies holding work ends the watch at once (not with --allow-deaths).
  // Otherwise a list's NDJSON says each death in a note and goes on (the live view marks the tasks itself).
  const deaths =
    sessionsOver !== undefined && !plan.allowDeaths
      ? deathWatch(ctx, target, sink)
      : target.following === undefined && (ctx.io.json || !ctx.io.fullScreen)
        ? deathWatch(ctx, target, sink, false)
        : undefined;
  // A condition met while an agent of the list is still at work waits for it (not a followed run's).
  const busy = untilText !== undefined ? busyWatch(ctx, target) : undefined;
  const timers = {
    setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
    clearTimeout: (t: unknown) => clearTimeout(t as NodeJS.Timeout),
  };
  // A reader of the events that goes away ends the watch quietly (status 0); a stream's
  // input is still read to its end below. A gate (--until) goes on to its verdict instead,
  // which is its status (`watch --until all-completed | head -5 && deploy` never deploys
  // early); only its events are no longer written.
  let readerGone = false;
  const offReaderGone =
    untilText !== undefined
      ? ctx.io.onReaderGone(() => {})
      : target.drain
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
          {
            source: target.source,
            filter,
            until,
            judge: plan.judge,
            timeoutMs,
            stall,
            clock,
            timers,
            stop,
            sessionsOver,
            deaths,
            busy,
            personWait: personWatch(ctx, target),
            taskGone: watchedDir === undefined ? undefined : (id) => idRetired(watchedDir, id),
          },
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
    await drainInput(target, ctx, false);
    return;
  } finally {
    offReaderGone?.();
  }
  const list = outcome.view.list ?? target.listId;
  const listArgs = target.listArgs?.() ?? (list === undefined ? [] : ['-l', ctx.shortId(list)]);
  const verdict = readerGone
    ? undefined
    : verdictOf(outcome, { untilText, timeoutMs, stallMs, listName: list === undefined ? undefined : ctx.shortId(list), listArgs });
  if (!readerGone) noteRunDied(ctx, outcome, listArgs);
  if (verdict) ctx.io.fail(verdict);
  else if (outcome.met && untilText !== undefined && !ctx.io.json && ctx.io.fullScreen)
    ctx.io.note(renderConditionHeld(untilText, ctx.io.errStyle), 'condition_met');
  if (!verdict && !readerGone) noteChangedNothing(ctx, outcome, untilText, target.listId);
  // The verdict is out; a stream's input is read to its end (not after a signal), so the
  // agent upstream never meets a closed pipe and a tee beside it keeps every line.
  if (outcome.reason !== 'stopped' || readerGone) await drainInput(target, ctx, outcome.run?.how === 'result');
}

/** A gate's words as typed (`--until all-completed`), or undefined for a watch that is none. */
function gateWords(plan: WatchPlan): string | undefined {
  if (plan.until !== undefined) return `--until ${formatUntil(plan.until)}`;
  return plan.stallMs === undefined ? undefined : '--fail-if-stalled <time>';
}

/**
 * A gate passed on a followed run that changed nothing in its list (a reused list whose
 * tasks were all completed, an agent that only listed them): the documented rule passes
 * it, and the log says why. `outcome` undefined: the run did not pass.
 */
export function noteChangedNothing(ctx: Context, outcome: WatchOutcome | undefined, untilText: string | undefined, listId?: string): void {
  if (outcome === undefined || !outcome.met || untilText === undefined || outcome.runChanged !== false) return;
  const list = outcome.view.list ?? listId;
  if (list === undefined) return;
  ctx.io.note(renderNote(renderRunChangedNothing(ctx.shortId(list), untilText)), 'run_changed_nothing', { list, until: untilText });
}

/**
 * A followed run whose session died before its result holding tasks in progress (the
 * agent killed, or crashed): said on stderr as a watched list's death is (`session_died`,
 * with the tasks it held), with the command that gives them back, for a CI log.
 */
export function noteRunDied(ctx: Context, outcome: WatchOutcome | undefined, listArgs: readonly string[]): void {
  // A watched list's deaths (reason session-died) are told by its verdict.
  if (outcome?.reason !== 'input-ended') return;
  for (const d of outcome.died ?? []) {
    const release = ['tasks', ...listArgs.map(shellWord), 'release', ...d.tasks.map((t) => t.id)].join(' ');
    ctx.io.note(renderNote(renderRunDied(d, release)), 'session_died', {
      sessionId: d.sessionId,
      state: d.state,
      pid: d.pid ?? null,
      ...(d.exit === undefined ? {} : { exit: d.exit }),
      tasks: d.tasks.map((t) => t.id),
    });
  }
}

/**
 * Read what is left of a stream's input, discarding it; a signal stops that too. After
 * the run's result (`afterResult`), an input still open a moment later is held by what
 * the agent left behind or by a script's next step: a piped stdin is then handed to a
 * reader of its own and the watch exits, its verdict said.
 */
async function drainInput(target: WatchTarget, ctx: Context, afterResult: boolean): Promise<void> {
  const drain = target.drain;
  if (!drain) return;
  const handOff = afterResult ? target.handOff : undefined;
  await withInterrupt(
    async (signal) => {
      if (handOff === undefined) return drain(signal);
      const stop = new AbortController();
      const onAbort = () => stop.abort();
      signal.addEventListener('abort', onAbort, { once: true });
      let timer: NodeJS.Timeout | undefined;
      try {
        const ended = drain(stop.signal).then(() => true);
        const waited = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), HAND_OFF_AFTER_MS)));
        if ((await Promise.race([ended, waited])) || signal.aborted) return;
        const handed = handOff();
        if (handed !== undefined) {
          stop.abort();
          ctx.io.note(renderNote(renderInputHandedOff(handed.pid, handed.holders)), 'input_handed_off', handed);
        }
        await ended;
      } finally {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      }
    },
    [...INTERRUPTS, 'SIGHUP'],
  );
}

/** How long the input may stay open after the run's result before it is handed off. */
const HAND_OFF_AFTER_MS = 2000;
