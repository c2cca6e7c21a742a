import { updateTaskWithLifecycle } from '../../core/lifecycle/task-lifecycle.js';
import { parseTaskId } from '../../core/store/ids.js';
import type { Status } from '../../core/store/schema.js';
import type { LifecycleFlags } from '../flags/lifecycle-flags.js';
import type { Context } from '../runtime/context.js';
import { runLifecycle } from './run-lifecycle.js';
import { reportUpdate } from './update-report.js';

/**
 * `tasks start <id>` and `tasks done <id>`: `update <id> --status <status>`, the two
 * updates made most, with everything update does for them (hooks on completion, open
 * blockers said on stderr) and the same output.
 */
export async function changeStatus(ctx: Context, rawId: string, status: Status, flags: LifecycleFlags): Promise<void> {
  const id = parseTaskId(rawId);
  const choice = ctx.list(true);
  const updated = await runLifecycle(ctx, choice, flags, (lifecycle, report) =>
    updateTaskWithLifecycle(lifecycle, id, { status }, undefined, report),
  );
  if (updated === undefined) return;
  const { result } = updated;
  reportUpdate(ctx, choice, result, { warnBlockers: result.changed.length > 0 });
}
