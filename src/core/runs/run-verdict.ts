import os from 'node:os';
import type { AgentExit } from './agent-process.js';
import type { AgentRunResult } from './agent-run.js';

/**
 * What a `tasks run` came to (pure): the watch's judgement where it gave one, else the
 * agent's own exit.
 *
 * - a signal to `tasks run` (or the live view's q): interrupted;
 * - the watch failed, stalled, or its deadline passed: that;
 * - the run ended (its `result`, or its output) with `--until`: when the condition held
 *   then, passed, unless the agent said its run failed (below); else the run ended first
 *   (6), unless the agent failed having made no task at all (nothing to judge: its own
 *   status);
 * - the run ended without `--until`: the run ended first (6) when its output ended
 *   before its `result` with work unfinished; else passed, unless the agent said its run
 *   failed;
 * - the agent says its run failed when its `result` is an error (`is_error`: max turns,
 *   an API error...) or it exited non-zero by itself: a gate never passes a run its own
 *   agent reports as failed, whatever the list shows. Its status is the agent's own, 1
 *   when it exited 0 (or was ended by tasks run after its result) with an error result;
 * - an output with no stream-json in it: nothing could be judged: the agent's failure
 *   when it failed, else a usage mistake.
 */
export type RunVerdict =
  | { kind: 'passed' }
  | { kind: 'interrupted'; signal: string | undefined }
  | { kind: 'error'; error: unknown }
  | { kind: 'stalled' }
  | { kind: 'timeout' }
  | { kind: 'run-ended'; unfinished: number }
  | { kind: 'agent-failed'; status: number }
  | { kind: 'not-stream-json' };

export function runVerdict(run: AgentRunResult, opts: { until: boolean }): RunVerdict {
  if (run.signal !== undefined) return { kind: 'interrupted', signal: run.signal };
  const outcome = run.outcome;
  if (outcome === undefined) return { kind: 'error', error: run.error };
  if (outcome.reason === 'stopped') return { kind: 'interrupted', signal: undefined };
  if (outcome.reason === 'stalled') return { kind: 'stalled' };
  if (outcome.reason === 'timeout') return { kind: 'timeout' };
  const status = agentStatus(run.exit);
  const failed = status !== undefined && status !== 0;
  if (!run.streamJson) return failed ? { kind: 'agent-failed', status } : { kind: 'not-stream-json' };
  const tasks = outcome.view.all;
  const unfinished = tasks.filter((t) => t.status !== 'completed').length;
  if (opts.until) {
    if (outcome.met) return agentSaidFailed(run) ?? { kind: 'passed' };
    if (failed && tasks.length === 0) return { kind: 'agent-failed', status };
    return { kind: 'run-ended', unfinished };
  }
  if (outcome.reason !== 'run-ended' && unfinished > 0) return { kind: 'run-ended', unfinished };
  if (failed) return { kind: 'agent-failed', status };
  return agentSaidFailed(run) ?? { kind: 'passed' };
}

/**
 * The agent's own word that its run failed: a non-zero exit of its own (not tasks run
 * ending it after its result), or a `result` event that is an error.
 */
function agentSaidFailed(run: AgentRunResult): RunVerdict | undefined {
  const status = run.endedBy === 'itself' ? agentStatus(run.exit) : undefined;
  if (status !== undefined && status !== 0) return { kind: 'agent-failed', status };
  if (run.outcome?.run?.isError === true) return { kind: 'agent-failed', status: 1 };
  return undefined;
}

/** An exit as a shell reports it: the status, or 128 + the number of the signal that ended it. */
export function agentStatus(exit: AgentExit | undefined): number | undefined {
  if (exit === undefined) return undefined;
  if (exit.code !== null) return exit.code;
  const number = exit.signal === null ? undefined : os.constants.signals[exit.signal];
  return number === undefined ? undefined : 128 + number;
}
