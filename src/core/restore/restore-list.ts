/**
 * Restore: a list Claude Code deleted or reset, rebuilt from its sessions' transcripts.
 * Interactive sessions delete every task file once all are completed (a reset,
 * docs/task-store.md section 6.7), lists are emptied and garbage-collected (section 17),
 * and a removed folder starts again from #1; the transcripts keep every Task-tool call
 * with its result. Which transcripts (restore-sources.ts), the list they record
 * (replay-changes.ts), and the write: through the import's plan and batches
 * (snapshots/), each task under its own id wherever no file has it, nothing that exists
 * written over (a task with the same subject is left as it is; another task holding
 * the id sends the restored one to a new id), and `.highwatermark` raised to the
 * highest id the record shows, so that none is handed out again. Lists whose folder is
 * gone while their transcripts remain: gone-lists.ts.
 */
import { readJournal } from '../history/journal.js';
import { readAgentChanges } from '../history/transcript-events.js';
import type { SessionIndex } from '../sessions/session-index.js';
import { sessionTranscripts } from '../sessions/transcript-lines.js';
import { type ImportOutcome, importSnapshot } from '../snapshots/import-run.js';
import { readHighWaterMark } from '../store/list-read.js';
import { type RecordedChange, type ReplayedList, replayChanges } from './replay-changes.js';
import { type RestoreSource, restoreSources } from './restore-sources.js';

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
  replay: Omit<ReplayedList, 'items' | 'warnings'>;
  /** The high-water mark before, and after (or, in a dry run, as it would be). */
  mark: { before: string; after: string };
}

/**
 * The list a set of transcripts records, with the changes made with tasks that the
 * list's journal keeps (when `listDir` is given: a journal outlives a reset), oldest
 * change first across them. Transcripts are read in bounded pieces.
 */
export function readRecord(sources: readonly RestoreSource[], listDir?: string): { replay: ReplayedList; counts: number[] } {
  const all: RecordedChange[][] = sources.map((source) =>
    sessionTranscripts(source.transcript, source.sessionId).flatMap(({ file, agent }) =>
      readAgentChanges(file, source.sessionId, agent).map((c): RecordedChange => ({ ...c, source: 'agent' })),
    ),
  );
  const journal = listDir === undefined ? [] : journalChanges(listDir);
  // Oldest first; at the same instant, the order of the sources and of each file stands.
  const merged = [...all, journal]
    .flatMap((changes, s) => changes.map((change, i) => ({ change, s, i })))
    .sort((a, b) => a.change.at - b.change.at || a.s - b.s || a.i - b.i)
    .map((x) => x.change);
  return { replay: replayChanges(merged), counts: all.map((c) => c.length) };
}

/**
 * The changes made with tasks, from the list's journal: each task's fields before and
 * after. A restore's own writes (and undos of them) are left out: they put the record
 * back, and counting them would count its tasks twice.
 */
function journalChanges(listDir: string): RecordedChange[] {
  const entries = readJournal(listDir).entries;
  const restores = new Set(entries.filter((e) => e.command === 'restore').map((e) => e.txn));
  const undoesRestore = (e: (typeof entries)[number]) => {
    const targets = (e as { undoes?: unknown; redoes?: unknown }).undoes ?? (e as { redoes?: unknown }).redoes;
    const list = Array.isArray(targets) ? targets : typeof targets === 'string' ? [targets] : [];
    return list.some((t) => restores.has(String(t)));
  };
  return entries.flatMap((entry) => {
    const at = Date.parse(entry.at);
    if (!Number.isFinite(at) || restores.has(entry.txn) || undoesRestore(entry)) return [];
    return entry.changes.map((c): RecordedChange => {
      if (c.op === 'update') return { at, taskId: c.id, op: 'update', source: 'tasks', fields: c.fields };
      const fields = Object.fromEntries(Object.entries(c.task).map(([k, v]) => [k, { new: v }]));
      return { at, taskId: c.id, op: c.op, source: 'tasks', fields };
    });
  });
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
  const { replay, counts } = readRecord(sources, listDir);
  const { items, warnings, ...counted } = replay;
  const before = readHighWaterMark(listDir);
  const outcome = await importSnapshot(
    listDir,
    { format: 'transcript', found: '', items, refsAreIds: true, warnings },
    {
      dryRun: opts.dryRun,
      sameTasks: true,
      markAtLeast: replay.highestId,
      signal: opts.signal,
      ...(opts.now ? { now: opts.now } : {}),
    },
  );
  const highest = replay.highestId === undefined ? 0n : BigInt(replay.highestId);
  const after = opts.dryRun ? (highest > before ? highest : before) : readHighWaterMark(listDir);
  return {
    ...outcome,
    sources: sources.map((s, i) => ({ ...s, changes: counts[i] ?? 0 })),
    replay: counted,
    mark: { before: String(before), after: String(after) },
  };
}
