import fs from 'node:fs';
import { folderNames, LISTS_SHARD, listNamesKey } from '../cache/folder-names.js';
import { isTaskId } from '../store/ids.js';
import { idFromFileName, listDirOf, taskPath } from '../store/paths.js';
import { readTaskFile } from '../store/task-file.js';
import { attributeSessions, type ListFile, type SessionTasks } from './list-evidence.js';
import type { SessionIndex } from './session-index.js';
import { cachedTranscriptTasks, type TranscriptTasksCache } from './transcript-cache.js';
import type { SeenTask, TaskWrite, Todo } from './transcript-tasks.js';

/**
 * The sessions tied to lists by what their transcripts show (list-evidence.ts): those that
 * worked on a list named by CLAUDE_CODE_TASK_LIST_ID (no file names it), those whose
 * settings moved them to another list while they ran, and those that kept TodoWrite
 * todos. Every transcript that used the Task tools is read in full (and its subagents');
 * a session's own lists (its UUID's, its team's) and the list its running process names
 * are tried first, and the other lists only for what they do not explain.
 */
export interface Evidence {
  /** List id -> the sessions whose tasks tie them to it. */
  sessionsByList: Map<string, string[]>;
  /** List id -> sessions that worked on it or on another list holding the same tasks, which cannot be told apart. */
  unsureByList: Map<string, string[]>;
  /** Session id -> its latest TodoWrite todos, for sessions that used TodoWrite and no Task tool. */
  todos: Map<string, Todo[]>;
}

/**
 * `cache`: what transcripts say of their tasks, kept by the caller across indexes; else
 * the index's store. `keep`: only the sessions it keeps (by id and transcript) are read.
 * `known`: the lists each session is known to work on (default: its own).
 */
export function buildEvidence(
  index: SessionIndex,
  lists: readonly string[],
  opts: {
    cache?: TranscriptTasksCache | undefined;
    keep?: ((sessionId: string, transcript: string) => boolean) | undefined;
    known?: ((sessionId: string) => readonly string[]) | undefined;
  } = {},
): Evidence {
  const shard = index.store.cache?.shard(LISTS_SHARD);
  const now = index.now();
  /** A list folder's names: kept with its stamp (cache/folder-names.ts), else listed. */
  const namesOf = (list: string): string[] | undefined =>
    folderNames(listDirOf(index.configDir, list), shard, listNamesKey(list), now)?.names;
  const known = opts.known ?? ((id: string) => index.listsOfSession(id));
  const evidence: Evidence = { sessionsByList: new Map(), unsureByList: new Map(), todos: new Map() };
  const files = listFiles(index.configDir, lists, namesOf);
  const sessions: SessionTasks[] = [];
  for (const [sessionId, transcript] of index.transcripts()) {
    if (opts.keep !== undefined && !opts.keep(sessionId, transcript)) continue;
    if (tooBigForItsOwnList(sessionId, transcript, known)) continue;
    const seen = new Map<string, SeenTask>();
    const writes: TaskWrite[] = [];
    let usesTasks = false;
    let todos: Todo[] | undefined;
    for (const { file, agent } of index.sessionFiles(sessionId, transcript)) {
      const read = opts.cache === undefined ? index.transcriptTasks(file) : cachedTranscriptTasks(file, opts.cache);
      usesTasks ||= read.usesTasks;
      if (agent === undefined) todos = read.todos;
      for (const t of read.tasks) seen.set(t.id, { ...t, created: t.created || (seen.get(t.id)?.created ?? false) });
      writes.push(...(read.writes ?? []));
    }
    if (todos !== undefined && !usesTasks) evidence.todos.set(sessionId, todos);
    if (seen.size === 0 && writes.length === 0) continue;
    // Subagents write in between their session's own calls.
    writes.sort((a, b) => a.at - b.at);
    sessions.push({ sessionId, seen: [...seen.values()], writes, start: index.facts(transcript).firstActivity, known: known(sessionId) });
  }
  const found = attributeSessions(sessions, files.listsWith, files.fileOf);
  evidence.sessionsByList = found.byList;
  evidence.unsureByList = found.unsure;
  return evidence;
}

/**
 * A transcript this large is read in one synchronous pass that no signal interrupts (a
 * sparse 100 GB file takes minutes). A session with a list of its own keeps it without the
 * read; what the read could add (a move to another list by a binding changed while it ran)
 * is left out for it. A session with no list of its own is read whatever its size:
 * without the read it would have no list at all.
 */
const FULL_READ_LIMIT = 128 * 1024 * 1024;

function tooBigForItsOwnList(sessionId: string, transcript: string, known: (sessionId: string) => readonly string[]): boolean {
  if (known(sessionId).length === 0) return false;
  try {
    return fs.statSync(transcript).size > FULL_READ_LIMIT;
  } catch {
    return false;
  }
}

/** Each list's task files, read only for the ids asked about (and each file once). */
function listFiles(configDir: string, lists: readonly string[], namesOf: (list: string) => string[] | undefined) {
  let byId: Map<string, string[]> | undefined;
  const read = new Map<string, ListFile | null>();
  return {
    /** The lists that have a file of any of `ids`, from one listing of each folder. */
    listsWith(ids: readonly string[]): string[] {
      if (byId === undefined) {
        byId = new Map();
        for (const list of lists) {
          for (const name of namesOf(list) ?? []) {
            const id = idFromFileName(name);
            if (id === undefined) continue;
            const have = byId.get(id);
            if (have === undefined) byId.set(id, [list]);
            else have.push(list);
          }
        }
      }
      return [...new Set(ids.flatMap((id) => byId?.get(id) ?? []))];
    },
    /** One list's file of an id: its subject and time; undefined when there is none or it cannot be read. */
    fileOf(list: string, id: string): ListFile | undefined {
      // A transcript is anyone's to write: an id that is no task id names no file.
      if (!isTaskId(id)) return undefined;
      const key = `${list}\0${id}`;
      if (!read.has(key)) {
        const file = taskPath(listDirOf(configDir, list), id);
        let mtimeMs: number | undefined;
        try {
          mtimeMs = fs.statSync(file).mtimeMs;
        } catch {
          // none, or deleted meanwhile
        }
        const result = mtimeMs === undefined ? undefined : readTaskFile(file);
        read.set(key, result?.kind === 'ok' ? { subject: result.task.subject, mtimeMs: mtimeMs as number } : null);
      }
      return read.get(key) ?? undefined;
    },
  };
}
