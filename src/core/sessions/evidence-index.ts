import fs from 'node:fs';
import { folderNames, LISTS_SHARD, listNamesKey } from '../cache/folder-names.js';
import { idFromFileName, listDirOf, taskPath } from '../store/paths.js';
import { readTaskFile } from '../store/task-file.js';
import { type ListFile, listsOfEvidence } from './list-evidence.js';
import type { SessionIndex } from './session-index.js';
import { cachedTranscriptTasks, type TranscriptTasksCache } from './transcript-cache.js';
import type { SeenTask, Todo } from './transcript-tasks.js';

/**
 * The sessions tied to lists by what their transcripts show (list-evidence.ts), for the
 * sessions with no list of their own: those that worked on a list named by
 * CLAUDE_CODE_TASK_LIST_ID (no file names it), and those that kept TodoWrite todos. Only
 * their transcripts are read in full (and their subagents'); a session whose UUID, team
 * or `session-<8 hex>` list exists is that list's already.
 */
export interface Evidence {
  /** List id -> the sessions whose tasks tie them to it. */
  sessionsByList: Map<string, string[]>;
  /** Session id -> its latest TodoWrite todos, for sessions that used TodoWrite and no Task tool. */
  todos: Map<string, Todo[]>;
}

/**
 * `cache`: what transcripts say of their tasks, kept by the caller across indexes; else
 * the index's store. `keep`: only the sessions it keeps (by id and transcript) are read.
 */
export function buildEvidence(
  index: SessionIndex,
  lists: readonly string[],
  cache?: TranscriptTasksCache,
  keep: (sessionId: string, transcript: string) => boolean = () => true,
): Evidence {
  const shard = index.store.cache?.shard(LISTS_SHARD);
  const now = index.now();
  /** A list folder's names: kept with its stamp (cache/folder-names.ts), else listed. */
  const namesOf = (list: string): string[] | undefined =>
    folderNames(listDirOf(index.configDir, list), shard, listNamesKey(list), now)?.names;
  const evidence: Evidence = { sessionsByList: new Map(), todos: new Map() };
  const existing = new Set(lists);
  const leads = new Set([...index.leads().values()].map((l) => l.sessionId));
  const owned = (id: string) => existing.has(id) || existing.has(`session-${id.slice(0, 8)}`) || leads.has(id);
  const files = listFiles(index.configDir, lists, namesOf);
  for (const [sessionId, transcript] of index.transcripts()) {
    if (owned(sessionId) || !keep(sessionId, transcript)) continue;
    const seen = new Map<string, SeenTask>();
    let usesTasks = false;
    let todos: Todo[] | undefined;
    for (const { file, agent } of index.sessionFiles(sessionId, transcript)) {
      const read = cache === undefined ? index.transcriptTasks(file) : cachedTranscriptTasks(file, cache);
      usesTasks ||= read.usesTasks;
      if (agent === undefined) todos = read.todos;
      for (const t of read.tasks) seen.set(t.id, { ...t, created: t.created || (seen.get(t.id)?.created ?? false) });
    }
    if (todos !== undefined && !usesTasks) evidence.todos.set(sessionId, todos);
    if (seen.size === 0) continue;
    const start = index.facts(transcript).firstActivity;
    for (const list of listsOfEvidence([...seen.values()], files.forIds([...seen.keys()]), start)) {
      evidence.sessionsByList.set(list, [...(evidence.sessionsByList.get(list) ?? []), sessionId]);
    }
  }
  return evidence;
}

/** Each list's task files, read only for the ids asked about (and each file once). */
function listFiles(configDir: string, lists: readonly string[], namesOf: (list: string) => string[] | undefined) {
  let byId: Map<string, string[]> | undefined;
  /** Task id -> the lists that have a file of it, from one listing of each folder. */
  const listsWith = (id: string): readonly string[] => {
    if (byId === undefined) {
      byId = new Map();
      for (const list of lists) {
        for (const name of namesOf(list) ?? []) {
          const taskId = idFromFileName(name);
          if (taskId === undefined) continue;
          const have = byId.get(taskId);
          if (have === undefined) byId.set(taskId, [list]);
          else have.push(list);
        }
      }
    }
    return byId.get(id) ?? [];
  };
  const order = new Map(lists.map((l, i) => [l, i]));
  const read = new Map<string, ListFile | null>();
  const fileOf = (list: string, id: string): ListFile | undefined => {
    const key = `${list}\0${id}`;
    if (!read.has(key)) {
      const file = taskPath(listDirOf(configDir, list), id);
      const result = readTaskFile(file);
      let mtimeMs = 0;
      try {
        mtimeMs = fs.statSync(file).mtimeMs;
      } catch {
        // deleted meanwhile
      }
      read.set(key, result.kind === 'ok' ? { subject: result.task.subject, mtimeMs } : null);
    }
    return read.get(key) ?? undefined;
  };
  return {
    /** For each list that has any of `ids`: those of its files (lists in the order given). */
    forIds(ids: readonly string[]): Map<string, Map<string, ListFile>> {
      const found = new Map<string, Map<string, ListFile>>();
      for (const id of ids) {
        for (const list of listsWith(id)) {
          const f = fileOf(list, id);
          if (f === undefined) continue;
          let files = found.get(list);
          if (files === undefined) found.set(list, (files = new Map()));
          files.set(id, f);
        }
      }
      // In the order of `lists`, as listsOfEvidence reports ties.
      return new Map([...found].sort((a, b) => (order.get(a[0]) ?? 0) - (order.get(b[0]) ?? 0)));
    },
  };
}
