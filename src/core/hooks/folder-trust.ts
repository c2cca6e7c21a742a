import fs from 'node:fs';
import path from 'node:path';
import { MAX_INBOX_BYTES, readBoundedText } from '../base/bounded-read.js';

/**
 * Folder trust, as Claude Code 2.1.328 records and reads it (checked against the binary):
 * accepting the trust dialog in a folder writes
 * `projects["<folder>"].hasTrustDialogAccepted: true` into its global config file
 * (`$CLAUDE_CONFIG_DIR/.claude.json`, else `~/.claude.json`). A folder is trusted when it,
 * or a folder above it, has that record, looking no higher than the root of the git
 * repository it is in (a record above the repository does not count); outside a
 * repository, up to `/`. `CLAUDE_CODE_SANDBOXED` set trusts every folder.
 */

export type TrustVerdict =
  | { trusted: true; by: string }
  | {
      trusted: false;
      /** The folder whose record would trust this one: the repository root, else the folder. */
      recordKey: string;
      /** The file that holds the records. */
      configFile: string;
    };

export interface TrustSources {
  globalConfigFile: string;
  sandboxed: boolean;
}

export function folderTrust(folder: string, sources: TrustSources): TrustVerdict {
  const start = path.resolve(folder);
  const root = gitRoot(start);
  const refused = { trusted: false as const, recordKey: root ?? start, configFile: sources.globalConfigFile };
  if (sources.sandboxed) return { trusted: true, by: 'CLAUDE_CODE_SANDBOXED' };
  const projects = trustRecords(sources.globalConfigFile);
  if (projects === undefined) return refused;
  // The folder as given and as resolved (a symlinked checkout is recorded either way).
  for (const from of new Set([start, realOrSelf(start)])) {
    const bound = from === start ? root : gitRoot(from);
    for (let dir = from; ; ) {
      if (isTrusted(projects, dir)) return { trusted: true, by: dir };
      const parent = path.dirname(dir);
      if (dir === bound || parent === dir) break;
      dir = parent;
    }
  }
  return refused;
}

function isTrusted(projects: Record<string, unknown>, dir: string): boolean {
  if (!Object.hasOwn(projects, dir)) return false;
  const record = projects[dir];
  return typeof record === 'object' && record !== null && (record as { hasTrustDialogAccepted?: unknown }).hasTrustDialogAccepted === true;
}

/** `projects` of the global config; undefined when it is missing or unreadable (nothing is trusted). */
function trustRecords(file: string): Record<string, unknown> | undefined {
  try {
    // The global config grows with every project ever opened; bounded all the same.
    const parsed = JSON.parse(readBoundedText(file, MAX_INBOX_BYTES)) as unknown;
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const projects = (parsed as { projects?: unknown }).projects;
    return typeof projects === 'object' && projects !== null && !Array.isArray(projects)
      ? (projects as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The nearest folder at or above `dir` holding a `.git` (a folder, or a worktree's file). */
function gitRoot(dir: string): string | undefined {
  for (let cur = dir; ; ) {
    try {
      fs.lstatSync(path.join(cur, '.git'));
      return cur;
    } catch {
      // not here
    }
    const parent = path.dirname(cur);
    if (parent === cur) return undefined;
    cur = parent;
  }
}

function realOrSelf(dir: string): string {
  try {
    return fs.realpathSync(dir);
  } catch {
    return dir;
  }
}
