import type { Command } from 'commander';
import type { Clock } from '../../core/base/clock.js';
import { TasksError } from '../../core/base/errors.js';
import { countTasks } from '../../core/graph/blockers.js';
import { readTasks } from '../../core/store/list-read.js';
import { expandHome } from '../../core/store/paths.js';
import { formatUntil, parseUntil, UNTIL_FORMS } from '../../core/watch/watch-condition.js';
import { type JudgeWhen, type WatchOutcome, WatchSession, type WatchSink } from '../../core/watch/watch-session.js';
import { countsJson } from '../../render/task-json.js';
import { renderConditionHeld, renderFilterLabel, renderTaskNotYet, watchEndMessage } from '../../render/watch-outcome.js';
import { parseDuration } from '../flags/duration-flags.js';
import { addFilterOptions, type FilterOptions, filterFrom } from '../flags/filter-flags.js';
import { type Context, usage } from '../runtime/context.js';
import { INTERRUPTS, withInterrupt } from '../runtime/interrupt.js';
import { LiveSink } from '../watch/watch-live.js';
import { listTarget, sessionsOverWatch, stallWatch, streamTarget, transcriptTarget, type WatchTarget } from '../watch/watch-sources.js';
import { StreamSink } from '../watch/watch-stream.js';

interface WatchOptions extends FilterOptions {
  until?: string;
  timeout?: string;
  stream?: string;
  early?: boolean;
  failIfStalled?: string;
}

const HELP = `
In a terminal: a live view that redraws in place (q or Ctrl-C quits, exit 0).
With --json, or when stdout is not a terminal: NDJSON, one event per line:
  {"event":"snapshot","at":"…","list":"…","exists":true,"tasks":[…]}   first, every task
  {"event":"created"|"deleted","at":"…","task":{…}}
  {"event":"updated","at":"…","task":{…},"changes":{"status":{"old":"pending","new":"completed"}}}
  {"event":"list-cleared","at":"…","tasks":[…]}                        every task vanished at once
  {"event":"end","at":"…","reason":"condition-met|timeout|stopped|…",…} last, with counts and tasks;
      "nudge":{"code":"verification_missing",…} when every task is completed and none
      is a verification step (subject matching /verif/i): verify before reporting done

--until conditions (checked at once, then after every change; exit 0 when one holds):
  all-completed         there are tasks, and every one is completed
  ready                 some task is ready to claim (pending, unowned, no open blocker)
  empty                 no tasks (or no list): e.g. an agent reset a finished list
  task:<id>:completed   that task is completed (also :in_progress, :pending)
Filters narrow what is shown and what the conditions speak of (--owner amy --until
all-completed waits for amy's tasks). A list that does not exist yet is waited for.

Following an agent's run as it happens:
  --stream <file|->     read a run's stream-json output (claude -p --output-format
                        stream-json --verbose, the Agent SDK) from stdin, or from a file
                        still being written (followed like tail -f; one that does not
                        exist yet is waited for): its TodoWrite list, or the tasks its
                        TaskCreate / TaskUpdate calls make, each call an event, in order.
                        Where the run's list folder exists (its session id, named by the
                        stream's first event, or $CLAUDE_CODE_TASK_LIST_ID / --list), its
                        files are followed too and add what others change.
                        As a gate: --until is judged when the run ends (its result event),
                        on the list as it is then; --early ends as soon as it holds once
                        the run has changed its list. stdin is read to its end whatever
                        happens, so the writer upstream (and a tee) always finishes.
  --session <id>        (the global option) a session's list, as for every command; when
                        the session has no list on disk (a TodoWrite session), its
                        transcript is followed the same way, until the session stops.
  The run's end ends the watch: reason run-ended (its result event, "run":{"result":…}),
  input-ended (no result event: the agent was killed), or session-ended. Lines that are
  not JSON are skipped with a warning each; so are lines over 16 MB.

--fail-if-stalled <duration>: end early when a task shown has been in_progress without a
change for that long while its session (where known) is not busy on a turn, a busy
session counting only while its transcript grows. A followed --stream run stalls when
nothing comes in its input and no task changes for that long.

Exit: 0 condition met, stopped, the deadline passed without --until, or the run ended
(without --until); 6 the run ended before the --until condition was met (a --stream run:
it ended without its result event, or the condition did not hold at its end); 7 stalled
(--fail-if-stalled); 124 --timeout passed before --until was met; 130 stopped (Ctrl-C,
SIGTERM) before the --until condition held.

Examples:
  tasks watch                                           live view of the list
  tasks watch --until all-completed --timeout 30m --json   CI: wait for the agents
  tasks watch --json | jq -c 'select(.event == "updated") | {id: .task.id, changes}'
  tasks watch --owner amy --until all-completed && echo "amy is done"
  tasks watch --blocked --until empty                    until nothing waits on a blocker
  claude -p "fix the flaky tests" --output-format stream-json --verbose \\
    | tee run.jsonl | tasks watch --stream - --until all-completed --timeout 30m
  tasks watch --session 2d48 --until all-completed       a TodoWrite session, by its transcript
  tasks watch --until all-completed --fail-if-stalled 20m --json   CI: fail fast`;

