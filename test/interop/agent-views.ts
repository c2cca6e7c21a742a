import type { Task } from '../../src/core/store/schema.js';

/**
 * What the agents' TaskList and TaskGet tools show for a given set of task files, as
 * docs/task-store.md section 6.8 describes (and Claude Code 2.1.328 prints). Tests build
 * these from `tasks list --json` / `tasks get --json` and compare them with what the real
 * agent was told, so a disagreement between our reading of a list and the agent's shows
 * up exactly.
 */

export interface AgentListEntry {
  id: string;
  subject: string;
  status: string;
  owner?: string;
  blockedBy: string[];
}

/** TaskList's data: `_internal` tasks hidden; completed blockers left out (missing ones stay). */
export function taskListData(tasks: readonly Task[]): AgentListEntry[] {
  const visible = tasks.filter((t) => !t.metadata?._internal);
  const completed = new Set(visible.filter((t) => t.status === 'completed').map((t) => t.id));
  return visible.map((t) => ({
    id: t.id,
    subject: t.subject,
    status: t.status,
    ...(t.owner !== undefined ? { owner: t.owner } : {}),
    blockedBy: t.blockedBy.filter((id) => !completed.has(id)),
  }));
}

/** TaskList's text: `#4 [pending] Run tests (owner) [blocked by #2]`, one task a line. */
export function taskListText(tasks: readonly Task[]): string {
  const entries = taskListData(tasks);
  if (entries.length === 0) return 'No tasks found';
  return entries
    .map((e) => {
      const owner = e.owner ? ` (${e.owner})` : '';
      const blocked = e.blockedBy.length > 0 ? ` [blocked by ${e.blockedBy.map((id) => `#${id}`).join(', ')}]` : '';
      return `#${e.id} [${e.status}] ${e.subject}${owner}${blocked}`;
    })
    .join('\n');
}

/**
 * How a Claude Code release's TaskGet shows `blockedBy`: 2.1.328 shows it as stored;
 * 2.1.332 leaves completed blockers out (text and data), as TaskList does. First seen in
 * 2.1.332 (the registry's latest on 2026-11-30); 2.1.329 to 2.1.331 were not checked.
 */
export interface TaskGetView {
  /** Ids of the list's completed tasks, when this TaskGet leaves them out of `blockedBy`. */
  completed?: ReadonlySet<string>;
}

export function taskGetViewFor(version: string, tasks: Iterable<Task>): TaskGetView {
  const [major = 0, minor = 0, patch = 0] = version.split(/[.-]/).map(Number);
  const hides = major * 1e6 + minor * 1e3 + patch >= 2 * 1e6 + 1 * 1e3 + 332;
  if (!hides) return {};
  return { completed: new Set([...tasks].filter((t) => t.status === 'completed').map((t) => t.id)) };
}

function shownBlockers(task: Task, view: TaskGetView): string[] {
  return view.completed ? task.blockedBy.filter((id) => !view.completed?.has(id)) : task.blockedBy;
}

/** TaskGet's data: these fields only (no owner, no metadata), `blockedBy` as the release shows it. */
export function taskGetData(
  task: Task,
  view: TaskGetView = {},
): Pick<Task, 'id' | 'subject' | 'description' | 'status' | 'blocks' | 'blockedBy'> {
  return {
    id: task.id,
    subject: task.subject,
    description: task.description,
    status: task.status,
    blocks: task.blocks,
    blockedBy: shownBlockers(task, view),
  };
}

/** TaskGet's text. */
export function taskGetText(task: Task, view: TaskGetView = {}): string {
  const lines = [`Task #${task.id}: ${task.subject}`, `Status: ${task.status}`, `Description: ${task.description}`];
  const blockedBy = shownBlockers(task, view);
  if (blockedBy.length > 0) lines.push(`Blocked by: ${blockedBy.map((id) => `#${id}`).join(', ')}`);
  if (task.blocks.length > 0) lines.push(`Blocks: ${task.blocks.map((id) => `#${id}`).join(', ')}`);
  return lines.join('\n');
}
