import type { TasksError } from '../base/errors.js';
import type { Binding } from '../binding/project-binding.js';
import type { SettingsPlaces } from '../binding/settings-files.js';
import type { SessionIndex, SessionInfo } from '../sessions/session-index.js';
import type { Todo } from '../sessions/transcript-tasks.js';

/** The shapes of the list choice (list-choice.ts): what is asked, and what was chosen and why. */
/** How a list was chosen: the first rule of the list choice that applied. */
export type ChoiceRule = 'flag' | 'flag-prefix' | 'session' | 'env' | 'binding' | 'project' | 'only' | 'most-recent';

export interface ListChoice {
  id: string;
  dir: string;
  how: ChoiceRule;
  /** Whether something is at the list's path now (a named list may not exist yet). */
  exists: boolean;
  /** The session the list belongs to, when the choice went through one. */
  session?: SessionInfo | undefined;
  /** The project rule: the directory whose sessions were looked at. */
  projectDir?: string | undefined;
  /** What was typed (a prefix resolved, a value of the variable or a binding as written). */
  typed?: string | undefined;
  /** Lists that could have been chosen instead (most recent first). */
  candidates?: string[] | undefined;
  /** The binding that chose it. */
  binding?: Binding | undefined;
  /**
   * A list that will be made by its first task and is used before: a live session's that
   * has made no task yet (a fresh session, or one just `/clear`ed), or the list a binding
   * names before a session started there makes it. It does not exist, reads show it
   * empty, and a write makes it, as the agent's own first TaskCreate would.
   */
  fresh?: boolean | undefined;
  /** Fresh because `tasks use` moved a running session to it (a recorded move), which has made no task there yet. */
  movedTo?: true | undefined;
  /** Lists of the sessions the chosen live session's process ran before it (`/clear`), newest first. */
  replaced?: string[] | undefined;
  /** A session that keeps TodoWrite todos and no list (`--session`): its todos, read-only. */
  todos?: Todo[] | undefined;
  /**
   * The project rule, with live sessions of the project on other lists too: those lists,
   * each with its session's opening prompt, most recently active first. A read shows the
   * latest active session's list; its note names these, so one agent's list is not taken
   * for all the work going on there.
   */
  liveOthers?: Array<{ list: string; prompt?: string | undefined }> | undefined;
  /** Several live sessions of the project have lists: what a gate (`watch --until`) is told, rather than run on the latest active one's. */
  gateRefusal?: TasksError | undefined;
  /** A dry run could not choose as a write must: what a real run would be told. */
  writeRefusal?: TasksError | undefined;
  /** What the user should know about the choice (a settings file that could not be read, a variable that settings override). */
  warnings: string[];
}

export interface ChooseListOptions {
  /** `--list`: a list id, or a unique prefix of a session UUID list. */
  flag?: string | undefined;
  /** `--list` names exactly this list, never a prefix. */
  exact?: boolean | undefined;
  /** `--session`: a session id, or a unique prefix of one. */
  session?: string | undefined;
  /** `$CLAUDE_CODE_TASK_LIST_ID` */
  env?: string | undefined;
  /** A change goes ahead only on a certain choice; a read may take the likeliest list. */
  forWrite: boolean;
  /** A dry run of a change: chosen as a read, never refused; `writeRefusal` says what a real run needs. */
  dryRun?: boolean | undefined;
  /** Where the command runs (undefined: a deleted directory, no project), and the home directory the project search stops below. */
  cwd: string | undefined;
  home: string;
  /** Where settings live, for the binding rule (undefined: no binding is read). */
  settings?: Omit<SettingsPlaces, 'configDir'> | undefined;
  index?: SessionIndex | undefined;
}
