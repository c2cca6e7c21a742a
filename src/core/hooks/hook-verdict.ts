import type { HookProcessResult } from './hook-process.js';
import type { TaskHookEvent } from './hook-settings.js';

/**
 * What one hook's run means, by Claude Code's rules (checked against 2.1.328):
 * - exit 0: allowed, unless stdout is a JSON object with `"decision": "block"` (its
 *   `reason`, else "Blocked by hook");
 * - exit 2: blocked; stderr is the reason ("No stderr output" when empty). Except for
 *   TaskCompleted: exit 2 with no stdout and a stderr saying "No such file" / "can't
 *   open" is a missing hook script (`sh missing.sh` exits 2), a non-blocking error;
 * - any other exit, a signal, a failure to start: a non-blocking error (a warning);
 * - a timeout: the hook is killed and it is a non-blocking error, as Claude Code treats it;
 * - an interrupt (Ctrl-C): the command stops.
 */
export type HookVerdict =
  | { kind: 'allow' }
  | { kind: 'block'; reason: string }
  | { kind: 'error'; message: string }
  | { kind: 'timeout'; seconds: number }
  | { kind: 'interrupted' };

const MISSING_SCRIPT = /no such file|can't open/i;

export function judgeHookRun(event: TaskHookEvent, run: HookProcessResult, timeoutSeconds: number): HookVerdict {
  if (run.interrupted) return { kind: 'interrupted' };
  if (run.timedOut) return { kind: 'timeout', seconds: timeoutSeconds };
  if (run.spawnError !== undefined) return { kind: 'error', message: `could not start: ${run.spawnError}` };
  if (run.code === 0) {
    const decision = jsonDecision(run.stdout);
    if (decision?.decision === 'block') {
      const reason = typeof decision.reason === 'string' && decision.reason.trim() !== '' ? decision.reason : 'Blocked by hook';
      return { kind: 'block', reason };
    }
    return { kind: 'allow' };
  }
  if (run.code === 2) {
    if (event === 'TaskCompleted' && run.stdout.trim() === '' && MISSING_SCRIPT.test(run.stderr)) {
      return { kind: 'error', message: `the hook script appears to be missing (exit 2: ${firstLine(run.stderr)})` };
    }
    const reason = run.stderr.trim();
    return { kind: 'block', reason: reason === '' ? 'No stderr output' : reason };
  }
  if (run.code === null) return { kind: 'error', message: `ended by ${run.signal ?? 'a signal'}` };
  const detail = firstLine(run.stderr);
  return { kind: 'error', message: `exited ${run.code}${detail === '' ? '' : `: ${detail}`}` };
}

/** A JSON object on stdout (Claude Code reads it when stdout starts with `{`). */
function jsonDecision(stdout: string): { decision?: unknown; reason?: unknown } | undefined {
  const text = stdout.trim();
  if (!text.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as { decision?: unknown }) : undefined;
  } catch {
    return undefined;
  }
}

function firstLine(text: string): string {
  return (text.trim().split('\n')[0] ?? '').trim();
}
