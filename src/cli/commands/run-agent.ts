import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { Clock } from '../../core/base/clock.js';
import { isTasksError } from '../../core/base/errors.js';
import type { AgentProcess } from '../../core/runs/agent-process.js';
import { type AgentRunResult, runAgent } from '../../core/runs/agent-run.js';
import { runVerdict } from '../../core/runs/run-verdict.js';
import { formatUntil, parseUntil, UNTIL_FORMS } from '../../core/watch/watch-condition.js';
import { renderAgentExit, renderRunLine, runEndMessage } from '../../render/run-report.js';
import { parseDuration } from '../flags/duration-flags.js';
import { addFilterOptions, type FilterOptions, filterFrom } from '../flags/filter-flags.js';
import { type Context, usage } from '../runtime/context.js';
import { EXIT, exitCodeFor } from '../runtime/exit-codes.js';
import { watchSink } from '../watch/watch-sink.js';
import { agentTarget, stallWatch, type WatchTarget } from '../watch/watch-sources.js';
import { runVerdictError } from '../watch/watch-verdict.js';

interface RunOptions extends FilterOptions {
  until?: string;
  timeout?: string;
  failIfStalled?: string;
  record?: string;
  killAfter?: string;
}

const HELP = `
Runs the agent's command (after --) in a process group of its own, reads its stdout as
watch --stream reads a run (the same events, the same judgement: --until at the run's
result event, on the list as it is then), and ends the run when the verdict is known:

  the run's result      the agent is waited for (30s at most, then ended); exit 0 when
                        --until held then, 6 when it did not
  --fail-if-stalled D   nothing from the agent and no task changing for D: the agent's
                        group gets SIGTERM, SIGKILL after --kill-after; exit 7
  --timeout D           the same when D passes first; exit 124 (with or without --until)
  Ctrl-C, SIGTERM       the same; exit 130 (SIGINT), 143 (SIGTERM), 129 (SIGHUP);
                        a second signal kills the group at once
  the agent exits first its output ended without a result: exit 6 when work is left
                        unfinished (or --until was not met)

Without --until, the status is the agent's own (0 when it exited 0), or 6 as above. An
agent that fails having made no task leaves nothing to judge: tasks run exits with the
agent's own status and says so. A command that cannot be found exits 127, one that
cannot be run 126, as a shell would; an output that is not stream-json is said at its
first line, and with nothing to judge at the end is a usage error (2).

Whatever ends the run, no process of the agent's group is left running: what the agent
leaves behind when it exits is ended too. Should tasks run itself be killed (SIGKILL), a
guard in the agent's group notices and ends the group. (A process that starts a session
of its own, as a daemon does, has left the group.)

The agent gets tasks run's stdin and environment, with CLAUDE_CODE_TASK_LIST_ID set to
--list and CLAUDE_CONFIG_DIR to --config-dir when given. Its stderr is passed through
(with --json, each line is a note "agent_stderr"; in the live view, it is printed when
the view closes). --record FILE keeps its stdout, byte for byte (the stream-json run).

Output: as tasks watch (the live view in a terminal; NDJSON events piped or with --json),
then, in NDJSON, a last line (a reader that goes away, as | head -1 does, ends only the
events: the run goes on to its verdict, which is the status):
  {"event":"run","verdict":"passed|run-ended|stalled|timeout|interrupted|agent-failed|…",
   "exit":0,"list":"…","session":"…","agent":{"command":"claude","pid":…,"exitCode":0,
   "signal":null,"endedBy":"itself|SIGTERM|SIGKILL"},"record":"run.jsonl"}

Examples:
  tasks run --until all-completed --timeout 30m --fail-if-stalled 10m --record run.jsonl -- \\
    claude -p "fix the flaky tests" --output-format stream-json --verbose
  tasks -l ci-123 run --until all-completed -- claude -p "$PROMPT" --output-format stream-json --verbose`;

