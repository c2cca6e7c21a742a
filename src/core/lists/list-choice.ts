/**
 * Lists: which lists exist, which one a command works on (this file, spec sections
 * 1 and 10), a summary of each for `tasks lists` (list-summary.ts), and the filters that
 * narrow a list's tasks (task-filter.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { TasksError, errnoCode } from '../base/errors.js';
import { listDirOf, sanitizeListId, tasksRoot } from '../store/paths.js';

/**
 * Which lists exist and which one a command works on. Kept free of zod and of task
 * parsing (list-summary.ts re-exports it), so that shell completion can choose a list as
 * every command does without loading them.
 */

/** The longest file name Linux and macOS file systems take: a list folder's name is one. */
export const MAX_LIST_ID_BYTES = 255;

/**
 * The folders under `<config>/tasks/`: `ids`, the lists (a folder name that is its own
 * sanitized id), and `foreign`, folders no list id can name (`we ird`, `a.b`): agents
 * never use them, and a list summary of one would be of a folder that `--list` cannot
 * reach. Both empty when there is no `tasks/` yet.
 */
export function listFolders(configDir: string): { ids: string[]; foreign: string[] } {
  let names: string[];
  try {
    names = fs
      .readdirSync(tasksRoot(configDir), { withFileTypes: true })
      // A symlinked list folder counts: agents follow it, and so do we.
      .filter((e) => e.isDirectory() || (e.isSymbolicLink() && isDirectory(path.join(tasksRoot(configDir), e.name))))
      .map((e) => e.name)
      .sort();
  } catch (err) {
    if (errnoCode(err) === 'ENOENT' || errnoCode(err) === 'ENOTDIR') return { ids: [], foreign: [] };
    throw new TasksError('io', `cannot read ${tasksRoot(configDir)}: ${(err as Error).message}`);
  }
  const usable = (name: string) => sanitizeListId(name) === name && name.length <= MAX_LIST_ID_BYTES;
  return { ids: names.filter(usable), foreign: names.filter((n) => !usable(n)) };
}

/** The lists under `<config>/tasks/`, by folder name; empty when there is none yet. */
export function listIds(configDir: string): string[] {
  return listFolders(configDir).ids;
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** When a list last changed: its folder (creates, deletes) and its task files (updates). */
export function lastChange(dir: string): number {
  let newest = 0;
  try {
    newest = fs.statSync(dir).mtimeMs;
    for (const name of fs.readdirSync(dir)) {
      if (!name.endsWith('.json')) continue;
      try {
        newest = Math.max(newest, fs.statSync(path.join(dir, name)).mtimeMs);
      } catch {
        // deleted meanwhile
      }
    }
  } catch {
    // folder vanished meanwhile
  }
  return newest;
}

export type ListChoice =
  | { id: string; dir: string; how: 'flag' | 'env' | 'only' }
  | { id: string; dir: string; how: 'most-recent'; candidates: string[] };

/**
 * Which list a command works on (design: never guess silently):
 * `--list`, else `$CLAUDE_CODE_TASK_LIST_ID`, else the only list there is. With several,
 * a read may take the most recently changed one (the caller says so on stderr), while a
 * mutation refuses and names the candidates.
 */
export function chooseList(
  configDir: string,
  opts: { flag?: string | undefined; env?: string | undefined; forWrite: boolean },
): ListChoice {
  if (opts.flag !== undefined) return pick(configDir, opts.flag, 'flag');
  if (opts.env !== undefined && opts.env !== '') return pick(configDir, opts.env, 'env');
  const ids = listIds(configDir);
  if (ids.length === 0) {
    if (!fs.existsSync(configDir)) {
      throw new TasksError('not_found', `config folder ${configDir} does not exist`, {
        hint: 'set --config-dir or CLAUDE_CONFIG_DIR to the folder Claude Code uses',
      });
    }
    throw new TasksError(opts.forWrite ? 'usage' : 'not_found', `no task lists under ${tasksRoot(configDir)}`, {
      hint: 'name one with --list <id> (or CLAUDE_CODE_TASK_LIST_ID)',
    });
  }
  if (ids.length === 1) return pick(configDir, ids[0] as string, 'only');
  const byRecency = ids
    .map((id) => ({ id, at: lastChange(listDirOf(configDir, id)) }))
    .sort((a, b) => b.at - a.at || a.id.localeCompare(b.id))
    .map((x) => x.id);
  if (opts.forWrite) {
    throw new TasksError('usage', `several task lists exist; choose one with --list: ${byRecency.join(', ')}`, {
      hint: 'or set CLAUDE_CODE_TASK_LIST_ID',
      details: { candidates: byRecency },
    });
  }
  const id = byRecency[0] as string;
  return { id, dir: listDirOf(configDir, id), how: 'most-recent', candidates: byRecency };
}

function pick(configDir: string, raw: string, how: 'flag' | 'env' | 'only'): ListChoice {
  if (raw === '') throw new TasksError('usage', 'the list id is empty');
  const id = sanitizeListId(raw);
  // Sanitized ids are ASCII: characters are bytes.
  if (id.length > MAX_LIST_ID_BYTES) {
    throw new TasksError('usage', `the list id is ${id.length} bytes long; a list folder name can hold at most ${MAX_LIST_ID_BYTES}`);
  }
  return { id, dir: listDirOf(configDir, id), how };
}
