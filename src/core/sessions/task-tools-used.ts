import { forEachMatchingLine } from './transcript-lines.js';

/**
 * Which task tools a session has, from its transcript: the Task tools (it writes a list
 * folder named by its session, or the list it is told) or TodoWrite (its todos live only
 * in its transcript: docs/task-store.md section 9). Checked against 2.1.328 and 2.1.332:
 * before its first request the agent records the tools it was given, an attachment
 * `{"type":"deferred_tools_delta","addedNames":[...]}` naming TaskCreate ... TaskUpdate or
 * TodoWrite (CLAUDE_CODE_ENABLE_TASKS=0); its calls say it too. undefined: nothing says
 * (no such entry yet, an unreadable file, a session with neither).
 */
export type TaskTools = 'tasks' | 'todos';

const TASK_TOOLS = ['"TaskCreate"', '"TaskUpdate"', '"TaskList"', '"TaskGet"'];
const TODO_TOOL = '"TodoWrite"';

export function taskToolsUsed(transcript: string): TaskTools | undefined {
  let tasks = false;
  let todos = false;
  try {
    forEachMatchingLine(transcript, [...TASK_TOOLS, TODO_TOOL], (line) => {
      // Only what the agent was given or called counts, not a prompt that names a tool.
      if (!line.includes('"deferred_tools_delta"') && !line.includes('"tool_use"')) return;
      if (TASK_TOOLS.some((t) => line.includes(t))) tasks = true;
      if (line.includes(TODO_TOOL)) todos = true;
    });
  } catch {
    return undefined;
  }
  // Both: a session given the Task tools still writes its list there.
  return tasks ? 'tasks' : todos ? 'todos' : undefined;
}
