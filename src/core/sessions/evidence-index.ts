import fs from 'node:fs';
import { folderNames, LISTS_SHARD, listNamesKey } from '../cache/folder-names.js';
import { isTaskId } from '../store/ids.js';
import { idFromFileName, listDirOf, taskPath } from '../store/paths.js';
import { readTaskFile } from '../store/task-file.js';
import {
  type ConsultedFile,
  EVIDENCE_SHARD,
  type Evidence,
  inputsDigest,
  keepEvidence,
  keptEvidence,
  type SessionFiles,
} from './evidence-cache.js';
import { attributeSessions, itemsOf, type ListFile, type SessionTasks } from './list-evidence.js';
import type { SessionIndex } from './session-index.js';
import { cachedTranscriptTasks, type TranscriptTasksCache } from './transcript-cache.js';
import { digestFlags, type SeenTask, TASKS_SCAN, type TaskWrite, type Todo, type TranscriptTasks } from './transcript-tasks.js';

/**
 * The sessions tied to lists by what their transcripts show (list-evidence.ts): those that
 * worked on a list named by CLAUDE_CODE_TASK_LIST_ID (no file names it), those whose
 * settings moved them to another list while they ran, and those that kept TodoWrite
 * todos. Every transcript that used the Task tools is read in full (and its subagents');
 * a session's own lists (its UUID's, its team's) and the list its running process names
 * are tried first, and the other lists only for what they do not explain.
 *
 * With the persistent cache, the answer is kept with everything it was
 * worked out from (evidence-cache.ts) and used again while that is unchanged: what each
 * transcript says is known by its digest without loading it, and only the sessions whose
 * transcripts show tasks or todos are loaded when it must be worked out again.
 */
export type { Evidence } from './evidence-cache.js';

/**
 * `cache`: what transcripts say of their tasks, kept by the caller across indexes; else
 * the index's store (and, with `keepAs`, the answer kept in the persistent cache under
 * that name). `keep`: only the sessions it keeps (by id and transcript) are read.
 * `known`: the lists each session is known to work on (default: its own).
 */
export function buildEvidence(
  index: SessionIndex,
  lists: readonly string[],
  opts: {
    cache?: TranscriptTasksCache | undefined;
    keep?: ((sessionId: string, transcript: string) => boolean) | undefined;
    known?: ((sessionId: string) => readonly string[]) | undefined;
    keepAs?: string | undefined;
    /** The sessions to read (id, transcript), instead of every transcript there is. */
    sessions?: Iterable<[string, string]> | undefined;
    /** List the list folders it looks into instead of loading their names kept (a few sessions on their own lists: fewer than the names of all). */
    listFoldersNow?: boolean | undefined;
  } = {},
): Evidence {
  const shard = opts.listFoldersNow ? undefined : index.store.cache?.shard(LISTS_SHARD);
  const now = index.now();
  /** A list folder's names: kept with its stamp (cache/folder-names.ts), else listed. */
  const namesOf = (list: string): string[] | undefined =>
    folderNames(listDirOf(index.configDir, list), shard, listNamesKey(list), now, index)?.names;
  const known = opts.known ?? ((id: string) => index.listsOfSession(id));
  const sessions = sessionsToRead(index, opts.sessions ?? index.transcripts(), known, opts.keep);
  if (opts.cache !== undefined) {
    const memory = opts.cache;
    return attribute(index, lists, namesOf, known, sessions, (file) => cachedTranscriptTasks(file, memory)).evidence;
  }
  // What each transcript says, as a digest: loading it is for the sessions that say something.
  const digests = new Map(sessions.flatMap((s) => s.files.map(({ file }) => [file, index.store.scanDigest(file, TASKS_SCAN)] as const)));
  const says = (file: string) => digestFlags(digests.get(file) as string);
  const toLoad = sessions.filter((s) => !s.tooBig && s.files.some(({ file }) => !says(file).nothing));
  // Only an answer over every transcript is kept (a part of them would stand for the whole).
  const whole = opts.sessions === undefined && opts.keep === undefined;
  const kept = opts.keepAs === undefined || !whole ? undefined : index.store.cache?.shard(EVIDENCE_SHARD);
  const digest =
    kept === undefined
      ? undefined
      : inputsDigest(sessions, lists, {
          digestOf: (file) => digests.get(file) as string,
          startOf: (s) => index.facts(s.transcript).firstActivity,
          known,
          namesOf,
        });
  // Kept with the listing of project folders it was worked out from, when that was all of them.
  const folders = whole ? index.projectFolderStamps() : new Map();
  if (kept !== undefined && digest !== undefined) {
    const transcripts = new Map(sessions.map((s) => [s.sessionId, s.transcript]));
    const todosOf = (id: string) => {
      const transcript = transcripts.get(id);
      return transcript === undefined ? undefined : index.transcriptTasks(transcript).todos;
    };
    const found = keptEvidence(kept, opts.keepAs as string, digest, index.configDir, todosOf, folders, now);
    if (found !== undefined) return found;
  }
  const { evidence, consulted } = attribute(index, lists, namesOf, known, toLoad, (file) => index.transcriptTasks(file));
  if (kept !== undefined && digest !== undefined) keepEvidence(kept, opts.keepAs as string, digest, evidence, consulted, folders, now);
  return evidence;
}

