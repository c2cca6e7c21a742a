/**
 * Restore: a list Claude Code deleted or reset, rebuilt from its sessions' transcripts.
 * Interactive sessions delete every task file once all are completed (a reset,
 * docs/task-store.md section 6.7), lists are emptied and garbage-collected (section 17),
 * and a removed folder starts again from #1; the transcripts keep every Task-tool call
 * with its result. Which transcripts (restore-sources.ts), the list they record
 * (replay-changes.ts), and the write: through the import's plan and batches
 * (snapshots/), each task under its own id wherever no file has it, nothing that exists
 * written over (a task with the same subject is left as it is; another task holding
 * the id sends the restored one to a new id), each file dated when the record last
 * changed its task (how long it has stood, and who changed it last, stay the agents'),
 * and `.highwatermark` raised to the
 * highest id the record or any transcript read shows, so that none is handed out again. Lists whose folder is
 * gone while their transcripts remain: gone-lists.ts.
 */
import path from 'node:path';
import { pushAll } from '../base/many-items.js';
import type { JournalEntry } from '../history/journal.js';
import { confirmedEntries, readJournal, SLACK_MS } from '../history/journal-read.js';
import { readAgentChanges } from '../history/transcript-events.js';
import { readWriteTraces, type WriteTrace } from '../history/write-traces.js';
import type { SessionIndex } from '../sessions/session-index.js';
import { onListAt, readMoves, type SessionMove } from '../sessions/session-moves.js';
import { sessionMovesOf } from '../sessions/session-segments.js';
import { sessionTranscripts } from '../sessions/transcript-lines.js';
import { type ImportOutcome, importSnapshot } from '../snapshots/import-run.js';
import { compareIds, isTaskId } from '../store/ids.js';
import { fileIds, readHighWaterMark } from '../store/list-read.js';
import { type RecordedChange, type ReplayedList, replayChanges } from './replay-changes.js';
import { type RestoreSource, restoreSources } from './restore-sources.js';
import { highestIdSeen, sharedSessions } from './shared-sessions.js';

export interface RestoreOptions {
  /** `--from`: only these sessions (ids, prefixes or transcript files). */
  from?: readonly string[] | undefined;
  dryRun?: boolean | undefined;
  now?: (() => number) | undefined;
  signal?: AbortSignal | undefined;
}

export interface RestoreOutcome extends ImportOutcome {
  /** The transcripts read, with how many Task-tool changes each holds. */
  sources: Array<RestoreSource & { changes: number }>;
  /** What the record holds; `copied`: changes in a fork's copies of its parent's entries, counted in the parent's list only. */
  replay: Omit<ReplayedList, 'items' | 'warnings' | 'changedAt'> & { copied: number };
  /** The high-water mark before, and after (or, in a dry run, as it would be). */
  mark: { before: string; after: string };
}

/**
 * The list a set of transcripts records, with the changes made with tasks that the
 * list's journal keeps (when `listDir` is given: a journal outlives a reset), oldest
 * change first across them. Transcripts are read in bounded pieces.
 */
export async function readRecord(
  sources: readonly RestoreSource[],
  listDir?: string,
  signal?: AbortSignal,
  movesOf?: (source: RestoreSource) => readonly SessionMove[] | undefined,
): Promise<{ replay: ReplayedList; counts: number[]; copied: number }> {
  let copied = 0;
  // A change seen in two transcripts (the same entry's uuid) happened once.
  const seen = new Set<string>();
  const all: RecordedChange[][] = [];
  // A session `tasks use` moved while it ran wrote to this list on its side of the move only (as recorded, unless `movesOf` says).
  const recorded = listDir === undefined || movesOf !== undefined ? undefined : readMoves(path.dirname(path.dirname(listDir)));
  const list = listDir === undefined ? undefined : path.basename(listDir);
  for (const source of sources) {
    const changes: RecordedChange[] = [];
    const moves = movesOf === undefined ? recorded?.get(source.sessionId) : movesOf(source);
    for (const { file, agent } of sessionTranscripts(source.transcript, source.sessionId)) {
      // A fork's copies of its parent's entries are the parent's changes, not this list's.
      const read = await readAgentChanges(file, source.sessionId, agent, { signal });
      copied += read.copied;
      for (const c of read.changes) {
        if (c.uuid !== undefined && seen.has(c.uuid)) continue;
        if (list !== undefined && !onListAt(moves, list, c.at)) continue;
        if (c.uuid !== undefined) seen.add(c.uuid);
        changes.push({ at: c.at, taskId: c.taskId, op: c.op, fields: c.fields, source: 'agent' });
      }
    }
    all.push(changes);
  }
  const journal = listDir === undefined ? [] : journalChanges(listDir);
  // Oldest first; at the same instant, the order of the sources and of each file stands.
  const merged = [...all, journal]
    .flatMap((changes, s) => changes.map((change, i) => ({ change, s, i })))
    .sort((a, b) => a.change.at - b.change.at || a.s - b.s || a.i - b.i)
    .map((x) => x.change);
  return { replay: replayChanges(merged), counts: all.map((c) => c.length), copied };
}

