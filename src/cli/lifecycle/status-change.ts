/**
 * What commands that change a task's state share beyond their flags: `start` and `done`
 * as the updates they are, and a word on stderr when a task starts or completes with
 * its blockers still open.
 */
import { updateTaskWithLifecycle } from '../../core/lifecycle/task-lifecycle.js';
import { parseTaskId } from '../../core/store/ids.js';
import type { Status } from '../../core/store/schema.js';
import { fieldChanges } from '../../core/watch/watch-diff.js';
import { renderJson } from '../../render/json.js';
import { renderUnchangedMessage, renderUpdateMessage } from '../../render/update-message.js';
import type { App } from '../runtime/app.js';
import { runLifecycle, type LifecycleFlags } from '../flags/lifecycle-flags.js';
import { warnOpenBlockers } from './open-blockers-warning.js';

/**
 * `tasks start <id>` and `tasks done <id>`: `update <id> --status <status>`, the two
 * updates made most, with everything update does for them (hooks on completion, open
 * blockers said on stderr) and the same output.
 */
export async function changeStatus(app: App, rawId: string, status: Status, flags: LifecycleFlags): Promise<void> {
  const id = parseTaskId(rawId);
  const choice = app.list(true);
  const updated = await runLifecycle(app, choice, flags, (ctx, report) => updateTaskWithLifecycle(ctx, id, { status }, undefined, report));
  if (updated === undefined) return;
  const { result } = updated;
  if (result.changed.length > 0) warnOpenBlockers(app, choice.dir, result.task);
  if (app.json) app.out(renderJson(result.task));
  else if (result.changed.length === 0) app.out(renderUnchangedMessage(choice.id, id));
  else if (app.isTTY) app.out(renderUpdateMessage(choice.id, result.task, fieldChanges(result.before, result.task), app.style));
  else app.out(`Updated task #${id} ${result.changed.join(', ')}`);
}
