/**
 * What `tasks doctor` reports: why agents do not see or keep a list, each finding with
 * the exact fix, as a command to run or a settings change to make. Stable codes (the
 * docs/guide/sessions.md lists them); the other fields are flat, so `jq '.findings[].fixes[0].command'`
 * works.
 */
export const DOCTOR_CODES = [
  /** The session had no Task tools: its model is one the gate leaves out (docs/task-store.md section 12). */
  'task_tools_off',
  /** A Task-tool call of the session was answered "No such tool available": it lost (or never had) the tools. */
  'task_tools_unavailable',
  /** The session kept TodoWrite todos, not a task list (CLAUDE_CODE_ENABLE_TASKS false). */
  'todowrite_mode',
  /** `tasks` has CLAUDE_CODE_TASK_LIST_ID, but settings make the agents here use another list. */
  'list_variable_overridden',
  /** `tasks` has CLAUDE_CODE_TASK_LIST_ID naming no list, while the agents here used another (a typo). */
  'list_variable_unknown',
  /** `tasks` has CLAUDE_CODE_TASK_LIST_ID, but the agents here wrote to their own lists: they do not have it. */
  'list_variable_not_shared',
  /** Agents here worked on a list named by their environment, which `tasks` here does not choose. */
  'agents_list_not_chosen',
  /** A settings file binds a list that a file Claude Code reads first overrides. */
  'binding_shadowed',
  /** Project or local task hooks that are skipped here: the folder is not trusted. */
  'hooks_untrusted',
  /** `/clear` moved the session on: its unfinished tasks are no longer shown to the agent. */
  'list_stranded',
  /** Tasks the transcripts show are missing from the list (a reset, garbage collection, a removed folder). */
  'tasks_missing',
  /** Task files agents skip (invalid JSON, not a task, unreadable, misnamed). */
  'tasks_unreadable',
  /** A lock left behind, or dated in the future: agents' writes fail or wait. */
  'lock_problem',
  /** The list has used ids past what agents count exactly. */
  'ids_past_limit',
  /** The high-water mark is behind or unreadable: an id could be handed out twice. */
  'highwatermark_problem',
] as const;

export type DoctorCode = (typeof DOCTOR_CODES)[number];

/** A fix: a command to run as it is, a settings change (merge `snippet` into `file`), or a key to remove from a file. */
export type Fix =
  | { kind: 'command'; command: string; note?: string | undefined }
  | { kind: 'settings'; file: string; snippet: Record<string, unknown>; note?: string | undefined }
  | { kind: 'remove-setting'; file: string; key: string; note?: string | undefined };

export interface DoctorFinding {
  code: DoctorCode;
  message: string;
  /** The session, list or file it is about. */
  session?: string | undefined;
  list?: string | undefined;
  file?: string | undefined;
  /** The fixes, the preferred first. */
  fixes: Fix[];
}

export interface DoctorScope {
  kind: 'project' | 'session' | 'list';
  /** project: the directory whose sessions were looked at. */
  dir?: string | undefined;
  session?: string | undefined;
  list?: string | undefined;
}

/** A list looked at that is on a network filesystem: not a problem, but its machines' clocks must agree. */
export interface NetworkList {
  list: string;
  filesystem: string;
}

export interface DoctorReport {
  scope: DoctorScope;
  /** The sessions and lists looked at. */
  sessions: string[];
  lists: string[];
  findings: DoctorFinding[];
  /** The lists looked at that are on a network filesystem (NFS and the like). */
  networkLists: NetworkList[];
}

/** A POSIX shell word: plain when safe, else in single quotes. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** `tasks -l <list> <args>`, paste-able. */
export function tasksCommand(list: string | undefined, ...args: string[]): string {
  return ['tasks', ...(list === undefined ? [] : ['-l', shellWord(list)]), ...args].join(' ');
}
