import type { Command } from 'commander';
import type { Clock } from '../../core/base/clock.js';
import { TasksError } from '../../core/base/errors.js';
import { countTasks } from '../../core/graph/blockers.js';
import { readTasks } from '../../core/store/list-read.js';
import { expandHome } from '../../core/store/paths.js';
import { formatUntil, parseUntil, UNTIL_FORMS } from '../../core/watch/watch-condition.js';
import { WatchSession, type WatchSink } from '../../core/watch/watch-session.js';
import { renderConditionHeld, renderFilterLabel, renderTaskNotYet, watchEndMessage } from '../../render/watch-outcome.js';
import { parseDuration } from '../flags/duration-flags.js';
import { addFilterOptions, type FilterOptions, filterFrom } from '../flags/filter-flags.js';
import { type Context, usage } from '../runtime/context.js';
import { INTERRUPTS, withInterrupt } from '../runtime/interrupt.js';
import { LiveSink } from '../watch/watch-live.js';
import { listTarget, stallWatch, streamTarget, transcriptTarget } from '../watch/watch-sources.js';
import { StreamSink } from '../watch/watch-stream.js';

interface WatchOptions extends FilterOptions {
  until?: string;
  timeout?: string;
  stream?: string;
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
                        still being written (followed like tail -f): its TodoWrite list,
                        or the tasks its TaskCreate / TaskUpdate calls make. Where the
                        run's list folder exists (its session id, named by the stream's
                        first event, or $CLAUDE_CODE_TASK_LIST_ID / --list), the files are
                        watched instead and the stream only says when the run ended.
  --session <id>        (the global option) a session's list, as for every command; when
                        the session has no list on disk (a TodoWrite session), its
                        transcript is followed the same way, until the session stops.
  The run's end ends the watch: reason run-ended (its result event, "run":{"result":…}),
  input-ended (no result event: the agent was killed), or session-ended. Lines that are
  not JSON are skipped with a warning each.

--fail-if-stalled <duration>: end early when a task shown has been in_progress without a
change for that long while its session (where known) is not busy on a turn.

Exit: 0 condition met, stopped, or the run ended (without --until); 6 the run ended
before the --until condition held; 7 a task stalled (--fail-if-stalled); 124 --timeout
passed first; 130 stopped (Ctrl-C, SIGTERM) before the --until condition held.

Examples:
  tasks watch                                           live view of the list
  tasks watch --until all-completed --timeout 30m --json   CI: wait for the agents
  tasks watch --json | jq -c 'select(.event == "updated") | {id: .task.id, changes}'
  tasks watch --owner amy --until all-completed && echo "amy is done"
  tasks watch --blocked --until empty                    until nothing waits on a blocker
  claude -p "fix the flaky tests" --output-format stream-json --verbose \
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
      const target =
        opts.stream !== undefined
          ? streamTarget(ctx, opts.stream === '-' ? '-' : expandHome(opts.stream, ctx.home), clock)
          : ((globals.session === undefined ? undefined : transcriptTarget(ctx, globals.session, clock)) ?? listTarget(ctx, clock));
      const untilText = until ? formatUntil(until) : undefined;
      const watchedDir = target.listDir();
      if (until?.kind === 'task-status' && watchedDir !== undefined && readTasks(watchedDir, [until.id]).length === 0) {
        // Likely a typo, but an agent may yet create it: say so now, and wait all the same.
        ctx.io.warn(renderTaskNotYet(until.id, until.status));
      }

      let session: WatchSession | undefined;
      let sink: WatchSink;
      if (ctx.io.json || !ctx.io.humanLayout) {
        sink = new StreamSink(ctx, target.listId, untilText);
      } else {
        sink = new LiveSink(ctx.io.terminal(), {
          listId: target.listId,
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
      const timers = {
        setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
        clearTimeout: (t: unknown) => clearTimeout(t as NodeJS.Timeout),
      };
      // Ctrl-C, SIGTERM and a closed terminal (SIGHUP) stop the watch; it ends as its outcome says.
      const outcome = await withInterrupt(
        (stop) => {
          session = new WatchSession({ source: target.source, filter, until, timeoutMs, stall, clock, timers, stop }, sink);
          return session.run();
        },
        [...INTERRUPTS, 'SIGHUP'],
      );

      const counts = countTasks(outcome.view.shown, outcome.view.index);
      if (outcome.reason === 'timeout') {
        throw new TasksError('timeout', watchEndMessage.timeout(timeoutMs ?? 0, untilText, counts), {
          details: { until: untilText, counts },
        });
      }
      if (outcome.reason === 'stalled') {
        throw new TasksError('stalled', watchEndMessage.stalled(outcome.stalled ?? [], counts), {
          hint: 'is the agent stuck? tasks list --stalled shows such tasks',
          details: { stalled: (outcome.stalled ?? []).map((s) => ({ id: s.id, idleMs: Math.round(s.idleMs) })), counts },
        });
      }
      if (outcome.reason === 'stopped' && untilText !== undefined && !outcome.met) {
        throw new TasksError('interrupted', watchEndMessage.stopped(untilText, counts));
      }
      if (outcome.run && untilText !== undefined && !outcome.met) {
        throw new TasksError('run_ended', watchEndMessage.runEnded(outcome.reason, untilText, counts), {
          details: { until: untilText, reason: outcome.reason, result: outcome.run.subtype ?? null, counts },
        });
      }
      if (outcome.reason === 'condition-met' && !ctx.io.json && ctx.io.humanLayout)
        ctx.io.note(renderConditionHeld(untilText, ctx.io.errStyle));
    });
}
