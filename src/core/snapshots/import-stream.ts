import { TasksError } from '../base/errors.js';
import type { Snapshot } from './import-snapshot.js';
import { count, todosToItems } from './import-todowrite.js';
import { type JsonLine, streamEvents } from './stream-events.js';
import { replayTaskCalls } from './stream-tasks.js';
import { scanTodoSnapshots } from './stream-todos.js';
import { parseTodoItems } from './todo-schema.js';

/** A transcript has camelCase entries (`sessionId`, `isSidechain`, `toolUseResult`); stream-json, snake_case. */
export function streamKind(lines: readonly JsonLine[]): 'transcript' | 'stream-json' {
  const transcript = lines.some(({ value }) => 'toolUseResult' in value || 'isSidechain' in value || 'sessionId' in value);
  return transcript ? 'transcript' : 'stream-json';
}

/**
 * What a stream of Claude Code's JSON Lines ended with: its last TodoWrite snapshot, or,
 * when it used the Task tools, the task list those calls left. When it has both, the one
 * used last wins and the other is reported.
 */
export function snapshotFromStream(lines: readonly JsonLine[], format: 'transcript' | 'stream-json'): Snapshot {
  if (!lines.some(({ value }) => typeof value.type === 'string')) {
    throw new TasksError('usage', `not a Claude Code ${format}: no line has a "type" (expected assistant and user entries)`);
  }
  const events = streamEvents(lines);
  const todos = scanTodoSnapshots(events);
  const tasks = replayTaskCalls(events);
  const lastTodo = todos.candidates.at(-1);
  const usedTasks = tasks.created > 0;
  const warnings = [...tasks.warnings];
  const subagents = todos.subagentSnapshots > 0 ? `; ${count(todos.subagentSnapshots, 'subagent snapshot')} ignored` : '';

  if (lastTodo && (!usedTasks || lastTodo.line > tasks.lastLine)) {
    if (usedTasks)
      warnings.push(
        `the Task tool calls in this ${format} (last at line ${tasks.lastLine}) come before its last TodoWrite (line ${lastTodo.line}): ignored`,
      );
    const items = parseTodoItems(
      lastTodo.todos,
      `line ${lastTodo.line}: ${lastTodo.from === 'input' ? 'TodoWrite todos' : 'TodoWrite result newTodos'}`,
    );
    const earlier = todos.candidates.length - 1;
    const found = `the last TodoWrite snapshot, line ${lastTodo.line} (${count(items.length)}${earlier > 0 ? `; ${count(earlier, 'earlier snapshot')} superseded` : ''}${subagents})`;
    if (items.length === 0) warnings.push(`the last TodoWrite snapshot (line ${lastTodo.line}) is empty: the agent cleared its list`);
    return { format, found, items: todosToItems(items), warnings };
  }
  if (usedTasks) {
    if (lastTodo)
      warnings.push(
        `the TodoWrite snapshots in this ${format} (last at line ${lastTodo.line}) come before its last Task tool call (line ${tasks.lastLine}): ignored`,
      );
    const changes = [`${tasks.created} created`, `${tasks.updated} updated`, `${tasks.deleted} deleted`].join(', ');
    const found = `Task tool calls (${changes}); the list they ended with: ${count(tasks.items.length, 'task')}`;
    return { format, found, items: tasks.items, refsAreIds: true, warnings };
  }
  const why =
    todos.subagentSnapshots > 0 ? ` (only subagents' TodoWrite snapshots: ${todos.subagentSnapshots}; theirs are separate lists)` : '';
  throw new TasksError('usage', `no TodoWrite snapshot and no Task tool calls in this ${format} (${count(lines.length, 'line')})${why}`);
}
