export type { EventChange, TimelineEvent, UnrecordedCause, Who } from './events.js';

import type { SessionInfo } from '../sessions/session-index.js';
import type { TimelineEvent, Who } from './events.js';
import type { JournalEntry } from './journal.js';
import { confirmedEntries, type Damage, readJournal } from './journal-read.js';
import { replay } from './replay.js';
import { type AgentChange, readAgentChanges, sessionTranscripts } from './transcript-events.js';
import { unrecordedEvents } from './unrecorded.js';

export interface Timeline {
  list: string;
  events: TimelineEvent[];
  /** Damaged journal lines, skipped. */
  damaged: Damage[];
  /** A journal that is not a regular file (not read). */
  problems: string[];
  /** The transcripts read (their sessions wrote to this list). */
  transcripts: number;
  /** Changes seen in copies of a parent's entries (a forked session): counted in the parent's list only. */
  copied: number;
  /** Only the end of the journal or of a transcript was read: the record starts later. */
  partial: boolean;
  /** Some session of the list was told that the app keeps statuses itself. */
  appKeepsStatuses: boolean;
}

export function fromJournal(entries: readonly JournalEntry[], list: string): TimelineEvent[] {
  return entries.flatMap((e) =>
    e.changes.map((c): TimelineEvent => {
      const who: Who = { kind: e.actor.kind, name: e.actor.name, session: e.actor.session ?? null };
      const base = { at: e.at, list, who, source: 'journal' as const, command: e.command, txn: e.txn };
      switch (c.op) {
        case 'update': {
          const fields = Object.fromEntries(
            Object.entries(c.fields).map(([k, f]) => [k, { old: 'old' in f ? f.old : null, new: 'new' in f ? f.new : null }]),
          );
          return { ...base, task: c.id, op: 'update', changes: fields };
        }
        case 'create':
        case 'delete': {
          const fields = Object.fromEntries(
            Object.entries(c.task)
              .filter(([k]) => k !== 'id')
              .map(([k, v]) => [k, c.op === 'create' ? { new: v } : { old: v }]),
          );
          return { ...base, task: c.id, op: c.op, changes: fields };
        }
        case 'aside':
          return { ...base, task: c.id, op: 'aside', changes: { file: { old: c.file, new: c.to } } };
        case 'mark':
          return { ...base, task: null, op: 'mark', changes: { highWaterMark: { old: c.old, new: c.new } } };
        default:
          return { ...base, task: null, op: 'removed', changes: { [c.what === 'lock' ? 'lock' : 'tempFile']: { old: c.file, new: null } } };
      }
    }),
  );
}

export function fromTranscript(changes: readonly AgentChange[], list: string): TimelineEvent[] {
  return changes.map((c) => ({
    at: new Date(c.at).toISOString(),
    list,
    task: c.taskId,
    op: c.op,
    who: { kind: 'agent', name: c.agent ?? null, session: c.sessionId },
    changes: c.fields,
    source: 'transcript',
    command: null,
    txn: null,
  }));
}

export interface TimelineOptions {
  listId: string;
  /** The sessions whose transcripts hold this list's agents' changes. */
  sessions: readonly SessionInfo[];
  /** Stops the reading between two reads (Ctrl-C). */
  signal?: AbortSignal | undefined;
  /** Add what no record explains, from the files as they are (unrecorded.ts). */
  unrecorded?: boolean;
}

/**
 * Every recorded change to a list, oldest first: the journal and its sessions'
 * transcripts, each change once (a fork's copies of its parent's entries are counted
 * in the parent's list only; an entry seen in two transcripts once). Old values a
 * transcript does not state are filled in from the changes before (replay.ts).
 */
export async function readTimeline(listDir: string, opts: TimelineOptions): Promise<Timeline> {
  const journal = readJournal(listDir);
  const events = fromJournal(confirmedEntries(journal.entries, listDir), opts.listId);
  let transcripts = 0;
  let copied = 0;
  let partial = journal.partial;
  let appKeepsStatuses = false;
  const seen = new Set<string>();
  for (const session of opts.sessions) {
    if (session.transcript === undefined) continue;
    for (const { file, agent } of sessionTranscripts(session.transcript, session.sessionId)) {
      transcripts++;
      const read = await readAgentChanges(file, session.sessionId, agent, { signal: opts.signal });
      copied += read.copied;
      partial ||= read.from > 0;
      appKeepsStatuses ||= read.appKeepsStatuses;
      // An entry seen in two transcripts (a copy no marker told apart) is one change.
      const own = read.changes.filter((c) => c.uuid === undefined || !seen.has(c.uuid));
      for (const c of own) if (c.uuid !== undefined) seen.add(c.uuid);
      events.push(...fromTranscript(own, opts.listId));
    }
  }
  // Oldest first; at the same instant, the journal's order and then the transcript's stand.
  const ordered = events
    .map((e, i) => ({ e, i }))
    .sort((a, b) => Date.parse(a.e.at) - Date.parse(b.e.at) || a.i - b.i)
    .map((x) => x.e);
  const state = replay(ordered);
  if (opts.unrecorded) {
    const found = unrecordedEvents(listDir, ordered, state, {
      list: opts.listId,
      sessionsKnown: transcripts > 0,
      appKeepsStatuses,
      partial,
    });
    ordered.push(...found);
    ordered.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  }
  return {
    list: opts.listId,
    events: ordered,
    damaged: journal.damaged,
    problems: journal.problems,
    transcripts,
    copied,
    partial,
    appKeepsStatuses,
  };
}

/** Of these tasks (on disk now), those whose creation no record shows: made before the record starts, or by a session not known. */
export function createdOutsideRecord(events: readonly TimelineEvent[], taskIds: readonly string[]): string[] {
  const created = new Set(events.filter((e) => e.op === 'create' && e.task !== null).map((e) => e.task));
  return taskIds.filter((id) => !created.has(id));
}

/** Several lists' timelines as one, oldest first (`log --all`). */
export function mergeTimelines(timelines: readonly Timeline[]): TimelineEvent[] {
  return timelines
    .flatMap((t) => t.events)
    .map((e, i) => ({ e, i }))
    .sort((a, b) => Date.parse(a.e.at) - Date.parse(b.e.at) || a.i - b.i)
    .map((x) => x.e);
}