/** The sessions `keep` keeps, with their transcripts, in the order transcripts() lists them. */
function sessionsToRead(
  index: SessionIndex,
  transcripts: Iterable<[string, string]>,
  known: (sessionId: string) => readonly string[],
  keep: ((sessionId: string, transcript: string) => boolean) | undefined,
): SessionFiles[] {
  const sessions: SessionFiles[] = [];
  for (const [sessionId, transcript] of transcripts) {
    if (keep !== undefined && !keep(sessionId, transcript)) continue;
    const tooBig = tooBigForItsOwnList(index, sessionId, transcript, known);
    sessions.push({ sessionId, transcript, tooBig, files: tooBig ? [] : index.sessionFiles(sessionId, transcript) });
  }
  return sessions;
}

/** Read what the sessions' transcripts say and tie them to lists; with each list file consulted. */
function attribute(
  index: SessionIndex,
  lists: readonly string[],
  namesOf: (list: string) => string[] | undefined,
  known: (sessionId: string) => readonly string[],
  sessions: readonly SessionFiles[],
  read: (file: string) => TranscriptTasks,
): { evidence: Evidence; consulted: ConsultedFile[] } {
  const evidence: Evidence = { sessionsByList: new Map(), unsureByList: new Map(), todos: new Map() };
  const files = listFiles(index.configDir, lists, namesOf);
  const tied: SessionTasks[] = [];
  for (const session of sessions) {
    if (session.tooBig) continue;
    const { sessionId, transcript } = session;
    const { seen, writes, usesTasks, todos } = saidBy(session, read);
    if (todos !== undefined && !usesTasks) evidence.todos.set(sessionId, todos);
    if (seen.length === 0 && writes.length === 0) continue;
    tied.push({ sessionId, seen, writes, start: index.facts(transcript).firstActivity, known: known(sessionId) });
  }
  const found = attributeSessions(tied, files.listsWith, files.fileOf);
  evidence.sessionsByList = found.byList;
  evidence.unsureByList = found.unsure;
  return { evidence, consulted: files.consulted };
}

/** What a session's transcripts (its own and its subagents') say of its tasks: writes in the order made. */
function saidBy(session: SessionFiles, read: (file: string) => TranscriptTasks) {
  const seen = new Map<string, SeenTask>();
  const writes: TaskWrite[] = [];
  let usesTasks = false;
  let todos: Todo[] | undefined;
  for (const { file, agent } of session.files) {
    const said = read(file);
    usesTasks ||= said.usesTasks;
    if (agent === undefined) todos = said.todos;
    for (const t of said.tasks) seen.set(t.id, { ...t, created: t.created || (seen.get(t.id)?.created ?? false) });
    if (said.writes !== undefined) for (const w of said.writes) writes.push(w);
  }
  // Subagents write in between their session's own calls.
  writes.sort((a, b) => a.at - b.at);
  return { seen: [...seen.values()], writes, usesTasks, todos };
}

/**
 * Which session holds each task it worked on, by a key of the task's id and subject
 * (itemKey): its session's id, or `*` where more than one session holds it. Every
 * session that used the Task tools is read (from the transcript store: a grown one from
 * where it was last read). A list whose task files match none of these keys, save those
 * of `sessions` given, can be a candidate of no other session's (list-evidence.ts needs a
 * file of the item's id, with its subject where the item has one): kept-lists.ts asks it
 * of a running session's own list.
 */
