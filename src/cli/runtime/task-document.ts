import type { Task } from '../../core/store/schema.js';
import { taskFileTimes } from '../../core/store/task-times.js';
import { type TaskJson, taskJson } from '../../render/task-json.js';

/** A task a command just read or wrote, as --json prints it: with its file's change time, read now. */
export function taskDocument(listDir: string, task: Task): TaskJson {
  return taskJson(task, taskFileTimes(listDir, [task.id]).get(task.id));
}
