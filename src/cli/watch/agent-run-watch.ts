import fs from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { Clock } from '../../core/base/clock.js';
import { isTasksError } from '../../core/base/errors.js';
import { withinMs } from '../../core/base/process-group.js';
import { requireTasksRootFolder } from '../../core/lists/list-choice.js';
import type { TaskFilter } from '../../core/lists/task-filter.js';
import type { AgentProcess } from '../../core/runs/agent-process.js';
import { type AgentRunResult, runAgent } from '../../core/runs/agent-run.js';
import { runVerdict } from '../../core/runs/run-verdict.js';
import { listDirOf } from '../../core/store/paths.js';
import { formatUntil, type UntilCondition } from '../../core/watch/watch-condition.js';
import { shellWord } from '../../render/list-choice-note.js';
import { renderNote } from '../../render/note.js';
import { renderAgentExit, renderRunLine, runEndMessage } from '../../render/run-report.js';
import { renderEndedHolding } from '../../render/watch-outcome.js';
import { type Context, usage } from '../runtime/context.js';
import { EXIT, exitCodeFor } from '../runtime/exit-codes.js';
import { missingListWords } from './missing-list-words.js';
import { WaitingLine } from './run-waiting-line.js';
import { noteChangedNothing, noteRunDied } from './watch-run.js';
import { watchSink } from './watch-sink.js';
import { agentTarget, runListId, stallWatch, type WatchTarget } from './watch-sources.js';
import { runVerdictError } from './watch-verdict.js';

/** A `tasks run` as its flags ask for it, checked. */
export interface AgentRunPlan {
  /** The agent's command and its arguments (after --). */
  command: string;
  args: string[];
  cwd: string;
  filter: TaskFilter;
  until?: UntilCondition | undefined;
  timeoutMs?: number | undefined;
  /** `--fail-if-stalled`. */
  stallMs?: number | undefined;
  /** After SIGTERM, how long the agent's group gets before SIGKILL. */
  killAfterMs: number;
  /** `--record FILE`. */
  record?: string | undefined;
}

/**
 * One `tasks run`: the agent started in its own process group (core's agent run), its
 * output shown as a watch shows a run (the live view in a terminal, else NDJSON), the
 * signals to tasks run as the run's stop, and what the run came to turned into its last
 * line and its exit status.
 */
