import { describe, expect, it } from 'vitest';
import { indexTasks } from '../../src/core/graph/blockers.js';
import type { AgentRunResult } from '../../src/core/runs/agent-run.js';
import { agentStatus, runVerdict } from '../../src/core/runs/run-verdict.js';
import type { Task } from '../../src/core/store/schema.js';
import type { WatchOutcome } from '../../src/core/watch/watch-session.js';

const task = (id: string, status: Task['status']): Task => ({ id, subject: `T${id}`, description: '', status, blocks: [], blockedBy: [] });

function result(
  reason: WatchOutcome['reason'],
  o: {
    met?: boolean;
    tasks?: Task[];
    code?: number | null;
    signal?: NodeJS.Signals | null;
    streamJson?: boolean;
    stopped?: string;
    isError?: boolean;
    endedBy?: AgentRunResult['endedBy'];
  } = {},
): AgentRunResult {
  const all = o.tasks ?? [];
  return {
    outcome: {
      reason,
      met: o.met ?? false,
      ...(o.isError === undefined
        ? {}
        : { run: { how: 'result' as const, subtype: o.isError ? 'error_max_turns' : 'success', isError: o.isError } }),
      view: { at: 0, exists: true, all, index: indexTasks(all), shown: all, times: new Map(), problems: [], waiting: new Map() },
    },
    pid: 1,
    exit: { code: o.code === undefined ? 0 : o.code, signal: o.signal ?? null },
    endedBy: o.endedBy ?? 'itself',
    streamJson: o.streamJson ?? true,
    signal: o.stopped,
  };
}

describe('runVerdict: what a tasks run came to', () => {
  it('a signal, then what the watch ended with', () => {
    expect(runVerdict(result('run-ended', { met: true, stopped: 'SIGTERM' }), { until: true })).toEqual({
      kind: 'interrupted',
      signal: 'SIGTERM',
    });
    expect(runVerdict(result('stopped'), { until: true })).toEqual({ kind: 'interrupted', signal: undefined });
    expect(runVerdict(result('stalled'), { until: false }).kind).toBe('stalled');
    expect(runVerdict(result('timeout'), { until: false }).kind).toBe('timeout');
  });

  it('with --until: the condition at the run end; the agent failing with no task at all is its own status', () => {
    expect(runVerdict(result('run-ended', { met: true, isError: false }), { until: true }).kind).toBe('passed');
    expect(runVerdict(result('run-ended', { tasks: [task('1', 'pending')] }), { until: true })).toEqual({
      kind: 'run-ended',
      unfinished: 1,
    });
    expect(runVerdict(result('input-ended', { code: 2 }), { until: true })).toEqual({ kind: 'agent-failed', status: 2 });
    expect(runVerdict(result('input-ended', { code: 0 }), { until: true })).toEqual({ kind: 'run-ended', unfinished: 0 });
  });

  it('the condition held, but the agent says its run failed: its error result or its own non-zero exit', () => {
    const done = [task('1', 'completed')];
    expect(runVerdict(result('run-ended', { met: true, tasks: done, isError: true, code: 1 }), { until: true })).toEqual({
      kind: 'agent-failed',
      status: 1,
    });
    // An error result with exit 0 still fails (1); a clean result with a non-zero exit fails with the exit.
    expect(runVerdict(result('run-ended', { met: true, tasks: done, isError: true }), { until: true })).toEqual({
      kind: 'agent-failed',
      status: 1,
    });
    expect(runVerdict(result('run-ended', { met: true, tasks: done, isError: false, code: 3 }), { until: true })).toEqual({
      kind: 'agent-failed',
      status: 3,
    });
    // tasks run ending an agent that lingered after a clean result is not the agent failing.
    const lingered = result('run-ended', { met: true, tasks: done, isError: false, code: null, signal: 'SIGTERM', endedBy: 'SIGTERM' });
    expect(runVerdict(lingered, { until: true }).kind).toBe('passed');
    // Without --until too.
    expect(runVerdict(result('run-ended', { tasks: done, isError: true }), { until: false })).toEqual({ kind: 'agent-failed', status: 1 });
    expect(runVerdict(result('run-ended', { tasks: done, isError: false }), { until: false }).kind).toBe('passed');
  });

  it('without --until: the agent status, or 6 when it ended before its result with work unfinished', () => {
    const open = [task('1', 'in_progress'), task('2', 'completed')];
    expect(runVerdict(result('input-ended', { tasks: open }), { until: false })).toEqual({ kind: 'run-ended', unfinished: 1 });
    expect(runVerdict(result('run-ended', { tasks: open }), { until: false }).kind).toBe('passed');
    expect(runVerdict(result('run-ended', { tasks: open, code: 3 }), { until: false })).toEqual({ kind: 'agent-failed', status: 3 });
    expect(runVerdict(result('input-ended', { code: null, signal: 'SIGKILL' }), { until: false })).toEqual({
      kind: 'agent-failed',
      status: 137,
    });
  });

  it('an output with no stream-json: the agent failure, else a usage mistake', () => {
    expect(runVerdict(result('input-ended', { streamJson: false }), { until: true }).kind).toBe('not-stream-json');
    expect(runVerdict(result('input-ended', { streamJson: false, code: 1 }), { until: true })).toEqual({ kind: 'agent-failed', status: 1 });
  });

  it('agentStatus: as a shell reports it', () => {
    expect(agentStatus({ code: 0, signal: null })).toBe(0);
    expect(agentStatus({ code: null, signal: 'SIGTERM' })).toBe(143);
    expect(agentStatus(undefined)).toBe(undefined);
  });
});
