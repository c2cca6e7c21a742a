import type { ListChoice } from '../../core/lists/list-choice.js';
import { fieldChanges } from '../../core/watch/watch-diff.js';
import type { UpdateResult } from '../../core/writes/task-writes.js';
import { renderJson } from '../../render/json.js';
import { renderUpdateResult } from '../../render/update-message.js';
import type { Context } from '../runtime/context.js';
import { taskDocument } from '../runtime/task-document.js';
import { warnOpenBlockers } from './open-blockers-warning.js';

/**
 * An update's outcome as `update`, `start` and `done` print it: open blockers said on
 * stderr (`warnBlockers`: the status moved on), then the task (--json) or what changed.
 */
export function reportUpdate(ctx: Context, choice: ListChoice, result: UpdateResult, o: { warnBlockers: boolean }): void {
  if (o.warnBlockers) warnOpenBlockers(ctx, choice.dir, result.task);
  if (ctx.io.json) ctx.io.out(renderJson(taskDocument(choice.dir, result.task)));
  else
    ctx.io.out(
      renderUpdateResult(
        ctx.shortId(choice.id),
        { ...result, changes: fieldChanges(result.before, result.task) },
        { human: ctx.io.humanLayout, style: ctx.io.style },
      ),
    );
}
