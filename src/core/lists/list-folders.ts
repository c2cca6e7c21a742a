import fs from 'node:fs';
import path from 'node:path';
import { errnoCode, TasksError } from '../base/errors.js';
import { isDirectory } from '../base/is-directory.js';
import { movedLists } from '../sessions/session-moves.js';
import { brokenLink } from '../store/broken-link.js';
import { listAliases } from '../store/list-aliases.js';
import { HIGH_WATER_MARK, listDirOf, sanitizeListId, tasksRoot } from '../store/paths.js';

/** The longest file name Linux and macOS file systems take: a list folder's name is one. */
export const MAX_LIST_ID_BYTES = 255;

/**
 * The entries of `<config>/tasks/`, with their types: one listing that what works over
 * every list (`lists`) passes on to listFolders and listAliases instead of each reading
 * the folder again. Empty when there is no `tasks/` yet (or it is no folder:
 * requireConfigDir says so).
 */
export function tasksEntries(configDir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(tasksRoot(configDir), { withFileTypes: true });
  } catch (err) {
    if (errnoCode(err) === 'ENOENT' || errnoCode(err) === 'ENOTDIR') return [];
    throw new TasksError('io', `cannot read ${tasksRoot(configDir)}: ${(err as Error).message}`);
  }
}

/**
 * The folders under `<config>/tasks/`: `ids`, the lists (a folder name that is its own
 * sanitized id), and `foreign`, folders no list id can name (`we ird`, `a.b`): agents
 * never use them, and a list summary of one would be of a folder that `--list` cannot
 * reach. Both empty when there is no `tasks/` yet. `entries`: the folder's listing, when
 * already read (tasksEntries).
 */
export function listFolders(
  configDir: string,
  entries: readonly fs.Dirent[] = tasksEntries(configDir),
): { ids: string[]; foreign: string[] } {
  const names = entries
    // A symlinked list folder counts: agents follow it, and so do we.
    .filter((e) => e.isDirectory() || (e.isSymbolicLink() && isDirectory(path.join(tasksRoot(configDir), e.name))))
    .map((e) => e.name)
    .sort();
  const usable = (name: string) => sanitizeListId(name) === name && name.length <= MAX_LIST_ID_BYTES;
  return { ids: names.filter(usable), foreign: names.filter((n) => !usable(n)) };
}

/**
 * What stands under `<config>/tasks/` that no list can be read from: a symbolic link to
 * nothing (a share not mounted), a link loop, a link to a file, a file. `lists` leaves
 * them out and says so, each with what it is: a list left out without a word looks like
 * a list that never was. Names that begin with a dot are tasks' own records beside the
 * lists (`.tasks-writes.jsonl`), never lists. `listed`: the folder's listing, when
 * already read (tasksEntries).
 */
