import fs from 'node:fs';
import path from 'node:path';
import { type FileStamp, folderStamp, sameStamp, stampFromTuple, stampTuple, trusted } from '../cache/file-stamp.js';
import type { Shard } from '../cache/persistent-cache.js';
import { isSessionId, type SessionIndex } from '../sessions/session-index.js';
import { sanitizeListId, tasksRoot } from '../store/paths.js';

/**
 * The project rule's sessions of one directory, kept between runs (choice-project.ts): the
 * sessions that ran there with a list, none of them live, the most recently active first,
 * each with its list. Working them out takes every transcript of the project folder's
 * facts (its shard of the persistent cache, hundreds of KB at a year of history) and a
 * session record for each; a run in which none of what they came from changed looks at
 * the files instead, and reads none.
 *
 * What the stamps cover (size, times, inode; each taken after it had settled, SETTLE_MS):
 * - the directory's project folders (a transcript made or removed; which folders they are
 *   is compared too: SessionIndex.projectFoldersOf), and each transcript there of a
 *   session with a list (appended to: a resumed session, a session that goes on);
 * - `<config>/tasks/` (a list folder made or removed); kept only while no list folder is a
 *   symlink, whose target can go without the folder changing.
 *
 * What is compared as read this run: the team configs' leads (a team list of a session),
 * and the live-session files that name a session of the folder or the directory (a
 * crashed session's file gives its session's state and last activity).
 *
 * What files cannot tell: kept and used only while no session runs (every live-session
 * file is a crashed session's, and, while a session of them has not recorded its end, no
 * Claude Code process of this config folder runs: a running one makes sessions live,
 * moves them on with `/clear`, or names another list),
 * while no session is live by its transcript's time (the clock then only moves it further
 * away, so a clock earlier than the one it was kept by is refused), and never across a
 * symlinked list folder. Anything else, and the sessions are worked out as before.
 */
export interface KeptSession {
  sessionId: string;
  list: string;
  /** Its transcript in a project folder of the directory; undefined for a session known only by its live-session file. */
  transcript: string | undefined;
}

/** The shard the sessions are kept in (a name no project folder has), by directory. */
const CHOICE_SHARD = '_choice';
/** Directories kept at most: those of the latest runs stay. */
const MAX_DIRS = 32;

interface KeptEntry {
  /** When it was kept, by the run's clock. */
  at: number;
  /** The stamps and readings compared as text: project folders, tasks folder, leads, live-session files. */
  inputs: string;
  /** Each transcript of a session with a list in the project folders: [session id, stamp, project folder]. */
  files: Array<[string, unknown, string]>;
  /** The sessions, in the order the rule takes them: [session id, list, the project folder of its transcript]. */
  ended: Array<[string, string, string]>;
  /** 1 when a session of them has not recorded its end: a Claude Code process with no live-session file may be on it. */
  open: number;
}

/** The kept sessions of `dir`, when nothing they came from has changed; undefined otherwise. */
export function keptSessions(index: SessionIndex, dir: string): KeptSession[] | undefined {
  const shard = shardOf(index);
  if (shard === undefined || anyLiveFile(index)) return undefined;
  const kept = keptEntry(shard.get(dir));
  if (kept === undefined || (kept.open === 1 && anyProcess(index))) return undefined;
  const now = index.now();
  if (now < kept.at) return undefined;
  const projects = index.projectFoldersOf(dir);
  if (kept.inputs !== inputsText(index, dir, projects)) return undefined;
  // The same folders as when kept (inputs): each name below is one of them, never a path of the cache's.
  const known = new Set(projects);
  if (![...kept.files, ...kept.ended].every((e) => known.has(e[2]))) return undefined;
  for (const [id, tuple, project] of kept.files) {
    const was = stampFromTuple(tuple);
    const stamp = index.store.statOf(transcriptPath(projectFolder(index, project), id));
    if (was === undefined || stamp === undefined || !sameStamp(was, stamp)) return undefined;
  }
  return kept.ended.map(([sessionId, list, project]) => ({
    sessionId,
    list,
    transcript: transcriptPath(projectFolder(index, project), sessionId),
  }));
}

/**
 * Keep the sessions the rule worked out for `dir` (none live, in its order), when what
 * they came from had settled and no session runs.
 */
