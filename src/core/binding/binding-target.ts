import fs from 'node:fs';
import path from 'node:path';
import { gitRoots } from './git-roots.js';
import { canonicalApplies, LOCAL_SETTINGS, type SettingsPlaces } from './settings-files.js';

/**
 * Where `tasks use` binds: the local settings file that Claude Code reads first for the
 * sessions started in the current directory, and which of them it reaches.
 *
 * - In a repository whose main working tree keeps the local settings (settings-files.ts):
 *   that root's file, read by every session started anywhere in the repository, in its
 *   linked worktrees too (before their own files).
 * - In a linked worktree: the directory's own file. Claude Code reads it, beneath the main
 *   checkout's, only for sessions started in that very directory: a list per worktree.
 * - Elsewhere (no repository, a repository at the home directory or of another user):
 *   the directory's own file, for sessions started in that very directory.
 */
export interface BindingTarget {
  file: string;
  /** `tree`: sessions started in `dir` or below; `folder`: in `dir` exactly. */
  reach: 'tree' | 'folder';
  dir: string;
  /** For a repository root: its linked worktrees, which read this file first too. */
  worktrees: string[];
}

export function bindingTarget(cwd: string, places: SettingsPlaces): BindingTarget {
  const here = path.resolve(cwd);
  const roots = gitRoots(here);
  if (roots !== undefined && !roots.linked && canonicalApplies(roots.canonical, places)) {
    return {
      file: path.join(roots.canonical, LOCAL_SETTINGS),
      reach: 'tree',
      dir: roots.canonical,
      worktrees: linkedWorktrees(roots.canonical),
    };
  }
  return { file: path.join(here, LOCAL_SETTINGS), reach: 'folder', dir: here, worktrees: [] };
}

/** `<root>/.git/worktrees/<name>/gitdir` names each linked worktree's `.git` file. */
function linkedWorktrees(root: string): string[] {
  const admin = path.join(root, '.git', 'worktrees');
  let names: string[];
  try {
    names = fs.readdirSync(admin);
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const name of names.sort()) {
    try {
      const gitFile = fs.readFileSync(path.join(admin, name, 'gitdir'), 'utf8').trim();
      if (gitFile !== '') found.push(path.dirname(path.resolve(admin, name, gitFile)));
    } catch {
      // a pruned or damaged worktree record
    }
  }
  return found;
}
