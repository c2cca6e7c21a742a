import fs from 'node:fs';
import { isTasksError, TasksError } from '../core/base/errors.js';
import { planGoneRelease, releaseGoneTargets } from '../core/history/gone-release.js';
import type { SessionIndex } from '../core/sessions/session-index.js';
import { listDirOf } from '../core/store/paths.js';
import { renderLiveInProject, renderNoneGone, renderReleaseLine } from '../render/release-lines.js';
import type { GonePreviewPayload } from './board-protocol.js';

/**
 * Releasing the tasks of gone owners from the board: `tasks release --gone`, with its
 * guard. What would be released, and the live session that may take the work up, are
 * core's answer (history/gone-release.ts), the same as the command's; nothing is gone
 * while any sign of life of the list remains. While a session of the list or of its
 * project is live, the release needs the person's confirmation, as the command needs
 * `--force`. Each task is released under its lock only if the owner shown still holds it.
 */
export interface GoneContext {
  configDir: string;
  person: string | undefined;
  home: string;
}

const exists = (configDir: string, listId: string) => fs.existsSync(listDirOf(configDir, listId));

/** `release --gone --dry-run`: the tasks it would release, and what it would ask --force for. */
export function gonePreview(index: SessionIndex, ctx: GoneContext, listId: string): GonePreviewPayload {
  let plan: ReturnType<typeof planGoneRelease>;
  try {
    plan = planGoneRelease(index, ctx.configDir, listId, ctx.person, exists(ctx.configDir, listId));
  } catch (err) {
    // A list whose folder is now a file or a FIFO has nothing to release: the page says why.
    if (!isTasksError(err)) throw err;
    return { why: null, targets: [], live: null, none: err.message };
  }
  return {
    why: plan.gone?.why ?? plan.why.values().next().value?.why ?? null,
    targets: plan.targets.map((t) => ({ id: t.id, owner: t.owner ?? '', subject: t.subject, status: t.status })),
    live: plan.live.length === 0 ? null : renderLiveInProject(plan.live, ctx.home),
    none: plan.targets.length > 0 ? null : renderNoneGone({ gone: plan.gone !== undefined, alive: plan.alive }),
  };
}

/**
 * Release the tasks shown (`ids`) that a gone owner still holds. Refused whole (409) when
 * none of them is, or when a live session may take the work up and `force` is not given.
 */
export async function releaseGoneAction(
  index: SessionIndex,
  ctx: GoneContext,
  req: { list: string; ids: string[]; force: boolean },
): Promise<{ message: string; lines: string[]; warnings: string[] }> {
  const dir = listDirOf(ctx.configDir, req.list);
  const plan = planGoneRelease(index, ctx.configDir, req.list, ctx.person, exists(ctx.configDir, req.list));
  const shown = new Set(req.ids);
  const targets = plan.targets.filter((t) => shown.has(t.id));
  const left = req.ids.filter((id) => !targets.some((t) => t.id === id));
  if (targets.length === 0) {
    const why = plan.targets.length === 0 ? renderNoneGone({ gone: plan.gone !== undefined, alive: plan.alive }) : 'none of them';
    throw new TasksError('conflict', `none of the tasks shown is held by a gone owner now (${why}); nothing released`, {
      details: { precondition: 'gone' },
    });
  }
  if (plan.live.length > 0 && !req.force) {
    throw new TasksError('conflict', `${renderLiveInProject(plan.live, ctx.home)}; nothing released: confirm to release anyway`, {
      details: { precondition: 'no-live-session' },
    });
  }
  const lines: string[] = [];
  const warnings = left.map((id) => `#${id} is no longer held by a gone owner: left as it is`);
  await releaseGoneTargets(dir, targets, (id, outcome) => {
    // Taken over meanwhile (another owner, or completed): left alone, as release --gone leaves it.
    if (outcome instanceof Error) warnings.push(`#${id}: ${outcome.message}`);
    else lines.push(renderReleaseLine(outcome, plan.why.get(id)));
  });
  const n = lines.length;
  const why = plan.gone?.why ?? plan.why.get(targets[0]?.id ?? '')?.why ?? '';
  return { message: `Released ${n} task${n === 1 ? '' : 's'} of gone owners (${why})`, lines, warnings };
}
