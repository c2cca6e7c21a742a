import fs from 'node:fs';
import { PartsText } from '../cache/digest.js';
import { type FileStamp, sameStamp, stampFromTuple, stampOf, stampTuple, trusted } from '../cache/file-stamp.js';
import type { Shard } from '../cache/persistent-cache.js';
import { listDirOf, taskPath } from '../store/paths.js';
import { digestFlags, type Todo } from './transcript-tasks.js';

/**
 * The session evidence (evidence-index.ts) kept between runs: working it out ties every
 * session that used the Task tools to the lists holding its tasks, which at a year of
 * history is most of what `tasks lists` costs. It is a function of its inputs alone:
 *
 * - which sessions there are, in order, and what each of their transcripts says of its
 *   tasks (the transcript store's digest of it, itself kept by each file's stamp), the
 *   first entry's time and the lists each is known to work on (a session whose
 *   transcripts say nothing of tasks or todos adds nothing, and is left out);
 * - the names in every list folder (kept by the folder's stamp);
 * - the task files attribution read (their subjects and times), by their stamps.
 *
 * The first two are gathered every run into one text (no transcript is loaded for it);
 * the answer is kept with that text and the stamps of the files it read, and used again
 * only while the text is the same and every one of those files has its stamp still. Files that
 * had not settled when read (file-stamp.ts) are not trusted: the answer is then not kept.
 */
export const EVIDENCE_SHARD = '_evidence';

export interface Evidence {
  /** List id -> the sessions whose tasks tie them to it. */
  sessionsByList: Map<string, string[]>;
  /** List id -> sessions that worked on it or on another list holding the same tasks, which cannot be told apart. */
  unsureByList: Map<string, string[]>;
  /** Session id -> its latest TodoWrite todos, for sessions that used TodoWrite and no Task tool. */
  todos: Map<string, Todo[]>;
}

/** A session to read: its transcript and its subagents'. */
export interface SessionFiles {
  sessionId: string;
  transcript: string;
  files: Array<{ file: string; agent?: string | undefined }>;
  /** Skipped: too large to read for a session with a list of its own (FULL_READ_LIMIT). */
  tooBig: boolean;
}

/** Names the inputs' layout: another value, another layout. */
const LAYOUT = 'evidence/5';

/** A task file that attribution read, and its stat then (undefined: gone). */
export interface ConsultedFile {
  list: string;
  id: string;
  stat: fs.Stats | undefined;
}

/**
 * The evidence's inputs (above) as they are now, as one text (cache/digest.ts, PartsText):
 * kept with the answer and compared whole. At 3,000 sessions it is about 270 KB.
 */
export function inputsDigest(
  sessions: readonly SessionFiles[],
  lists: readonly string[],
  how: {
    digestOf: (file: string) => string;
    startOf: (session: SessionFiles) => number | undefined;
    known: (sessionId: string) => readonly string[];
    namesOf: (list: string) => readonly string[] | undefined;
  },
): string {
  const d = new PartsText().add(LAYOUT);
  for (const s of sessions) {
    // A session left unread, or whose transcripts say nothing of tasks or todos, adds nothing to the answer.
    if (s.tooBig || s.files.every(({ file }) => digestFlags(how.digestOf(file)).nothing)) continue;
    d.add(s.sessionId, s.transcript, s.files.length);
    let tasks = false;
    for (const { file, agent } of s.files) {
      // The first file is the transcript; a subagent's is named by its agent (sessionTranscripts).
      const digest = how.digestOf(file);
      d.add(agent, digest);
      tasks ||= digestFlags(digest).hasTasks;
    }
    if (tasks) {
      const known = how.known(s.sessionId);
      d.add(how.startOf(s), known.length, ...known);
    }
  }
  d.add(lists.length);
  for (const list of lists) {
    const names = how.namesOf(list);
    d.add(list, names?.length ?? -1, ...(names ?? []));
  }
  return d.text();
}