/**
 * The list's record (readRecord), a session `tasks use` moved while it ran split as `log`,
 * `cost` and `get` split it (sessions/session-segments.ts sessionMovesOf): each move no
 * earlier than the session's last call its old list's files show, made before Claude Code
 * read the changed settings. This list's own tasks whose files are gone are shown by the
 * record read at the recorded moves (their subjects), so that a late call to this list,
 * gone since, is still its.
 */
async function recordOf(
  index: SessionIndex,
  sources: readonly RestoreSource[],
  listDir: string,
  listId: string,
  signal: AbortSignal | undefined,
): Promise<{ replay: ReplayedList; counts: number[]; copied: number }> {
  const recorded = readMoves(index.configDir);
  const first = await readRecord(sources, listDir, signal);
  if (!sources.some((s) => recorded.has(s.sessionId))) return first;
  const subjects = new Map(first.replay.items.filter((i) => isTaskId(i.ref)).map((i) => [i.ref, i.subject]));
  const movesOf = sessionMovesOf(index, listId, {
    recorded,
    shown: (list, id) => {
      const subject = list === listId ? subjects.get(id) : undefined;
      return subject === undefined ? undefined : { subject, mtimeMs: Number.POSITIVE_INFINITY };
    },
  });
  return readRecord(sources, listDir, signal, (s) => movesOf({ sessionId: s.sessionId, transcript: s.transcript }));
}

/**
 * The changes made with tasks, from the list's journal: each task's fields before and
 * after. A restore's own writes (and undos of them) are left out: they put the record
 * back, and counting them would count its tasks twice.
 */
function journalChanges(listDir: string): RecordedChange[] {
  const entries = confirmedEntries(readJournal(listDir).entries, listDir);
  const restores = new Set(entries.filter((e) => e.command === 'restore').map((e) => e.txn));
  const targets = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : []);
  const aboutRestore = (e: JournalEntry) => [...targets(e.undoes), ...targets(e.redoes)].some((t) => restores.has(t));
  return entries.flatMap((entry) => {
    const at = Date.parse(entry.at);
    if (!Number.isFinite(at) || restores.has(entry.txn) || aboutRestore(entry)) return [];
    return entry.changes.flatMap((c): RecordedChange[] => {
      if (c.op === 'update') return [{ at, taskId: c.id, op: 'update', source: 'tasks', fields: c.fields }];
      if (c.op === 'create' || c.op === 'delete') {
        const fields = Object.fromEntries(Object.entries(c.task).map(([k, v]) => [k, { new: v }]));
        return [{ at, taskId: c.id, op: c.op, source: 'tasks', fields, ...(entry.newList === true ? { madeList: true } : {}) }];
      }
      // A corrupt file a repair moved aside is no task agents can see: gone, as a delete.
      if (c.op === 'aside') return [{ at, taskId: c.id, op: 'delete', source: 'tasks', fields: {} }];
      return [];
    });
  });
}

/** The ids of the task files there are (none where no folder can be read: the import says why). */
function idsOnDisk(listDir: string): string[] {
  try {
    return fileIds(listDir);
  } catch {
    return [];
  }
}