export function itemHolders(index: SessionIndex): Map<string, string> {
  const holders = new Map<string, string>();
  const known = (id: string) => index.listsOfSession(id);
  for (const session of sessionsToRead(index, index.transcripts(), known, undefined)) {
    if (session.tooBig || session.files.every(({ file }) => digestFlags(index.store.scanDigest(file, TASKS_SCAN)).nothing)) continue;
    const { seen, writes } = saidBy(session, (file) => index.transcriptTasks(file));
    for (const item of itemsOf(seen, writes)) {
      const key = itemKey(item.id, item.subject);
      const was = holders.get(key);
      holders.set(key, was === undefined || was === session.sessionId ? session.sessionId : '*');
    }
  }
  return holders;
}

/** The key of a task by id and subject (undefined: an item that saw no subject, which any file of its id matches). */
export function itemKey(id: string, subject: string | undefined): string {
  return subject === undefined ? `${id}\u0000` : `${id}\u0000${subject}`;
}

/**
 * A transcript this large is read in one synchronous pass that no signal interrupts (a
 * sparse 100 GB file takes minutes). A session with a list of its own keeps it without the
 * read; what the read could add (a move to another list by a binding changed while it ran)
 * is left out for it. A session with no list of its own is read whatever its size:
 * without the read it would have no list at all.
 */
const FULL_READ_LIMIT = 128 * 1024 * 1024;

function tooBigForItsOwnList(
  index: SessionIndex,
  sessionId: string,
  transcript: string,
  known: (sessionId: string) => readonly string[],
): boolean {
  return (index.store.statOf(transcript)?.size ?? 0) > FULL_READ_LIMIT && known(sessionId).length > 0;
}

/**
 * Each list's task files, read only for the ids asked about (and each file once): a file
 * the list folder's names do not hold is not looked for. `consulted`: the files read, with
 * their stamps, for the kept answer to be checked against.
 */
function listFiles(configDir: string, lists: readonly string[], namesOf: (list: string) => string[] | undefined) {
  let byId: Map<string, string[]> | undefined;
  const named = new Map<string, Set<string>>();
  const read = new Map<string, Map<string, ListFile | null>>();
  const consulted: ConsultedFile[] = [];
  const namesIn = (list: string) => {
    let names = named.get(list);
    if (names === undefined) named.set(list, (names = new Set(namesOf(list) ?? [])));
    return names;
  };
  return {
    consulted,
    /** The lists that have a file of any of `ids`, from one listing of each folder. */
    listsWith(ids: readonly string[]): string[] {
      if (byId === undefined) {
        byId = new Map();
        for (const list of lists) {
          for (const name of namesIn(list)) {
            const id = idFromFileName(name);
            if (id === undefined) continue;
            const have = byId.get(id);
            if (have === undefined) byId.set(id, [list]);
            else have.push(list);
          }
        }
      }
      const found = new Set<string>();
      for (const id of ids) for (const list of byId.get(id) ?? []) found.add(list);
      return [...found];
    },
    /** One list's file of an id: its subject and time; undefined when there is none or it cannot be read. */
    fileOf(list: string, id: string): ListFile | undefined {
      // A transcript is anyone's to write: an id that is no task id names no file.
      if (!isTaskId(id)) return undefined;
      let files = read.get(list);
      if (files === undefined) read.set(list, (files = new Map()));
      let file = files.get(id);
      if (file === undefined) {
        file = null;
        // Ids come from transcripts: only one that names a task file of the folder is looked for.
        if (idFromFileName(`${id}.json`) === id && namesIn(list).has(`${id}.json`)) {
          const at = taskPath(listDirOf(configDir, list), id);
          let stat: fs.Stats | undefined;
          try {
            stat = fs.statSync(at, { throwIfNoEntry: false });
          } catch {
            // a link that loops or leads nowhere readable: as good as no file, as the list's read skips it
          }
          const result = stat === undefined ? undefined : readTaskFile(at);
          if (result?.kind === 'ok') file = { subject: result.task.subject, mtimeMs: (stat as fs.Stats).mtimeMs };
          consulted.push({ list, id, stat });
        }
        files.set(id, file);
      }
      return file ?? undefined;
    },
  };
}