export function unusableListEntries(configDir: string, listed?: readonly fs.Dirent[]): Array<{ name: string; what: string }> {
  const root = tasksRoot(configDir);
  let entries: readonly fs.Dirent[];
  try {
    entries = listed ?? fs.readdirSync(root, { withFileTypes: true });
  } catch {
    return []; // no tasks/ yet, or not a folder: requireConfigDir says so
  }
  const found: Array<{ name: string; what: string }> = [];
  for (const e of entries) {
    if (e.name.startsWith('.') || e.isDirectory()) continue;
    const p = path.join(root, e.name);
    if (e.isSymbolicLink()) {
      if (isDirectory(p)) continue;
      found.push({ name: e.name, what: brokenLink(p) ?? 'a symbolic link to something that is not a folder' });
    } else found.push({ name: e.name, what: e.isFile() ? 'a file, not a list folder' : 'not a folder' });
  }
  return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The lists under `<config>/tasks/`, by folder name; empty when there is none yet. */
export function listIds(configDir: string): string[] {
  return listFolders(configDir).ids;
}

/**
 * Every list with its folder, for `--all`, each folder once: one reached under other
 * names too (symlinks to it) goes by the name `tasks lists` shows (store/list-aliases.ts),
 * so nothing in it is counted twice. The config folder and its `tasks/` must be folders
 * (requireConfigDir).
 */
export function everyList(configDir: string): Array<{ id: string; dir: string }> {
  requireConfigDir(configDir);
  return listIdsOnce(configDir).map((id) => ({ id, dir: path.join(tasksRoot(configDir), id) }));
}

/**
 * Every list, as `tasks cost --all` covers them: every list folder, and every list a recorded move
 * took a running session to or from that has none yet (`tasks use` a new list, no task
 * made there): the session's messages there are that list's, unattributed.
 */
export function everyListMovedToo(configDir: string): Array<{ id: string; dir: string }> {
  const lists = everyList(configDir);
  for (const id of movedLists(configDir)) {
    const dir = listDirOf(configDir, id);
    if (!somethingAt(dir)) lists.push({ id, dir });
  }
  return lists;
}

/** The lists under `<config>/tasks/`, each folder once, by the name it goes by (store/list-aliases.ts): for what covers every list. */
export function listIdsOnce(configDir: string): string[] {
  const ids = listIds(configDir);
  const aliases = listAliases(configDir, ids);
  return aliases.size === 0 ? ids : ids.filter((id) => !aliases.has(id));
}

/** Anything at `p` (a file, a folder, a dangling link). */
export function somethingAt(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch (err) {
    return errnoCode(err) !== 'ENOENT';
  }
}

/**
 * When a list last changed: its newest task file (creates, updates) or its high-water
 * mark (deletes raise it). Never the folder's own time: locks are folders made and
 * removed in it, so a read-only agent or a refused change would move it. A folder with
 * neither (emptied by hand) falls back to its own time.
 */
export function lastChange(dir: string): number {
  let newest = 0;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return 0; // vanished meanwhile
  }
  for (const name of names) {
    if (!name.endsWith('.json') && name !== HIGH_WATER_MARK) continue;
    try {
      newest = Math.max(newest, fs.statSync(path.join(dir, name)).mtimeMs);
    } catch {
      // deleted meanwhile
    }
  }
  if (newest > 0) return newest;
  try {
    return fs.statSync(dir).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Every command works in a config folder that exists: one that does not is a wrong
 * `--config-dir` or `$CLAUDE_CONFIG_DIR` (or Claude Code never ran), for reads and
 * writes alike (not found), never an empty set of lists.
 */
export function requireConfigDir(configDir: string): void {
  if (isDirectory(configDir)) {
    requireTasksRootFolder(configDir);
    return;
  }
  if (somethingAt(configDir)) {
    throw new TasksError('not_found', `config folder ${configDir} is not a folder`, {
      hint: 'set --config-dir or CLAUDE_CONFIG_DIR to the folder Claude Code uses (~/.claude unless you moved it)',
      details: { configDir },
    });
  }
  throw new TasksError('not_found', `config folder ${configDir} does not exist`, {
    hint: 'set --config-dir or CLAUDE_CONFIG_DIR to the folder Claude Code uses (~/.claude unless you moved it)',
    details: { configDir },
  });
}

/**
 * `<config>/tasks` is the lists' folder, or not there yet (Claude Code makes it, as it
 * makes the config folder: a run may start before either exists). A file
 * (or a link to one) there is damage: no list can be read or made, and reading it as "no
 * lists yet" would let `lists` and a CI gate report nothing to do (exit 0).
 */
export function requireTasksRootFolder(configDir: string): void {
  const root = tasksRoot(configDir);
  if (isDirectory(root) || !somethingAt(root)) return;
  throw new TasksError('not_found', `${root} is not a folder, so there are no task lists: Claude Code keeps them in that folder`, {
    hint: `move ${root} away; Claude Code and tasks make the folder again`,
    details: { configDir, tasksRoot: root },
  });
}
