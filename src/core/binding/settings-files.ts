import fs from 'node:fs';
import path from 'node:path';
import { gitRoots } from './git-roots.js';

/**
 * The settings files whose `env` a Claude Code session started in a directory applies,
 * highest precedence first, as the 2.1.328 and 2.1.332 binaries resolve them (checked by
 * running them: see docs/guide/which-list.md):
 *
 * 1. managed settings (`managed-settings.json`, refined by `managed-settings.d/*.json`
 *    in name order: the last file to set a key wins);
 * 1b. the settings a session was started with (`--settings <file-or-json>`: inline JSON
 *    when it begins with `{` and ends with `}`, else a file, relative to where it was
 *    started); only for a running session, whose command line is known (sessions/);
 * 2. local settings at the local root: `<root>/.claude/settings.local.json`, where the
 *    root is the repository's main working tree (so a session started in a subfolder, or
 *    in a linked worktree, reads the main checkout's file), or the directory itself
 *    outside a repository, when the repository's root is the home directory, or when
 *    the root, its `.git` or its `.claude` belongs to another user;
 * 3. when the local root is not the directory itself: the directory's own
 *    `.claude/settings.local.json`, read beneath the root's key by key;
 * 4. project settings: the directory's own `.claude/settings.json` (never a parent's);
 * 5. user settings: `<config>/settings.json`.
 *
 * The process environment comes below all of them: a settings file's `env` overrides a
 * variable the session was started with. Claude Code skips a settings file over
 * SETTINGS_MAX_BYTES (2 MiB) whole.
 */
export type SettingsScope = 'managed' | 'flag' | 'local' | 'project' | 'user';

export interface SettingsFile {
  scope: SettingsScope;
  /** The file; for inline `--settings` JSON, the words `--settings`. */
  file: string;
  /** Inline `--settings` JSON: the settings themselves, no file to read. */
  text?: string | undefined;
}

/** `--settings <file-or-json>` of a running session, and the folder it was started in. */
export interface SettingsFlag {
  value: string;
  cwd: string;
}

/** What, besides the directory, says where settings live. */
export interface SettingsPlaces {
  configDir: string;
  /** The home directory, resolved (a repository rooted there keeps its settings per directory). */
  home: string;
  /** This user's uid; undefined where there is none (then the local root is the directory). */
  uid: number | undefined;
  /** The managed settings folder (/etc/claude-code on Linux); undefined: none is read. */
  managedDir?: string | undefined;
}

export const LOCAL_SETTINGS = path.join('.claude', 'settings.local.json');
export const PROJECT_SETTINGS = path.join('.claude', 'settings.json');

export function settingsFilesFor(cwd: string, places: SettingsPlaces, flag?: SettingsFlag): SettingsFile[] {
  const dir = path.resolve(cwd);
  const root = localRoot(dir, places);
  const files: SettingsFile[] = places.managedDir === undefined ? [] : managedFiles(places.managedDir).reverse();
  if (flag !== undefined) files.push(flagSettings(flag));
  files.push({ scope: 'local', file: path.join(root, LOCAL_SETTINGS) });
  if (root !== dir) files.push({ scope: 'local', file: path.join(dir, LOCAL_SETTINGS) });
  files.push({ scope: 'project', file: path.join(dir, PROJECT_SETTINGS) });
  files.push({ scope: 'user', file: path.join(places.configDir, 'settings.json') });
  return files;
}

/** `--settings`, as Claude Code takes it: trimmed, `{...}` is JSON, anything else a file path. */
export function flagSettings(flag: SettingsFlag): SettingsFile {
  const trimmed = flag.value.trim();
  if (trimmed.startsWith('{') && trimmed.endsWith('}')) return { scope: 'flag', file: '--settings', text: trimmed };
  return { scope: 'flag', file: path.resolve(flag.cwd, flag.value) };
}

/** Where Claude Code keeps the local settings of sessions started in `dir`. */
export function localRoot(dir: string, places: Pick<SettingsPlaces, 'home' | 'uid'>): string {
  const canonical = gitRoots(dir)?.canonical;
  return canonical !== undefined && canonicalApplies(canonical, places) ? canonical : dir;
}

/**
 * Does Claude Code keep local settings at this repository root for the sessions started
 * anywhere in it? Not when the root is the home directory (a dotfiles repository must not
 * capture every project), nor when the root, its `.git` or its `.claude` belongs to
 * another user, nor where there are no uids.
 */
export function canonicalApplies(canonical: string, places: Pick<SettingsPlaces, 'home' | 'uid'>): boolean {
  if (places.uid === undefined || canonical === places.home) return false;
  return ownedBy(canonical, places.uid);
}

/** The root, its `.git` and its `.claude` (when there is one) all belong to `uid`. */
function ownedBy(root: string, uid: number): boolean {
  try {
    if (fs.statSync(root).uid !== uid || fs.lstatSync(path.join(root, '.git')).uid !== uid) return false;
    const claude = fs.lstatSync(path.join(root, '.claude'), { throwIfNoEntry: false });
    return claude === undefined || claude.uid === uid;
  } catch {
    return false;
  }
}

function managedFiles(managedDir: string): SettingsFile[] {
  const files: SettingsFile[] = [{ scope: 'managed', file: path.join(managedDir, 'managed-settings.json') }];
  let names: string[] = [];
  try {
    names = fs
      .readdirSync(path.join(managedDir, 'managed-settings.d'))
      .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
      .sort();
  } catch {
    // none
  }
  for (const name of names) files.push({ scope: 'managed', file: path.join(managedDir, 'managed-settings.d', name) });
  return files;
}

/** Where Claude Code's managed settings live on this platform; `override` (a test, an unusual install) wins. */
export function managedSettingsDir(platform: NodeJS.Platform, override: string | undefined): string {
  return override || (platform === 'darwin' ? '/Library/Application Support/ClaudeCode' : '/etc/claude-code');
}
