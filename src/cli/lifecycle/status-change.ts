import { updateWithNudge } from '../../core/progress/update-nudge.js';
import { parseTaskId } from '../../core/store/ids.js';
import type { Status } from '../../core/store/schema.js';
import { renderNote } from '../../render/note.js';
import type { LifecycleFlags } from '../flags/lifecycle-flags.js';
import type { Context } from '../runtime/context.js';
import { runLifecycle } from './run-lifecycle.js';
import { reportUpdate } from './update-report.js';

/**
 * `tasks start <id>` and `tasks done <id>`: `update <id> --status <status>`, the two
 * updates made most, with everything update does for them (hooks on completion, open
 * blockers said on stderr, the verification nudge when `done` closes out the list) and
 * the same output.
 */
export async function changeStatus(ctx: Context, rawId: string, status: Status, flags: LifecycleFlags): Promise<void> {
  const id = parseTaskId(rawId);
  const choice = ctx.list(true);
  const updated = await runLifecycle(ctx, choice, flags, (lifecycle, report) =>
    updateWithNudge(lifecycle, id, { status }, undefined, report),
  );
  if (updated === undefined) return;
  const { result, nudge } = updated;
  reportUpdate(ctx, choice, result, { warnBlockers: result.changed.length > 0 });
  if (nudge) ctx.io.note(renderNote(nudge.message), nudge.code);
}