/** The project folders' stamps when they were listed for it: [folder, stamp] (null: not to be trusted). */
export type FolderStamps = ReadonlyMap<string, FileStamp | undefined>;

/**
 * The kept evidence named `name`, if it was worked out from these inputs (inputsDigest) and
 * every task file it read is unchanged; `todosOf`: a session's todos, from its transcript.
 * `folders`: the project folders as listed for this run's inputs (kept with it: see
 * lastEvidence).
 */
export function keptEvidence(
  shard: Shard,
  name: string,
  digest: string,
  configDir: string,
  todosOf: (sessionId: string) => Todo[] | undefined,
  folders: FolderStamps,
  now: number,
): Evidence | undefined {
  const entry = shard.get(name) as Partial<KeptEvidence> | null | undefined;
  if (typeof entry !== 'object' || entry === null || entry.d !== digest || typeof entry.at !== 'number') return undefined;
  const { at, r, s, b, u, t } = entry;
  if (!Array.isArray(r) || !Array.isArray(s) || !s.every((id) => typeof id === 'string') || !Array.isArray(t)) return undefined;
  const groups = groupsOf(entry);
  if (groups === undefined) return undefined;
  for (const file of r) {
    if (!Array.isArray(file) || typeof file[0] !== 'string' || typeof file[1] !== 'string') return undefined;
    const was = stampFromTuple(file[2]);
    if (was === undefined || !trusted(was, at)) return undefined;
    let now: fs.Stats | undefined;
    try {
      now = fs.statSync(taskPath(listDirOf(configDir, file[0]), file[1]), { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
    if (now === undefined || !sameStamp(was, stampOf(now))) return undefined;
  }
  const idAt = (i: unknown) => (typeof i === 'number' ? s[i] : undefined);
  const byList = (kept: unknown): Map<string, string[]> | undefined => {
    if (!Array.isArray(kept)) return undefined;
    const map = new Map<string, string[]>();
    for (const row of kept) {
      const ids = Array.isArray(row) && typeof row[0] === 'string' && typeof row[1] === 'number' ? groups[row[1]] : undefined;
      if (ids === undefined) return undefined;
      map.set(row[0], ids);
    }
    return map;
  };
  const sessionsByList = byList(b);
  const unsureByList = byList(u);
  if (sessionsByList === undefined || unsureByList === undefined) return undefined;
  const todos = new Map<string, Todo[]>();
  for (const i of t) {
    const id = idAt(i);
    const list = id === undefined ? undefined : todosOf(id);
    if (id === undefined || list === undefined) return undefined;
    todos.set(id, list);
  }
  // The same answer for this run's listing of the project folders: kept with it.
  const p = keptFolders(folders, now);
  if (JSON.stringify(p) !== JSON.stringify(entry.p)) shard.set(name, { ...entry, p });
  return { sessionsByList, unsureByList, todos };
}

/**
 * What the last evidence kept says of one list, whatever has changed since: the sessions
 * it tied to the list or was unsure of, and the project folders' stamps when it was
 * worked out. A session it does not name can have been tied to the list since only by
 * a transcript made since (in a folder whose stamp has changed) or by Task-tool calls
 * appended to its transcript since. Undefined when none is kept.
 */
export function lastEvidence(
  shard: Shard,
  name: string,
  list: string,
  /** false: only the sessions it tied to the list, not those it was unsure of. */
  unsure = true,
): { sessions: Set<string>; folders: Map<string, FileStamp | undefined> } | undefined {
  const entry = shard.get(name) as Partial<KeptEvidence> | null | undefined;
  if (typeof entry !== 'object' || entry === null || !Array.isArray(entry.s) || !Array.isArray(entry.p)) return undefined;
  const { p } = entry;
  const groups = groupsOf(entry);
  if (groups === undefined) return undefined;
  const sessions = new Set<string>();
  for (const rows of unsure ? [entry.b, entry.u] : [entry.b]) {
    if (!Array.isArray(rows)) return undefined;
    for (const row of rows) {
      if (!Array.isArray(row) || row[0] !== list) continue;
      const ids = typeof row[1] === 'number' ? groups[row[1]] : undefined;
      if (ids === undefined) return undefined;
      for (const id of ids) sessions.add(id);
    }
  }
  const folders = new Map<string, FileStamp | undefined>();
  for (const row of p) {
    if (!Array.isArray(row) || typeof row[0] !== 'string') return undefined;
    folders.set(row[0], row[1] === null ? undefined : stampFromTuple(row[1]));
  }
  return { sessions, folders };
}

/** The kept sets of sessions, by id (undefined: not as written here). */
function groupsOf(entry: Partial<KeptEvidence>): string[][] | undefined {
  const { g, s } = entry;
  if (!Array.isArray(g) || !Array.isArray(s)) return undefined;
  const groups: string[][] = [];
  for (const members of g) {
    if (!Array.isArray(members)) return undefined;
    const ids = members.map((i) => (typeof i === 'number' ? s[i] : undefined));
    if (!ids.every((id): id is string => typeof id === 'string')) return undefined;
    groups.push(ids);
  }
  return groups;
}

/** Folder stamps as kept: one that had not settled when listed is not trusted (null). */
function keptFolders(folders: FolderStamps, now: number): KeptEvidence['p'] {
  return [...folders].map(([folder, stamp]) => [folder, stamp !== undefined && trusted(stamp, now) ? stampTuple(stamp) : null]);
}

/** Keep `evidence`, worked out now from these inputs (inputsDigest), having read `consulted`. */
export function keepEvidence(
  shard: Shard,
  name: string,
  digest: string,
  evidence: Evidence,
  consulted: readonly ConsultedFile[],
  folders: FolderStamps,
  now: number,
): void {
  const files: KeptEvidence['r'] = [];
  for (const { list, id, stat } of consulted) {
    const stamp = stat === undefined ? undefined : stampOf(stat);
    // Gone while read, or too fresh to be told from its next write: worked out again next time.
    if (stamp === undefined || !trusted(stamp, now)) return;
    files.push([list, id, stampTuple(stamp)]);
  }
  const ids: string[] = [];
  const index = new Map<string, number>();
  const at = (id: string) => {
    let i = index.get(id);
    if (i === undefined) index.set(id, (i = ids.push(id) - 1));
    return i;
  };
  // Lists often share one set of sessions (a plan run on many lists): each set is kept once.
  const groups: number[][] = [];
  const groupAt = new Map<string, number>();
  const rows = (map: Map<string, string[]>) =>
    [...map].map(([list, sessions]) => {
      const members = sessions.map(at);
      const key = members.join(',');
      let g = groupAt.get(key);
      if (g === undefined) groupAt.set(key, (g = groups.push(members) - 1));
      return [list, g] as [string, number];
    });
  const entry: KeptEvidence = {
    d: digest,
    at: now,
    r: files,
    b: rows(evidence.sessionsByList),
    u: rows(evidence.unsureByList),
    t: [...evidence.todos.keys()].map(at),
    g: groups,
    s: ids,
    p: keptFolders(folders, now),
  };
  shard.set(name, entry);
}

interface KeptEvidence {
  /** The inputs, as inputsDigest gives them. */
  d: string;
  /** When it was worked out (ms). */
  at: number;
  /** The task files read: list, id, stamp. */
  r: Array<[string, string, ReturnType<typeof stampTuple>]>;
  /** Sessions by list, and unsure: each list's set of sessions as an index into `g`. */
  b: Array<[string, number]>;
  u: Array<[string, number]>;
  /** Sets of sessions, as indexes into `s`. */
  g: number[][];
  /** The sessions with todos (read from their transcripts when used). */
  t: number[];
  s: string[];
  /** The project folders' stamps as listed for it (null: not settled then). */
  p: Array<[string, ReturnType<typeof stampTuple> | null]>;
}
