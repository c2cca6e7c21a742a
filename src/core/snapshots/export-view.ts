import { type BlockerAnswers, blockerAnswers, countTasks, indexTasks, type ListCounts, type TaskIndex } from '../graph/blockers.js';
import { readChosen } from '../lists/chosen-tasks.js';
import type { ListChoice } from '../lists/list-choice-types.js';
import { filterTasks, type TaskFilter } from '../lists/task-filter.js';
import type { FileProblem } from '../store/list-read.js';
import type { Task } from '../store/schema.js';
import { toTodoWrite } from './export-todowrite.js';

export const EXPORT_FORMATS = ['todowrite', 'json', 'jsonl', 'markdown'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** A list as `tasks export` writes it, in each format's terms. */
export interface ExportView {
  /** Files skipped as unreadable (agents skip them too). */
  problems: FileProblem[];
  /** The tasks exported: those the filters pass, in id order. */
  tasks: Task[];
  /** Each task's change time (json, jsonl: `updatedAt`). */
  times?: ReadonlyMap<string, number> | undefined;
  /** todowrite: the snapshot, and what it could not keep (several in progress...). */
  todoWrite?: ReturnType<typeof toTodoWrite> | undefined;
  /** markdown: every task of the list by id, the exported tasks' blockers and their counts. */
  checklist?: { index: TaskIndex; blockers: BlockerAnswers; counts: ListCounts } | undefined;
}

/** The chosen list's tasks that `filter` passes, with what `format` needs of them. */
export function exportView(choice: ListChoice, filter: TaskFilter, format: ExportFormat): ExportView {
  const snapshot = readChosen(choice, { times: format === 'json' || format === 'jsonl' });
  const index = indexTasks(snapshot.tasks);
  const tasks = filterTasks(snapshot.tasks, filter, index);
  return {
    problems: snapshot.problems,
    tasks,
    times: snapshot.times,
    todoWrite: format === 'todowrite' ? toTodoWrite(tasks) : undefined,
    checklist: format === 'markdown' ? { index, blockers: blockerAnswers(tasks, index), counts: countTasks(tasks, index) } : undefined,
  };
}
