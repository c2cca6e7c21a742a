import fs from 'node:fs';
import path from 'node:path';
import { readBoundedText } from '../base/bounded-read.js';

/**
 * The git roots of a directory, found by looking for `.git` upwards (no git process: the
 * list choice runs on every command). `toplevel` is the working tree the directory is in;
 * `canonical` is the repository's main working tree: the same folder, except in a linked
 * worktree (`git worktree add`), whose `.git` file points into the main repository's
 * `.git/worktrees/<name>`. Claude Code keeps a repository's local settings at its
 * canonical root, for every worktree (settings-files.ts). A submodule, or a worktree of
 * a bare repository, has no main working tree: its own folder stands for it.
 */
export interface GitRoots {
  toplevel: string;
  canonical: string;
  /** A linked worktree of another working tree. */
  linked: boolean;
}

const SMALL = 64 * 1024;

export function gitRoots(dir: string): GitRoots | undefined {
  for (let cur = path.resolve(dir); ; cur = path.dirname(cur)) {
    const dotGit = path.join(cur, '.git');
    const stat = fs.lstatSync(dotGit, { throwIfNoEntry: false });
    if (stat?.isDirectory()) return { toplevel: cur, canonical: cur, linked: false };
    if (stat?.isFile()) return fromGitFile(cur, dotGit);
    if (path.dirname(cur) === cur) return undefined;
  }
}

/** A `.git` file: `gitdir: <path>`; a linked worktree's gitdir has a `commondir` file. */
function fromGitFile(toplevel: string, dotGit: string): GitRoots {
  const alone: GitRoots = { toplevel, canonical: toplevel, linked: false };
  const gitdir = readSmall(dotGit)?.match(/^gitdir: *(.+?)\s*$/m)?.[1];
  if (gitdir === undefined) return alone;
  const gitDir = path.resolve(toplevel, gitdir);
  const common = readSmall(path.join(gitDir, 'commondir'))?.trim();
  if (common === undefined || common === '') return alone;
  const commonDir = path.resolve(gitDir, common);
  if (path.basename(commonDir) !== '.git') return alone;
  return { toplevel, canonical: path.dirname(commonDir), linked: true };
}

function readSmall(file: string): string | undefined {
  try {
    return readBoundedText(file, SMALL);
  } catch {
    return undefined;
  }
}
