import type { Command } from 'commander';
import { parseUntil, UNTIL_FORMS } from '../../core/watch/watch-condition.js';
import type { JudgeWhen } from '../../core/watch/watch-session.js';
import { parseDuration } from '../flags/duration-flags.js';
import { addFilterOptions, type FilterOptions, filterFrom } from '../flags/filter-flags.js';
import { type Context, usage } from '../runtime/context.js';
import { runWatch } from '../watch/watch-run.js';

interface WatchOptions extends FilterOptions {
  until?: string;
  timeout?: string;
  stream?: string;
  early?: boolean;
  failIfStalled?: string;
  allowDeaths?: boolean;
  follow: boolean;
}

const HELP = `
In a terminal: a live view that redraws in place (q or Ctrl-C quits, exit 0).
With --json, or when stdout is not a terminal: NDJSON, one event per line:
  {"event":"snapshot","at":"…","list":"…","exists":true,"tasks":[…]}   first, every task
  {"event":"created"|"deleted","at":"…","task":{…}}
  {"event":"updated","at":"…","task":{…},"changes":{"status":{"old":"pending","new":"completed"}}}
  {"event":"list-cleared","at":"…","tasks":[…]}                        every task vanished at once
  {"event":"needs-you","at":"…","waiting":{"for":"permission prompt",…,"ids":["1"]}|null}
                                    a session of the list waits for a person, or no longer
  {"event":"end","at":"…","reason":"condition-met|timeout|stopped|…",…} last, with counts and tasks;
      "nudge":{"code":"verification_missing",…} when every task is completed and none
      is a verification step (subject matching /verif/i): verify before reporting done
A task in progress whose session waits for a person (a permission prompt) carries
"waiting" as in list --json; the live view marks it "waiting: permission prompt". A
timeout while a session waits names it (and the end event's "waiting").

--until conditions (checked at once, then after every change; exit 0 when one holds):
  all-completed         there are tasks, and every one is completed
  ready                 some task is ready to claim (pending, unowned, no open blocker)
  empty                 no tasks (or no list): e.g. Claude Code cleared a finished list
  task:<id>:completed   that task is completed (also :in_progress, :pending)
Filters narrow what is shown and what the conditions speak of (--owner amy --until
all-completed waits for amy's tasks). A list that does not exist yet is waited for; so is
a task not made yet. A task:<id> that is deleted (seen and gone, or its id under the
list's high-water mark or a higher id's file: ids are never used again) ends the watch
at once, exit 6 (reason task-deleted, "deleted":"<id>").
On a list, all-completed and empty are met only while no session on the list is busy (a
headless claude -p is busy until it exits; an interactive one idle at its prompt is not;
a Claude Code process just started on it counts): an agent planning a step at a time
completes #1 before it makes #2. Meanwhile the watch says whom it waits for (a note; with
--json a {"event":"waiting","until":…,"sessions":[{"session","pid","state"}]} event).

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
                        happens, so the writer upstream (and a tee) always finishes; after
                        the run's result, an input that a process left behind keeps open
                        is handed to a reader of its own, and the watch exits.
  --session <id>        (the global option) a session's list, as for every command, waited
                        for when a session with the Task tools has not made it yet; a
                        TodoWrite session (its transcript says which tools it has) is
                        followed through its transcript the same way, until it stops.
  The run's end ends the watch: reason run-ended (its result event, "run":{"result":…}),
  input-ended (no result event: the agent was killed; the tasks in progress it took up
  are named: "died" in the end event, note session_died), or session-ended. Lines that
  are not JSON are skipped with a warning each; so are lines over 16 MB.

--fail-if-stalled <duration>: end early when a task shown has been in_progress without a
change for that long while no session of its list is at work, a session busy on a turn
counting only while its transcript grows or a tool call of its awaits its result (a
long command is work), as list --stalled judges it. The tasks a session waiting for a
person (a permission prompt) holds have not stalled: the watch goes on for them
(--timeout bounds it). A followed --stream run
stalls when nothing comes in its input and no task changes for that long, with no tool
call of its awaiting its result.

Dead agents: a list watched with --until ends (reason session-died, "died":[{session,
pid, tasks}]) within seconds when a session working on it dies (its process gone, or
it ended; a short run over between two looks is found by its transcript) holding tasks
in progress, even while its other sessions run; or (reason
session-ended) once every session of the list is over. --allow-deaths waits on until
every session is over. To own the agent itself (and end it when the verdict is known),
run it with tasks run.

/clear: when the list watched is a session's own and that session is cleared, the watch
follows it to the list its process uses now (within seconds), says so (the view's
"session 1a2b3c4d cleared: now following list 5e6f7a8b"; with --json a
{"event":"session-cleared",…,"from","to","tasks"} event, the new list's first state),
and goes on. The list left behind is still read: --until speaks of the session's work
on both, so the switch never meets it (all-completed needs every task there completed
or carried on, and the new list's too; empty needs both empty; ready, either one;
task:<id> names a task of the list the watch began on). --no-follow stays on the old
list; with --until the watch then ends (reason session-cleared, exit 6). A named list
(CLAUDE_CODE_TASK_LIST_ID, tasks use) is not left by /clear: the watch stays on it.

Exit: 0 condition met, stopped, the deadline passed without --until, or the run ended
(without --until); 6 the run ended before the --until condition was met (a --stream run:
it ended without its result event, or the condition did not hold at its end; a list: a
session died holding work, every session is over, --no-follow and its session was
cleared, or the task:<id> named was deleted); 7 stalled
(--fail-if-stalled); 124 --timeout passed before --until was met; 130 stopped (Ctrl-C,
SIGTERM) before the --until condition held; 1 a --stream run whose result event is an
error (is_error: error_max_turns, an API error...) although the condition held: the agent
says its run failed.

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
    .option('--allow-deaths', 'with --until: do not end when a session of the list dies holding work; wait until every session is over')
    .option(
      '--no-follow',
      "stay on a session's list after /clear (a watch with --until then ends with exit 6), instead of following the session to its new list",
    )
    .addHelpText('after', HELP)
    .action(async (opts: WatchOptions) => {
      const filter = filterFrom(opts, ctx);
      const until = opts.until === undefined ? undefined : parseUntil(opts.until);
      const timeoutMs = opts.timeout === undefined ? undefined : parseDuration('--timeout', opts.timeout);
      const stallMs = opts.failIfStalled === undefined ? undefined : parseDuration('--fail-if-stalled', opts.failIfStalled);
      // A watch that ends before it has looked says nothing true (run refuses it the same way).
      if (timeoutMs !== undefined && timeoutMs <= 0) throw usage('--timeout must be longer than 0');
      if (stallMs !== undefined && stallMs <= 0) throw usage('--fail-if-stalled must be longer than 0');
      const { session } = ctx.globals();
      if (opts.stream !== undefined && session !== undefined) {
        throw usage('--stream and --session cannot be used together: a stream names its own session');
      }
      if (opts.early && (opts.stream === undefined || until === undefined)) {
        throw usage("--early goes with --stream and --until: it ends a followed run's watch before the run ends");
      }
      const judge: JudgeWhen = opts.stream === undefined ? 'continuously' : opts.early ? 'once-run-acted' : 'at-run-end';
      await runWatch(ctx, {
        filter,
        until,
        timeoutMs,
        stallMs,
        stream: opts.stream,
        session,
        judge,
        allowDeaths: Boolean(opts.allowDeaths),
        follow: opts.follow,
      });
    });
}
