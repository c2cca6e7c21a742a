import { type LifecycleContext, type LifecycleReport, updateTaskWithLifecycle } from '../lifecycle/task-lifecycle.js';
import { readList } from '../store/list-read.js';
import type { TaskPatch } from '../store/patch.js';
import { type Preconditions, preconditionGuard } from '../writes/preconditions.js';
import type { UpdateResult } from '../writes/task-writes.js';
import { nudgeAfterCompletion, type VerificationNudge } from './verification-nudge.js';

/**
 * An update a person asks for, in their lifecycle (hooks on completion, a new owner
 * told), checked against `preconditions` inside the task lock; and when it completed the
 * list's last task, the nudge Claude Code's agents would get to verify.
 */
export async function updateWithNudge(
  lifecycle: LifecycleContext,
  id: string,
  patch: TaskPatch,
  preconditions: Preconditions | undefined,
  report: LifecycleReport,
): Promise<{ result: UpdateResult; nudge?: VerificationNudge | undefined }> {
  const before = patch.status === 'completed' ? readList(lifecycle.listDir).tasks : undefined;
  const { result } = await updateTaskWithLifecycle(lifecycle, id, patch, preconditionGuard(preconditions), report);
  // This completion closed out the list: Claude Code's agents would be told to verify.
  const nudge = before && result.changed.includes('status') ? nudgeAfterCompletion(before, readList(lifecycle.listDir).tasks) : undefined;
  return { result, nudge };
}