export async function runAgentWatch(ctx: Context, plan: AgentRunPlan): Promise<void> {
  const { filter, until, timeoutMs, stallMs, killAfterMs } = plan;
  const untilText = until ? formatUntil(until) : undefined;
  const clock: Clock = { now: () => Date.now() };
  const live = !ctx.io.json && ctx.io.fullScreen;
  // Off a terminal, the agent's stderr is passed on through this process: a reader that
  // goes away (2>&1 | head -1) then ends only what it reads, never the agent, which would
  // meet the closed pipe itself (SIGPIPE) were it handed our stderr.
  const relayed = !ctx.io.json && !live && !ctx.io.stderrIsTTY;
  const held: string[] = [];
  const stderrText = new StringDecoder('utf8');
  // Refused before the agent starts: a file where the lists go (the config folder itself may not exist yet).
  requireTasksRootFolder(ctx.configDir);
  const recordFd = plan.record === undefined ? undefined : openRecord(plan.record, plan.cwd);

  const stop = new AbortController();
  let agent: AgentProcess | undefined;
  const lastResort = () => agent?.killNow();
  let secondSignal = false;
  // The first signal stops the run (the agent gets SIGTERM, then the grace); another kills the group at once.
  const onSignal = (signal: NodeJS.Signals) => {
    if (!stop.signal.aborted) return stop.abort(signal);
    secondSignal = true;
    lastResort();
  };
  for (const s of SIGNALS) process.on(s, onSignal);
  process.once('exit', lastResort);
  // A reader of the events that goes away (| head -1) does not end the agent's run: it
  // goes on to its verdict, which is the status; only the events are no longer written.
  const offReaderGone = ctx.io.onReaderGone(() => {});
  // In a terminal (stdout and stderr both), a line says what the run waits for until its view can begin.
  let waiting: WaitingLine | undefined;
  let missingList: { after: number; words(id: string): string | undefined } | undefined;
  const aside = (say: () => void) => {
    waiting?.clear();
    say();
  };
  let target: WatchTarget | undefined;
  let result: AgentRunResult;
  try {
    result = await runAgent({
      agent: {
        command: plan.command,
        args: plan.args,
        cwd: plan.cwd,
        env: agentEnv(ctx),
        stdin: ctx.io.stdin.fd === 0 ? 'inherit' : 'ignore',
        stderr: ctx.io.json || live || relayed ? 'pipe' : 'inherit',
        graceMs: killAfterMs,
      },
      killAfterMs,
      recordFd,
      stop: stop.signal,
      onStarted: (started) => {
        agent = started;
        if (!live) return;
        const named = runListId(ctx);
        const startedAt = clock.now();
        missingList = named === undefined ? undefined : { after: startedAt + MISSING_SAY_MS, words: missingListWords(ctx, named) };
        if (!ctx.io.stderrIsTTY) return;
        const missingNow = () =>
          named !== undefined &&
          missingList !== undefined &&
          clock.now() >= missingList.after &&
          !fs.existsSync(listDirOf(ctx.configDir, named))
            ? missingList.words(named)
            : undefined;
        waiting = new WaitingLine({ write: (text) => ctx.io.writeErr(text), columns: () => ctx.io.noteColumns }, clock, () => ({
          command: plan.command,
          pid: started.pid,
          listNamed: named !== undefined,
          elapsedMs: clock.now() - startedAt,
          missing: missingNow(),
        }));
        waiting.start();
      },
      watch: (output) => {
        target = agentTarget(ctx, output, clock, {
          pid: () => agent?.pid,
          // Its output ended: its process ends with it, unless it closed its output and went on.
          exit: () => (agent === undefined ? Promise.resolve(undefined) : withinMs(agent.exited, EXIT_SEEN_MS, undefined)),
          exited: () => agent?.exitStatus !== undefined,
        });
        return {
          sink: watchSink(ctx, target, {
            until: untilText,
            timeoutMs,
            filter,
            clock,
            onQuit: () => stop.abort(),
            missingList,
            beforeView: () => waiting?.stop(),
          }),
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
      onStderrChunk: relayed ? (chunk) => ctx.io.writeErr(stderrText.write(chunk)) : undefined,
      onNotStreamJson: (line) => aside(() => ctx.io.warn(runEndMessage.notStreamJsonYet(line), 'not_stream_json')),
      onRecordError: (err) =>
        aside(() => ctx.io.warn(`--record ${plan.record}: ${err.message}; the run goes on without it`, 'record_failed')),
      onNote: (message, code, facts) => aside(() => ctx.io.note(`note: ${message}`, code, facts)),
    });
  } finally {
    waiting?.stop();
    for (const s of SIGNALS) process.off(s, onSignal);
    process.off('exit', lastResort);
  }
  const stderrRest = stderrText.end();
  if (stderrRest !== '') ctx.io.writeErr(stderrRest);
  if (held.length > 0) ctx.io.writeErr(`${held.join('\n')}\n`);
  const verdict = runVerdict(result, { until: until !== undefined });
  const { error, exit } = runVerdictError(verdict, result, { untilText, timeoutMs, stallMs, command: plan.command });
  const agentView = {
    command: plan.command,
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
        result: runResult(result),
        record: plan.record ?? null,
      }),
    );
  }
  if (!ctx.io.json) ctx.io.note(`note: ${renderAgentExit(agentView, secondSignal)}`, 'agent_exit');
  const list = result.outcome?.view.list ?? target?.listId;
  noteRunDied(ctx, result.outcome, list === undefined ? [] : ['-l', ctx.shortId(list)]);
  noteEndedHolding(ctx, result, target, list);
  noteChangedNothing(ctx, verdict.kind === 'passed' ? result.outcome : undefined, untilText, target?.listId);
  if (error !== undefined) ctx.io.fail(error);
  ctx.io.exitWith(status);
  // Only now: the last line may meet the closed pipe too.
  offReaderGone();
}

/**
 * The agent tasks run ended (stalled, the deadline, a signal) leaves what it took up in
 * progress, on a list no session will come back to: said with what gives it back.
 */
function noteEndedHolding(ctx: Context, result: AgentRunResult, target: WatchTarget | undefined, list: string | undefined): void {
  if (result.endedBy === 'itself' || list === undefined) return;
  const held = target?.runHeld?.() ?? [];
  if (held.length === 0) return;
  const release = ['tasks', '-l', shellWord(ctx.shortId(list)), 'release', ...held.map((t) => t.id)].join(' ');
  ctx.io.note(renderNote(renderEndedHolding(held, release)), 'run_ended_holding', { list, tasks: held.map((t) => t.id) });
}

/** The run's `result` event as the last line gives it; null: it had none. */
function runResult(result: AgentRunResult): { subtype: string | null; isError: boolean | null } | null {
  const end = result.outcome?.run;
  return end?.how === 'result' ? { subtype: end.subtype ?? null, isError: end.isError ?? null } : null;
}

/** The status an error sets (as the IO reports it); 0: none. */
function statusOf(error: unknown): number {
  if (error === undefined) return 0;
  return isTasksError(error) ? exitCodeFor(error.code) : EXIT.failure;
}

/** Once the agent's output ended holding work, how long its exit is waited for to say how it died. */
const EXIT_SEEN_MS = 2000;

/** The signals that end the run (SIGHUP: its terminal closed). */
const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** How long a list named may be missing before the run says so (an agent makes it at its first task: often seconds in). */
const MISSING_SAY_MS = 5000;

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
    ...(globals.list === undefined ? {} : { CLAUDE_CODE_TASK_LIST_ID: runListId(ctx) }),
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
