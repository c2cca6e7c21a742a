import { TasksError } from '../../core/base/errors.js';
import { countTasks, type ListCounts } from '../../core/graph/blockers.js';
import type { AgentRunResult } from '../../core/runs/agent-run.js';
import type { RunVerdict } from '../../core/runs/run-verdict.js';
import { shownWaiting, type WatchOutcome } from '../../core/watch/watch-session.js';
import { shellWord } from '../../render/list-choice-note.js';
import { runEndMessage } from '../../render/run-report.js';
import { countsJson, personWaitJson } from '../../render/task-json.js';
import { watchEndMessage } from '../../render/watch-outcome.js';
import { EXIT, SIGNAL_EXIT } from '../runtime/exit-codes.js';

/** A timeout while an agent waits at a permission prompt: how to unblock it. */
const ANSWER_IT = 'answer the prompt in that session (a headless run cannot be answered: give it the permissions it needs)';

/** A command for a hint, the list watched named (`listArgs`), so that pasted it acts on that list. */
function tasksCommand(listArgs: readonly string[] | undefined, ...words: string[]): string {
  return ['tasks', ...(listArgs ?? []).map(shellWord), ...words].join(' ');
}

/** How a watch that ended turns into an error (and so an exit status); undefined: it went well (0). */
export function verdictOf(
  outcome: WatchOutcome,
  opts: {
    untilText: string | undefined;
    timeoutMs: number | undefined;
    stallMs: number | undefined;
    /** How the message names the list watched (a session's by its short id). */
    listName?: string | undefined;
    /** What a hint's commands add to name the list watched (`-l <short id>`), so that pasted they act on it. */
    listArgs?: readonly string[] | undefined;
    /** `tasks run`: a stall is its agent's own output silent (WatchSource.activityOnly). */
    ownAgent?: boolean | undefined;
  },
): TasksError | undefined {
  const { untilText } = opts;
  const listCounts = countTasks(outcome.view.shown, outcome.view.index);
  const counts = countsJson(listCounts);
  // Without --until, a deadline is just how long to watch.
  if (outcome.reason === 'timeout' && untilText !== undefined) {
    // An agent at a permission prompt is why it waited: the message names it, for a CI log.
    const on = outcome.waiting;
    const ids = shownWaiting(outcome.view);
    const person = on && { on, ids, list: opts.listName };
    return new TasksError('timeout', watchEndMessage.timeout(opts.timeoutMs ?? 0, untilText, listCounts, person), {
      ...(on === undefined ? {} : { hint: ANSWER_IT }),
      details: { until: untilText, ...(on === undefined ? {} : { waiting: personWaitJson(on, ids) }), counts },
    });
  }
  if (outcome.reason === 'stalled') {
    const stalled = outcome.stalled ?? [];
    return new TasksError('stalled', watchEndMessage.stalled(stalled, listCounts, opts.stallMs, outcome.idleMs, opts.ownAgent), {
      hint:
        outcome.idleMs === undefined
          ? `is the agent stuck? ${tasksCommand(opts.listArgs, 'list', '--stalled')} shows such tasks`
          : 'is the agent stuck?',
      details: {
        stalled: stalled.map((s) => ({ id: s.id, idleMs: Math.round(s.idleMs) })),
        ...(outcome.idleMs === undefined ? {} : { idleMs: Math.round(outcome.idleMs) }),
        counts,
      },
    });
  }
  if (outcome.reason === 'session-died' && untilText !== undefined) {
    const died = outcome.died ?? [];
    return new TasksError('run_ended', watchEndMessage.died(died, untilText, listCounts), {
      hint: `${tasksCommand(opts.listArgs, 'release', ...died.flatMap((d) => d.tasks.map((t) => t.id)))} gives its tasks back; --allow-deaths waits on`,
      details: {
        until: untilText,
        reason: outcome.reason,
        died: died.map((d) => ({ sessionId: d.sessionId, state: d.state, pid: d.pid ?? null, tasks: d.tasks.map((t) => t.id) })),
        counts,
      },
    });
  }
  if (outcome.reason === 'session-cleared' && untilText !== undefined && outcome.cleared !== undefined) {
    const c = outcome.cleared;
    return new TasksError('run_ended', watchEndMessage.cleared(c.sessionId, c.sure, untilText, listCounts), {
      hint: `tasks --session ${c.newSessionId} carry --from ${c.from} brings its unfinished work to the new list; ${
        c.before ? `tasks watch -l ${c.to} follows the session there` : 'without --no-follow the watch follows the session'
      }`,
      details: {
        until: untilText,
        reason: outcome.reason,
        session: c.sessionId,
        newSession: c.newSessionId,
        sure: c.sure,
        to: c.to,
        counts,
      },
    });
  }
  if (outcome.reason === 'task-deleted' && untilText !== undefined && outcome.deleted !== undefined) {
    return new TasksError('task_deleted', watchEndMessage.deleted(outcome.deleted, untilText, listCounts), {
      details: { until: untilText, reason: outcome.reason, deleted: outcome.deleted, counts },
    });
  }
  if (outcome.reason === 'stopped' && untilText !== undefined && !outcome.met) {
    return new TasksError('interrupted', watchEndMessage.stopped(untilText, listCounts));
  }
  if (outcome.run?.isError === true && untilText !== undefined && outcome.met) {
    // The list looks done, but the run's own result says it failed: a gate must not pass it.
    return new TasksError('agent_failed', watchEndMessage.resultError(outcome.run.subtype, untilText, listCounts), {
      details: { until: untilText, result: outcome.run.subtype ?? null, isError: true, counts },
    });
  }
  if (outcome.run && untilText !== undefined && !outcome.met) {
    const message =
      outcome.deleted === undefined
        ? watchEndMessage.runEnded(outcome.reason, untilText, listCounts)
        : watchEndMessage.deleted(outcome.deleted, untilText, listCounts, 'run');
    return new TasksError(outcome.deleted === undefined ? 'run_ended' : 'task_deleted', message, {
      details: {
        until: untilText,
        reason: outcome.reason,
        result: outcome.run.subtype ?? null,
        counts,
        ...(outcome.gone === undefined ? {} : { gone: outcome.gone }),
        ...(outcome.deleted === undefined ? {} : { deleted: outcome.deleted }),
      },
    });
  }
  return undefined;
}

