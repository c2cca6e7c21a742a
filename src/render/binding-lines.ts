import type { BindOutcome } from '../core/binding/bind-here.js';
import type { BindingTarget } from '../core/binding/binding-target.js';
import type { Binding } from '../core/binding/project-binding.js';
import type { ListUse } from '../core/lists/project-list.js';
import { tildePath } from './session-text.js';
import { oneLine } from './text.js';

/** What `tasks use` says on stderr: which sessions a binding reaches, and which file holds it. */

export interface BindingShown {
  home: string;
  short: (id: string) => string;
}

/** Which sessions a binding reaches: "in it or below" / "in it (not in its subfolders)". */
function where(target: BindingTarget): string {
  return target.reach === 'tree' ? 'in it or below' : 'in it (not in its subfolders)';
}

export function renderBound(
  wanted: { id: string; exists: boolean; near: readonly string[] },
  outcome: BindOutcome,
  shown: BindingShown,
): string {
  const { target, write } = outcome;
  const dir = tildePath(target.dir, shown.home);
  const near =
    wanted.near.length > 0 ? `; note: ${wanted.near.map((n) => `"${n}"`).join(', ')} exist${wanted.near.length === 1 ? 's' : ''}` : '';
  const fresh = wanted.exists ? '' : ` (a new list${near})`;
  const head = write.changed
    ? `bound ${dir} to list "${shown.short(wanted.id)}"`
    : `${dir} is already bound to list "${shown.short(wanted.id)}"`;
  const worktrees =
    target.worktrees.length > 0
      ? `; its worktrees read this file first too (${target.worktrees.map((w) => tildePath(w, shown.home)).join(', ')})`
      : '';
  return oneLine(
    `${head}${fresh}: Claude Code sessions started ${where(target)} use it, and so does tasks there (${tildePath(target.file, shown.home)})${worktrees}`,
  );
}

export function renderUnbound(outcome: BindOutcome, shown: BindingShown): string {
  const { target, write, after } = outcome;
  const dir = tildePath(target.dir, shown.home);
  const first = write.changed
    ? `unbound ${dir}: Claude Code sessions started ${where(target)} use their own lists again`
    : `${tildePath(target.file, shown.home)} binds no list; nothing changed`;
  const still =
    after.binding?.listId !== undefined
      ? `; still bound to "${shown.short(after.binding.listId)}" by ${tildePath(after.binding.file, shown.home)}, which tasks use does not change`
      : '';
  return oneLine(`${first}${still}`);
}

/** `tasks use` with no list: the binding in effect here, or how to make one. */
export function renderBindingShown(binding: Binding | undefined, target: BindingTarget, shown: BindingShown): string {
  const dir = tildePath(target.dir, shown.home);
  if (binding === undefined)
    return oneLine(
      `no list is bound here; tasks use <list> binds one for Claude Code sessions started in ${dir} (${tildePath(target.file, shown.home)})`,
    );
  const file = tildePath(binding.file, shown.home);
  if (binding.listId === undefined)
    return oneLine(`${file} sets CLAUDE_CODE_TASK_LIST_ID to "${binding.value}": no list (sessions started here use their own)`);
  return oneLine(
    `bound by ${file} (${binding.scope} settings): Claude Code sessions started here use list "${shown.short(binding.listId)}"`,
  );
}

/**
 * The running sessions a binding moves: `running session 2d483082 (~/work/api) moves from
 * 2d483082 to "refactor" at its next task call; its tasks so far stay there`.
 */
export function renderSessionsMoved(
  moved: ReadonlyArray<{ session: { sessionId: string; cwd?: string | undefined }; from: string; to: string }>,
  shown: BindingShown,
): string {
  const parts = moved.map(
    (m) =>
      `${m.session.sessionId.slice(0, 8)}${m.session.cwd === undefined ? '' : ` (${tildePath(m.session.cwd, shown.home)})`} from "${shown.short(m.from)}" to "${shown.short(m.to)}"`,
  );
  const one = moved.length === 1;
  return oneLine(
    `running session${one ? '' : 's'} ${parts.join(', ')}: Claude Code reads the changed settings within about a second, so ${one ? 'it moves' : 'they move'} at ${one ? 'its' : 'their'} first task call after that; ${one ? 'its' : 'their'} tasks so far stay where they are`,
  );
}

/** `tasks use --json` with no list: the binding in effect, and the file a binding would go to. */
export function bindingShownJson(binding: Binding | undefined, target: BindingTarget) {
  return {
    list: binding?.listId ?? null,
    value: binding?.value ?? null,
    file: binding?.file ?? null,
    scope: binding?.scope ?? null,
    target: target.file,
  };
}

/** `tasks use <list> --json`, `tasks use --clear --json`: what was written, and the sessions it moves. */
export function listUseJson(use: ListUse) {
  const { wanted, outcome, moved } = use;
  return {
    list: wanted?.id ?? null,
    file: outcome.target.file,
    reach: outcome.target.reach,
    dir: outcome.target.dir,
    worktrees: outcome.target.worktrees,
    changed: outcome.write.changed,
    created: outcome.write.created,
    previous: outcome.write.previous === undefined ? null : String(outcome.write.previous),
    bound: outcome.after.binding?.listId ?? null,
    moved: moved.map((m) => ({ sessionId: m.session.sessionId, cwd: m.session.cwd ?? null, from: m.from, to: m.to })),
  };
}
