/**
 * Teams (docs/task-store.md section 8): reading team configs, which list is a team's, and
 * the team inboxes that an owner change writes to, under the inbox lock the agents take.
 */
import path from 'node:path';
import type { Task } from '../store/schema.js';
import { appendToInbox, type InboxMessage, inboxMessage, inboxPath } from './inbox.js';
import { listTeams, readTeam, type Team, type TeamProblem, teamDirName, teamListId, teamsRoot } from './team-config.js';

/**
 * Teams as `tasks` sees them: which list belongs to which team, who its members are,
 * and the `task_assignment` message an owner change sends
 * (docs/task-store.md section 8).
 */

export type { Team } from './team-config.js';

/**
 * The team whose task list is `listId` (a sanitized list id): a team config whose name,
 * sanitized as list ids are, is `listId`. The folder Claude Code would use is tried
 * first, then every team (a hand-made folder name still counts).
 */
export function teamForList(configDir: string, listId: string): Team | undefined {
  const likely = readTeam(path.join(teamsRoot(configDir), teamDirName(listId)));
  if (likely.kind === 'ok' && teamListId(likely.team.name) === listId) return likely.team;
  return listTeams(configDir).teams.find((t) => teamListId(t.name) === listId);
}

/** Member names, in config order. */
export function teamMembers(team: Team): string[] {
  return team.members.map((m) => m.name);
}

/** For `tasks lists`: list id -> team, and the team configs that could not be read. */
export function teamsByList(configDir: string): { byList: Map<string, Team>; problems: TeamProblem[] } {
  const { teams, problems } = listTeams(configDir);
  const byList = new Map<string, Team>();
  for (const team of teams) if (!byList.has(teamListId(team.name))) byList.set(teamListId(team.name), team);
  return { byList, problems };
}

/**
 * `--owner <name>` used as a filter: a warning (not an error) when nobody by that name is
 * a member of the list's team or owns a task in the list. Pure.
 */
export function unknownOwnerWarning(owner: string, tasks: readonly Pick<Task, 'owner'>[], team: Team | undefined): string | undefined {
  if (tasks.some((t) => t.owner === owner)) return undefined;
  if (team === undefined) {
    const owners = [...new Set(tasks.flatMap((t) => (t.owner ? [t.owner] : [])))].sort();
    return `nobody named "${owner}" owns a task in this list${owners.length > 0 ? ` (owners: ${owners.join(', ')})` : ''}`;
  }
  const members = teamMembers(team);
  if (members.includes(owner)) return undefined;
  return `"${owner}" is not a member of team "${team.name}" (members: ${members.join(', ') || 'none'}) and owns no task here`;
}

export interface Assignment {
  team: Team;
  task: Pick<Task, 'id' | 'subject' | 'description'>;
  /** The new owner: whose inbox gets the message. */
  owner: string;
  /** `from` and `assignedBy`; Claude Code's own fallback is "team-lead". */
  assignedBy: string;
  now: Date;
}

/** The `text` of a task_assignment message: JSON, in Claude Code's key order. Pure. */
export function assignmentText(a: Omit<Assignment, 'team'>): string {
  return JSON.stringify({
    type: 'task_assignment',
    taskId: a.task.id,
    subject: a.task.subject,
    description: a.task.description,
    assignedBy: a.assignedBy,
    timestamp: a.now.toISOString(),
  });
}

export interface Notification {
  owner: string;
  taskId: string;
  inbox: string;
  message: InboxMessage;
}

/**
 * Tell the new owner, as TaskUpdate does in a team: append a task_assignment message to
 * `<config>/teams/<sanitize(team)>/inboxes/<sanitize(owner)>.json` under the inbox lock.
 * No task lock is held meanwhile.
 */
export async function notifyAssignment(configDir: string, a: Assignment): Promise<Notification> {
  const inbox = inboxPath(configDir, a.team.name, a.owner);
  const message = inboxMessage(a.assignedBy, assignmentText(a), a.now.toISOString());
  await appendToInbox(inbox, message);
  return { owner: a.owner, taskId: a.task.id, inbox, message };
}