/**
 * How a `tasks run` that ended turns into an error and the status it exits with: the
 * watch's own errors where the watch judged (stalled, the condition at the run's end);
 * the agent's own status where it failed with nothing to judge, or said its run failed
 * (an error result, its own non-zero exit) whatever the list shows; 128 + the signal's
 * number for a signal.
 */
export function runVerdictError(
  verdict: RunVerdict,
  run: AgentRunResult,
  opts: { untilText: string | undefined; timeoutMs: number | undefined; stallMs: number | undefined; command: string },
): { error: unknown; exit: number } {
  // `exit`: the status the run comes to, whatever the error's own code would set (0: the error's).
  const outcome = run.outcome;
  const counts = outcome === undefined ? undefined : countTasks(outcome.view.shown, outcome.view.index);
  const watchError = () => (outcome === undefined ? undefined : verdictOf(outcome, { ...opts, ownAgent: true }));
  switch (verdict.kind) {
    case 'passed':
      return { error: undefined, exit: EXIT.ok };
    case 'interrupted':
      return {
        error: new TasksError('interrupted', runEndMessage.interrupted(verdict.signal)),
        exit: (verdict.signal === undefined ? undefined : SIGNAL_EXIT[verdict.signal]) ?? EXIT.interrupted,
      };
    case 'error':
      return { error: verdict.error, exit: EXIT.ok };
    case 'stalled':
      return { error: watchError(), exit: EXIT.stalled };
    case 'timeout':
      return {
        error:
          opts.untilText === undefined
            ? new TasksError('timeout', runEndMessage.timeout(opts.timeoutMs ?? 0, counts as ListCounts), {
                details: { counts: countsJson(counts as ListCounts) },
              })
            : watchError(),
        exit: EXIT.timeout,
      };
    case 'run-ended':
      return {
        error:
          opts.untilText === undefined
            ? new TasksError('run_ended', runEndMessage.unfinished(verdict.unfinished, counts as ListCounts), {
                details: { reason: outcome?.reason, counts: countsJson(counts as ListCounts) },
              })
            : watchError(),
        exit: EXIT.runEnded,
      };
    case 'agent-failed': {
      const result = outcome?.run?.how === 'result' ? outcome.run : undefined;
      const details = {
        status: verdict.status,
        signal: run.exit?.signal ?? null,
        ...(result === undefined ? {} : { result: result.subtype ?? null, isError: result.isError ?? null }),
      };
      if (result?.isError === true || (outcome?.met === true && opts.untilText !== undefined)) {
        // The agent's own word against a list that may look done: say both.
        const held = outcome?.met === true && opts.untilText !== undefined ? opts.untilText : undefined;
        return {
          error: new TasksError('agent_failed', runEndMessage.agentSaidFailed(opts.command, verdict.status, run.exit, result, held), {
            details,
          }),
          exit: verdict.status,
        };
      }
      const why = run.exit?.signal ? ` (ended by ${run.exit.signal})` : outcome?.view.all.length === 0 ? ', having made no task' : '';
      return {
        error: new TasksError('agent_failed', runEndMessage.agentFailed(opts.command, verdict.status, why), { details }),
        exit: verdict.status,
      };
    }
    case 'not-stream-json':
      return { error: new TasksError('usage', runEndMessage.notStreamJson(opts.command)), exit: EXIT.usage };
  }
}
