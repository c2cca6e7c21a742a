import type { BlockerAnswers, TaskBlockers } from '../core/graph/blockers.js';

const NONE: TaskBlockers = Object.freeze({ open: [], done: [], missing: [], blocked: false });

/** A task's blockers as core answered them for the view; a task the answers do not hold shows none. */
export function blockersOf(answers: BlockerAnswers, id: string): TaskBlockers {
  return answers.get(id) ?? NONE;
}