export function registerWatch(program: Command, ctx: Context): void {
  const command = program
    .command('watch')
    .description('watch a list live; or stream its changes as NDJSON; or wait until a condition holds');
  addFilterOptions(command, ['status', 'owner', 'unowned', 'ready', 'blocked', 'all'])
    .option('-u, --until <condition>', `end with exit 0 when it holds: ${UNTIL_FORMS.join(', ')}`)
    .option('-t, --timeout <duration>', 'end with exit 124 when this passes first (durations: see tasks --help)')
    .option('--stream <file>', "follow an agent's run from its stream-json output: a file (followed as it grows) or - for stdin")
    .option('--early', "with --stream: end as soon as --until holds once the run has changed its list, not at the run's end")
    .option(
      '--fail-if-stalled <duration>',
      'end with exit 7 when a task stays in progress without a change for this long (durations: see tasks --help)',
    )
    .addHelpText('after', HELP)
    .action(async (opts: WatchOptions) => {
      const filter = filterFrom(opts, ctx);
      const until = opts.until === undefined ? undefined : parseUntil(opts.until);
      const timeoutMs = opts.timeout === undefined ? undefined : parseDuration('--timeout', opts.timeout);
      const stallMs = opts.failIfStalled === undefined ? undefined : parseDuration('--fail-if-stalled', opts.failIfStalled);
      if (stallMs !== undefined && stallMs <= 0) throw usage('--fail-if-stalled must be longer than 0');
      const clock: Clock = { now: () => Date.now() };
      const globals = ctx.globals();
      if (opts.stream !== undefined && globals.session !== undefined) {
        throw usage('--stream and --session cannot be used together: a stream names its own session');
      }
      if (opts.early && (opts.stream === undefined || until === undefined)) {
        throw usage("--early goes with --stream and --until: it ends a followed run's watch before the run ends");
      }
      const judge: JudgeWhen = opts.stream === undefined ? 'continuously' : opts.early ? 'once-run-acted' : 'at-run-end';
      const target =
        opts.stream !== undefined
          ? streamTarget(ctx, opts.stream === '-' ? '-' : expandHome(opts.stream, ctx.home), clock)
          : ((globals.session === undefined ? undefined : transcriptTarget(ctx, globals.session, clock)) ?? listTarget(ctx, clock));
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
        untilText !== undefined && target.following === undefined
          ? sessionsOverWatch(ctx, target, globals.session !== undefined)
          : undefined;
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
              { source: target.source, filter, until, judge, timeoutMs, stall, clock, timers, stop, sessionsOver },
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
    });
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
