import path from 'node:path';
import { TasksError } from '../base/errors.js';
import { homeOfUser } from '../base/user-home.js';

/**
 * Where things live (docs/task-store.md sections 1-2). Pure: env and home come in as
 * arguments.
 */

export interface ConfigSources {
  /** `--config-dir` */
  flag?: string | undefined;
  /** `$CLAUDE_CONFIG_DIR`; an empty string is used as is, as Claude Code does */
  env?: string | undefined;
  home: string;
  /** The folder a relative path is read from; the process's working directory when not given. */
  cwd?: string | undefined;
}

export function resolveConfigDir({ flag, env, home, cwd }: ConfigSources): string {
  const resolve = (p: string) => (cwd === undefined ? path.resolve(p) : path.resolve(cwd, p));
  // `--config-dir=~/x` reaches us with its `~`: a shell expands it only at a word's start.
  if (flag !== undefined) return resolve(expandHome(flag, home));
  if (env !== undefined) return resolve(env);
  return path.join(home, '.claude');
}

/**
 * A path typed after `=` (`--config-dir=~/x`, `--output=~/out.md`) keeps its `~`: shells
 * expand it only at the start of a word. `~` and `~/...` are the home directory, `~user`
 * and `~user/...` that user's (as a shell finds it: base/user-home.ts); an unknown user,
 * or a `~` inside, is left as it is. The environment's values are not expanded: a shell
 * has done that, and Claude Code takes them as they are.
 */
export function expandHome(p: string, home: string, homeOf: (user: string) => string | undefined = homeOfUser): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return path.join(home, p.slice(2));
  const user = /^~([^/]+)(\/.*)?$/.exec(p);
  const dir = user?.[1] === undefined ? undefined : homeOf(user[1]);
  return dir === undefined ? p : path.join(dir, user?.[2] ?? '');
}

/** Claude Code's own rule; also what keeps a list id from escaping `tasks/`. */
export function sanitizeListId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, '-');
}

export function tasksRoot(configDir: string): string {
  return path.join(configDir, 'tasks');
}

export function listDirOf(configDir: string, listId: string): string {
  return path.join(tasksRoot(configDir), sanitizeListId(listId));
}

function taskFileName(id: string): string {
  return `${id}.json`;
}

/**
 * The file of task `id`. Ids also come from file contents (`blocks`, `blockedBy`, `id`),
 * which anyone can edit: only a positive decimal may become a file name, so that
 * `"../../x"` can never reach outside the list folder.
 */
export function taskPath(listDir: string, id: string): string {
  if (!/^[1-9][0-9]*$/.test(id)) {
    throw new TasksError('corrupt', `"${id}" is not a task id; refusing to use it as a file name`, { details: { id } });
  }
  return path.join(listDir, taskFileName(id));
}

export const LIST_LOCK_TARGET = '.lock';
export const HIGH_WATER_MARK = '.highwatermark';

/** A task file is `<positive decimal>.json`; anything else in the folder is not ours to parse as a task id. */
const TASK_FILE = /^([1-9][0-9]*)\.json$/;

export function idFromFileName(name: string): string | undefined {
  return TASK_FILE.exec(name)?.[1];
}
