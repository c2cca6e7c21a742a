import path from 'node:path';

/**
 * The user's state folder for tasks (the XDG base directory rule): `$XDG_STATE_HOME/tasks`
 * when that is an absolute path, else `~/.local/state/tasks`; undefined when neither can
 * be known. What is kept there: notify's sent state, the board's URL.
 */
export function tasksStateDir(where: { xdgStateHome?: string | undefined; home?: string | undefined }): string | undefined {
  const xdg = where.xdgStateHome;
  if (xdg !== undefined && xdg !== '' && path.isAbsolute(xdg)) return path.join(xdg, 'tasks');
  if (where.home !== undefined && where.home !== '' && path.isAbsolute(where.home))
    return path.join(where.home, '.local', 'state', 'tasks');
  return undefined;
}
