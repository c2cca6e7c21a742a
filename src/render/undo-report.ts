import { ABSENT } from '../core/base/absent.js';
import type { UndoAcrossResult } from '../core/history/undo-lists.js';
import type { UndoPlan, UndoStep } from '../core/history/undo-plan.js';
import { stamp } from './log-lines.js';
import { oneLine, truncate } from './text.js';

/** An absent field for a person or a JSON reader: null. */
const shown = (v: unknown): unknown => (v === ABSENT ? null : v);

function describe(plan: UndoPlan): string {
  const cmds = plan.commands;
  const first = cmds[0];
  if (first === undefined) return 'nothing';
  if (cmds.length === 1) return `${first.command} by ${oneLine(first.actor.name)} at ${stamp(first.at)}`;
  const counts = new Map<string, number>();
  for (const c of cmds) counts.set(c.command, (counts.get(c.command) ?? 0) + 1);
  const what = [...counts].map(([c, n]) => (n === 1 ? c : `${c} ×${n}`)).join(', ');
  const who = [...new Set(cmds.map((c) => oneLine(c.actor.name)))].join(', ');
  const times = cmds.map((c) => c.at).sort();
  return `${cmds.length} commands (${what}) by ${who} from ${stamp(times[0] as string)} to ${stamp(times.at(-1) as string)}`;
}

/** `undo` / `redo`: what was taken back or applied again (or would be), then a line a step. */
export function renderUndo(plan: UndoPlan, dryRun: boolean): string {
  const head = plan.finishing
    ? `${dryRun ? 'Would finish' : 'Finished'} the interrupted ${plan.action} of ${describe(plan)}`
    : `${dryRun ? `Would ${plan.action}` : plan.action === 'undo' ? 'Undid' : 'Redid'} ${describe(plan)}`;
  return [`${head}:`, ...stepLines(plan)].join('\n');
}

/**
 * An undo or redo across the lists its commands changed (a carry): this list's part, then
 * each other list's, headed by its name; or, when the run only finished the parts an
 * earlier run left behind in other lists, those.
 */
export function renderUndoAcross(result: UndoAcrossResult, dryRun: boolean, shortId: (id: string) => string): string {
  const parts = result.others.map((o) => `In list ${oneLine(shortId(o.list))}:\n${stepLines(o.result.plan).join('\n')}`);
  if (result.catchingUp) {
    const plan = result.here.plan;
    const head = `${dryRun ? 'Would finish' : 'Finished'} the ${plan.action} of ${describe(plan)} in the other lists it changed, stopped half-way before them`;
    return [`${head}:`, ...parts].join('\n');
  }
  return [renderUndo(result.here.plan, dryRun), ...parts].join('\n');
}

function stepLines(plan: UndoPlan): string[] {
  const kept = plan.kept.map((k) => `  (${oneLine(k)})`);
  return plan.steps.length === 0 && kept.length === 0
    ? ['  nothing left to write']
    : [...plan.steps.map((s) => `  ${stepText(s)}`), ...kept];
}

function stepText(step: UndoStep): string {
  switch (step.kind) {
    case 'delete':
      return `#${step.id} removed again: ${oneLine(step.task.subject)}`;
    case 'create':
      return `#${step.id} restored: ${oneLine(step.task.subject)}`;
    case 'rename':
      return `#${step.id}: ${oneLine(step.from)} moved to ${oneLine(step.to)}`;
    case 'mark':
      return `high-water mark raised to ${oneLine(step.new)}`;
    case 'update': {
      const fields = Object.entries(step.fields).map(([k, f]) => `${oneLine(k)} ${show(shown(f.old))} → ${show(shown(f.new))}`);
      return `#${step.id} ${fields.join(', ')}`;
    }
  }
}

function show(v: unknown): string {
  return v === null ? '(none)' : truncate(oneLine(typeof v === 'string' ? v : JSON.stringify(v)), 80);
}

/**
 * An undo took back the change that made the list, and the folder, left empty, went with it.
 * The plan's oldest command is the one that made it (a create, an import, a restore, a carry):
 * running it again, not redo, brings the list back.
 */
export function renderListRemoved(list: string, plan: UndoPlan): string {
  const made = oneLine(plan.commands.at(-1)?.command ?? 'create');
  return `list "${oneLine(list)}", which that change made, was left empty: removed (with its history: redo cannot bring it back; the same ${made} can)`;
}
