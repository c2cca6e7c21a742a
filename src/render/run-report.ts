import type { ListCounts } from '../core/graph/blockers.js';
import type { RunVerdict } from '../core/runs/run-verdict.js';
import { formatLimit } from './duration.js';
import { renderJsonLine } from './json.js';
import { PLAIN } from './style.js';
import { renderSummary } from './task-table.js';

/** What `tasks run` says of the agent it ran, on stderr, and its last NDJSON line. */

export interface RunLineView {
  at: number;
  /** The run's verdict (core/runs/run-verdict.ts). */
  verdict: RunVerdict['kind'];
  /** The status `tasks run` exits with. */
  exit: number;
  /** The run's list (its id), as the watch ended with it; null: never known. */
  list: string | null;
  /** The run's session, named by the stream's first event; null: never named. */
  session: string | null;
  agent: {
    command: string;
    pid: number;
    /** Its exit status; null when a signal ended it (or it was never seen to exit). */
    exitCode: number | null;
    signal: string | null;
    /** Who ended it: itself, or tasks run with SIGTERM, or with SIGKILL. */
    endedBy: 'itself' | 'SIGTERM' | 'SIGKILL';
  };
  /** The run's `result` event (its subtype, is_error); null: the run had none. */
  result: { subtype: string | null; isError: boolean | null } | null;
  /** The record file, as given. */
  record: string | null;
}

/** `{"event":"run",...}`: after the watch's `end` event, the last line of a run's NDJSON. */
export function renderRunLine(view: RunLineView): string {
  return renderJsonLine({
    event: 'run',
    at: new Date(view.at).toISOString(),
    verdict: view.verdict,
    exit: view.exit,
    list: view.list,
    session: view.session,
    agent: view.agent,
    result: view.result,
    record: view.record,
  });
}

/**
 * "the agent (claude, pid 4242) exited with status 0" / "was ended with SIGTERM" / "was
 * killed by SIGKILL". `secondSignal`: a second signal to tasks run had the group killed
 * at once, whatever was left of the grace.
 */
export function renderAgentExit(agent: RunLineView['agent'], secondSignal = false): string {
  const who = `the agent (${agent.command}, pid ${agent.pid})`;
  if (agent.endedBy === 'SIGKILL' && secondSignal) return `${who} was killed with SIGKILL at a second signal`;
  if (agent.endedBy === 'SIGKILL') return `${who} did not end on SIGTERM within the grace: killed with SIGKILL`;
  if (agent.endedBy === 'SIGTERM') return `${who} was ended with SIGTERM`;
  if (agent.signal !== null) return `${who} was ended by ${agent.signal} (not sent by tasks)`;
  if (agent.exitCode === null) return `${who} did not report its exit`;
  return `${who} exited with status ${agent.exitCode}`;
}

/** The errors a run ends with where the watch's own do not say it. */
export const runEndMessage = {
  timeout: (timeoutMs: number, counts: ListCounts): string =>
    `timed out after ${formatLimit(timeoutMs)} before the run ended: the agent was ended; ${renderSummary(counts, PLAIN)}`,
  unfinished: (unfinished: number, counts: ListCounts): string =>
    `the agent exited before its run's result, with ${unfinished} ${unfinished === 1 ? 'task' : 'tasks'} unfinished; ${renderSummary(counts, PLAIN)}`,
  agentFailed: (command: string, status: number, why: string): string =>
    `${command} exited with status ${status}${why}; tasks run exits with its status`,
  /** The agent said its run failed (an error result, a non-zero exit), though `held` (the --until condition) held. */
  agentSaidFailed: (
    command: string,
    status: number,
    exit: { code: number | null; signal: string | null } | undefined,
    result: { subtype?: string | undefined; isError?: boolean | undefined } | undefined,
    held: string | undefined,
  ): string => {
    const said: string[] = [];
    if (result?.isError === true) said.push(`its run's result is an error (${result.subtype ?? 'no subtype'})`);
    if (exit?.code !== null && exit?.code !== undefined && exit.code !== 0) said.push(`it exited with status ${exit.code}`);
    else if (exit?.signal) said.push(`it was ended by ${exit.signal}`);
    const despite = held === undefined ? '' : `, though ${held} held`;
    return `${command} says its run failed: ${said.join(' and ')}${despite}; tasks run exits with status ${status}`;
  },
  notStreamJson: (command: string): string =>
    `${command}'s output was not stream-json: nothing could be judged (run claude with -p --output-format stream-json --verbose)`,
  notStreamJsonYet: (line: string): string =>
    `the agent's output is not stream-json (its first line: ${JSON.stringify(line)}); run claude with -p --output-format stream-json --verbose`,
  interrupted: (signal: string | undefined): string =>
    `${signal === undefined ? 'stopped' : `stopped by ${signal}`}: the agent's process group was ended`,
};