export function registerRun(program: Command, ctx: Context): void {
  const command = program
    .command('run')
    .usage('[options] -- <command...>')
    .description("run an agent's command and judge its run as watch --stream does; end it when the verdict is known")
    .argument('<command...>', 'the agent: claude -p ... --output-format stream-json --verbose')
    .allowUnknownOption();
  addFilterOptions(command, ['status', 'owner', 'unowned', 'ready', 'blocked', 'all'])
    .option('-u, --until <condition>', `the gate, judged at the run's result: ${UNTIL_FORMS.join(', ')}`)
    .option('-t, --timeout <duration>', 'end the agent and exit 124 when this passes first (durations: see tasks --help)')
    .option('--fail-if-stalled <duration>', 'end the agent and exit 7 when it is silent, with no task changing, this long')
    .option('--kill-after <duration>', 'after SIGTERM, how long the agent gets before SIGKILL (default 10s)')
    .option('--record <file>', "copy the agent's stdout (its stream-json run) to this file")
    .addHelpText('after', HELP)
    .action(async (words: string[], opts: RunOptions) => {
      if (!ctx.args.includes('--')) {
        throw usage(
          "put the agent's command after --",
          'tasks run --until all-completed -- claude -p "..." --output-format stream-json --verbose',
        );
      }
      if (ctx.globals().session !== undefined) throw usage('--session and run cannot be used together: the run names its own session');
      const [agentCommand, ...args] = words;
      if (agentCommand === undefined || agentCommand === '') throw usage('tasks run needs a command after --');
      const cwd = ctx.cwd;
      if (cwd === undefined) throw usage('tasks run: the current directory no longer exists');
      const filter = filterFrom(opts, ctx);
      const until = opts.until === undefined ? undefined : parseUntil(opts.until);
      const untilText = until ? formatUntil(until) : undefined;
      const timeoutMs = opts.timeout === undefined ? undefined : parseDuration('--timeout', opts.timeout);
      const stallMs = opts.failIfStalled === undefined ? undefined : parseDuration('--fail-if-stalled', opts.failIfStalled);
      if (stallMs !== undefined && stallMs <= 0) throw usage('--fail-if-stalled must be longer than 0');
      const killAfterMs = opts.killAfter === undefined ? 10_000 : parseDuration('--kill-after', opts.killAfter);
      const clock: Clock = { now: () => Date.now() };
      const live = !ctx.io.json && ctx.io.fullScreen;
      const held: string[] = [];
      const recordFd = opts.record === undefined ? undefined : openRecord(opts.record, cwd);

      const stop = new AbortController();
      let agent: AgentProcess | undefined;
      const lastResort = () => agent?.killNow();
      // The first signal stops the run (the agent gets SIGTERM, then the grace); another kills the group at once.
      const onSignal = (signal: NodeJS.Signals) => (stop.signal.aborted ? lastResort() : stop.abort(signal));
      for (const s of SIGNALS) process.on(s, onSignal);
      process.once('exit', lastResort);
      // A reader of the events that goes away (| head -1) does not end the agent's run: it
      // goes on to its verdict, which is the status; only the events are no longer written.
      const offReaderGone = ctx.io.onReaderGone(() => {});
      let target: WatchTarget | undefined;
      let result: AgentRunResult;
      try {
        result = await runAgent({
          agent: {
            command: agentCommand,
            args,
            cwd,
            env: agentEnv(ctx),
            stdin: ctx.io.stdin.fd === 0 ? 'inherit' : 'ignore',
            stderr: ctx.io.json || live ? 'pipe' : 'inherit',
            graceMs: killAfterMs,
          },
          killAfterMs,
          recordFd,
          stop: stop.signal,
          onStarted: (started) => (agent = started),
          watch: (output) => {
            target = agentTarget(ctx, output, clock);
            return {
              sink: watchSink(ctx, target, { until: untilText, timeoutMs, filter, clock, onQuit: () => stop.abort() }),
              options: {
                source: target.source,
                filter,
                until,
                judge: 'at-run-end',
                timeoutMs,
                stall: stallMs === undefined ? undefined : stallWatch(ctx, target, stallMs),
                clock,
                timers: { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (t) => clearTimeout(t as NodeJS.Timeout) },
              },
            };
          },
          onStderrLine: (line) => (live ? keepLast(held, line) : ctx.io.note(line, 'agent_stderr')),
          onNotStreamJson: (line) => ctx.io.warn(runEndMessage.notStreamJsonYet(line), 'not_stream_json'),
          onRecordError: (err) => ctx.io.warn(`--record ${opts.record}: ${err.message}; the run goes on without it`, 'record_failed'),
          onNote: (message, code, facts) => ctx.io.note(`note: ${message}`, code, facts),
        });
      } finally {
        for (const s of SIGNALS) process.off(s, onSignal);
        process.off('exit', lastResort);
      }
      if (held.length > 0) ctx.io.writeErr(`${held.join('\n')}\n`);
      const verdict = runVerdict(result, { until: until !== undefined });
      const { error, exit } = runVerdictError(verdict, result, { untilText, timeoutMs, command: agentCommand });
      const agentView = {
        command: agentCommand,
        pid: result.pid,
        exitCode: result.exit?.code ?? null,
        signal: result.exit?.signal ?? null,
        endedBy: result.endedBy,
      };
      const status = exit !== 0 ? exit : statusOf(error);
      if (!live) {
        ctx.io.out(
          renderRunLine({
            at: clock.now(),
            verdict: verdict.kind,
            exit: status,
            list: result.outcome?.view.list ?? target?.listId ?? null,
            session: target?.sessionId() ?? null,
            agent: agentView,
            record: opts.record ?? null,
          }),
        );
      }
      if (!ctx.io.json) ctx.io.note(`note: ${renderAgentExit(agentView)}`, 'agent_exit');
      if (error !== undefined) ctx.io.fail(error);
      ctx.io.exitWith(status);
      // Only now: the last line may meet the closed pipe too.
      offReaderGone();
    });
}

/** The status an error sets (as the IO reports it); 0: none. */
function statusOf(error: unknown): number {
  if (error === undefined) return 0;
  return isTasksError(error) ? exitCodeFor(error.code) : EXIT.failure;
}

/** The signals that end the run (SIGHUP: its terminal closed). */
const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** The live view holds the agent's stderr until it closes: its last lines. */
const HELD_LINES = 200;

function keepLast(held: string[], line: string): void {
  held.push(line);
  if (held.length > HELD_LINES) held.shift();
}

/** The agent's environment: ours, with the list and config folder named on the command line. */
function agentEnv(ctx: Context): Record<string, string | undefined> {
  const globals = ctx.globals();
  return {
    ...ctx.env,
    ...(globals.list === undefined ? {} : { CLAUDE_CODE_TASK_LIST_ID: globals.list }),
    ...(globals.configDir === undefined ? {} : { CLAUDE_CONFIG_DIR: ctx.configDir }),
  };
}

/** --record: made (or emptied) now, before the agent starts, so a bad path is said first. */
function openRecord(file: string, cwd: string): number {
  if (file === '') throw usage('--record needs a file');
  try {
    return fs.openSync(path.resolve(cwd, file), 'w');
  } catch (err) {
    throw usage(`--record ${file}: cannot write it (${(err as Error).message})`);
  }
}