/**
 * What tasks changed in the list that its journal no longer holds: runs traced outside
 * the folder (history/write-traces.ts) before the journal's first line, when the folder
 * was removed with its journal (or the journal alone). Their changes cannot be replayed;
 * said, with the tasks they touched. `highestId`: the highest id tasks ever created there.
 */
function lostChanges(listDir: string, listId: string): { warning: string | undefined; highestId: bigint } {
  const traces = readWriteTraces(path.dirname(listDir), listId);
  // An id whose file is still there keeps itself from being handed out: only a gone one needs the mark.
  const onDisk = idsOnDisk(listDir).reduce((top, id) => (BigInt(id) > top ? BigInt(id) : top), 0n);
  const traced = traces.reduce((top, t) => (t.id !== undefined && BigInt(t.id) > top ? BigInt(t.id) : top), 0n);
  const highestId = traced > onDisk ? traced : 0n;
  const journal = readJournal(listDir);
  const first = journal.entries[0] === undefined ? Number.POSITIVE_INFINITY : Date.parse(journal.entries[0].at);
  // A journal read only in part starts later than its list: what is before it is not lost.
  const lost = journal.partial ? [] : traces.filter((t) => t.at < first - SLACK_MS);
  if (lost.length === 0) return { warning: undefined, highestId };
  const tasks = [...new Set(lost.flatMap((t) => t.tasks ?? []))].sort(compareIds);
  const last = new Date((lost.at(-1) as WriteTrace).at).toISOString();
  const named = tasks.length === 0 ? '' : ` (${tasks.map((t) => `#${t}`).join(', ')})`;
  return {
    warning: `changes made with tasks to this list up to ${last}${named} went with its journal when the folder was removed: they cannot be restored, so those tasks come back as the agents left them; check them`,
    highestId,
  };
}

/**
 * Restore `listId` (folder `listDir`) from its sessions' transcripts. Refuses nothing:
 * with no transcript or no task in them the outcome says so (the caller decides how to
 * tell it); a dry run writes nothing, not even the folder.
 */
export async function restoreList(
  index: SessionIndex,
  listDir: string,
  listId: string,
  opts: RestoreOptions = {},
): Promise<RestoreOutcome> {
  const sources = restoreSources(index, listId, opts.from);
  const named = opts.from !== undefined && opts.from.length > 0;
  const shared = sharedSessions(index, listId, sources);
  // Named sources are the person's choice: the others that share their tasks are only said.
  if (!named) pushAll(sources, shared.shares);
  const mayHoldMore = named ? [...shared.shares.map((s) => s.sessionId), ...shared.maybe] : shared.maybe;
  const { replay, counts, copied } = await recordOf(index, sources, listDir, listId, opts.signal);
  const { items, warnings: replayWarnings, changedAt, ...counted } = replay;
  const warnings = [
    ...replayWarnings,
    ...mayHoldMore.map((id) => `session ${id.slice(0, 8)} shows tasks of this list too and may hold more of it: --from ${id}`),
  ];
  const lost = lostChanges(listDir, listId);
  if (lost.warning !== undefined) warnings.push(lost.warning);
  // No id any transcript read, or tasks itself, shows handed out is handed out again, whether or not its task comes back.
  const seen = highestIdSeen(index, sources);
  const recorded = replay.highestId === undefined ? 0n : BigInt(replay.highestId);
  const highest = [seen, recorded, lost.highestId].reduce((a, b) => (b > a ? b : a));
  const before = readHighWaterMark(listDir);
  const outcome = await importSnapshot(
    listDir,
    { format: 'transcript', found: '', items, refsAreIds: true, warnings },
    {
      dryRun: opts.dryRun,
      sameTasks: true,
      markAtLeast: highest === 0n ? undefined : String(highest),
      // Each file dated when the record last changed its task: a stall and the last change stay the agents'.
      changedAt,
      signal: opts.signal,
      ...(opts.now ? { now: opts.now } : {}),
    },
  );
  const after = opts.dryRun ? (highest > before ? highest : before) : readHighWaterMark(listDir);
  return {
    ...outcome,
    sources: sources.map((s, i) => ({ ...s, changes: counts[i] ?? 0 })),
    replay: { ...counted, copied },
    mark: { before: String(before), after: String(after) },
  };
}
