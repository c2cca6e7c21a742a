import { shownValue, type UndoPlan, type UndoStep } from '../core/history/undo-plan.js';
import { stamp } from './log-lines.js';
import { oneLine } from './text.js';

/** `undo`: the change taken back (or that would be), then a line a task. */
export function renderUndo(plan: UndoPlan, dryRun: boolean): string {
  const head = `${dryRun ? 'Would undo' : 'Undid'} ${plan.command} by ${oneLine(plan.actor.name)} at ${stamp(plan.at)}:`;
  return [head, ...plan.steps.map((s) => `  ${undoStepText(s)}`)].join('\n');
}

function undoStepText(step: UndoStep): string {
  if (step.kind === 'delete') return `#${step.id} removed again: ${oneLine(step.task.subject)}`;
  if (step.kind === 'restore') return `#${step.id} restored: ${oneLine(step.task.subject)}`;
  const fields = Object.entries(step.fields).map(([k, { from, to }]) => `${k} ${show(shownValue(from))} → ${show(shownValue(to))}`);
  return `#${step.id} ${fields.join(', ')}`;
}

function show(v: unknown): string {
  return v === null ? '(none)' : oneLine(typeof v === 'string' ? v : JSON.stringify(v));
}

/** `undo --json`. */
export function undoJson(plan: UndoPlan, dryRun: boolean) {
  return {
    undone: !dryRun,
    txn: plan.txn,
    command: plan.command,
    actor: plan.actor,
    at: plan.at,
    steps: plan.steps.map((s) =>
      s.kind === 'revert'
        ? {
            kind: s.kind,
            id: s.id,
            fields: Object.fromEntries(Object.entries(s.fields).map(([k, f]) => [k, { from: shownValue(f.from), to: shownValue(f.to) }])),
          }
        : { kind: s.kind, id: s.id, task: s.task },
    ),
  };
}