export function keepSessions(index: SessionIndex, dir: string, ended: readonly KeptSession[], open: boolean): void {
  const shard = shardOf(index);
  if (shard === undefined) return;
  const now = index.now();
  const projects = index.projectFoldersOf(dir);
  const settled = (stamp: FileStamp | undefined) => stamp === undefined || trusted(stamp, now);
  // Looked at before the transcripts: a change made meanwhile leaves these stamps behind it.
  const inputs = inputsText(index, dir, projects);
  const files: Array<[string, unknown, string]> = [];
  for (const project of projects) {
    const folder = projectFolder(index, project);
    // In a folder not named after the directory, only the transcripts that may be its sessions': the others' growth changes nothing here.
    for (const id of index.sessionIdsIn(project, dir)) {
      if (index.listsOfSession(id).length === 0) continue;
      const stamp = index.store.statOf(transcriptPath(folder, id));
      if (stamp === undefined || !trusted(stamp, now)) return;
      files.push([id, stampTuple(stamp), project]);
    }
  }
  const folderOf = (transcript: string | undefined) => (transcript === undefined ? '' : path.basename(path.dirname(transcript)));
  // A session known by its live-session file alone may have its transcript in a project folder no stamp here covers.
  if (
    ended.some((s) => !projects.includes(folderOf(s.transcript))) ||
    anyLiveFile(index) ||
    (open && anyProcess(index)) ||
    !projects.every((project) => settled(folderStamp(projectFolder(index, project)))) ||
    !settled(folderStamp(tasksRoot(index.configDir))) ||
    anyLinkedList(index.configDir)
  )
    return;
  const entry: KeptEntry = {
    at: now,
    inputs,
    files,
    ended: ended.map((s) => [s.sessionId, s.list, folderOf(s.transcript)]),
    open: open ? 1 : 0,
  };
  // The latest directories stay: an entry set last is the shard's last key.
  const keys = Object.keys(shard.entries).filter((k) => k !== dir);
  shard.retain(new Set(keys.slice(Math.max(0, keys.length - (MAX_DIRS - 1)))));
  shard.set(dir, entry);
}

function shardOf(index: SessionIndex): Shard | undefined {
  const cache = index.store.cache;
  return cache?.dir === undefined ? undefined : cache.shard(CHOICE_SHARD);
}

/** Does a session run by its live-session file (or may one: a process that cannot be looked up here)? */
function anyLiveFile(index: SessionIndex): boolean {
  return index.liveSessionFiles().some((f) => index.verdict(f) !== 'gone');
}

/**
 * Does a Claude Code process of this config folder run? One with no live-session file
 * makes a session of its folder live only while that session has not recorded its end
 * (session-index.ts): with every session ended, /proc need not be scanned for it.
 */
function anyProcess(index: SessionIndex): boolean {
  return index.claudeProcesses().some((p) => index.usesThisConfig(p));
}

function projectFolder(index: SessionIndex, project: string): string {
  return path.join(index.configDir, 'projects', project);
}

/** As the session index names it (session-index.ts sessionsIn), without path.join's work: a session id is one plain file name. */
function transcriptPath(folder: string, sessionId: string): string {
  return `${folder}${path.sep}${sessionId}.jsonl`;
}

/** The project folders' (with their names) and the tasks folder's stamps, the leads, and the live-session files of the directory's sessions. */
function inputsText(index: SessionIndex, dir: string, projects: readonly string[]): string {
  const ids = new Set(projects.flatMap((project) => index.sessionIdsIn(project, dir)));
  const lives = index
    .liveSessionFiles()
    .filter((f) => f.cwd === dir || ids.has(f.sessionId))
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const stamp = (s: FileStamp | undefined) => (s === undefined ? null : stampTuple(s));
  return JSON.stringify([
    projects.map((project) => [project, stamp(folderStamp(projectFolder(index, project)))]),
    stamp(folderStamp(tasksRoot(index.configDir))),
    [...index.leads()].map(([list, lead]) => [list, lead.sessionId]),
    lives,
  ]);
}

/** Is a list folder a symlink? Its target can go, or come, with no stamp here changing. */
function anyLinkedList(configDir: string): boolean {
  try {
    return fs.readdirSync(tasksRoot(configDir), { withFileTypes: true }).some((e) => e.isSymbolicLink());
  } catch {
    return false;
  }
}

function keptEntry(value: unknown): KeptEntry | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Partial<KeptEntry>;
  if (typeof v.at !== 'number' || typeof v.inputs !== 'string' || !Array.isArray(v.files) || !Array.isArray(v.ended)) return undefined;
  // Ids name files and folders: only a session's id, and a list id as Claude Code sanitizes it.
  const filesOk = v.files.every(
    (f) => Array.isArray(f) && f.length === 3 && typeof f[0] === 'string' && isSessionId(f[0]) && typeof f[2] === 'string',
  );
  const endedOk = v.ended.every(
    (e) =>
      Array.isArray(e) &&
      e.length === 3 &&
      typeof e[0] === 'string' &&
      isSessionId(e[0]) &&
      typeof e[1] === 'string' &&
      e[1] !== '' &&
      sanitizeListId(e[1]) === e[1] &&
      typeof e[2] === 'string',
  );
  return filesOk && endedOk && (v.open === 0 || v.open === 1) ? (v as KeptEntry) : undefined;
}
