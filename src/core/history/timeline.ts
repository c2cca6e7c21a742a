export type { EventChange, TimelineEvent, UnrecordedCause, Who } from './events.js';

import { pushAll } from '../base/many-items.js';
import type { SessionInfo } from '../sessions/session-index.js';
import { onListAt, type SessionMove } from '../sessions/session-moves.js';
import { sessionTranscripts } from '../sessions/transcript-lines.js';
import { isTaskId } from '../store/ids.js';
import type { CrashedRun } from './crashed-author.js';
import type { TimelineEvent, Who } from './events.js';
import type { JournalEntry } from './journal.js';
import { confirmedEntries, type Damage, readJournal } from './journal-read.js';
import { replay } from './replay.js';
import { type AgentChange, readAgentChanges } from './transcript-events.js';
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
  /**
   * Of those, the copies of a parent that is a session of this list too (a fork that shares
   * its parent's list, a named one) made while the parent was on this list (a parent moved
   * here by `tasks use` made those before the move in its old list): counted here, once,
   * as the parent's own changes.
   */
  copiedHere: number;
  /** Only the end of the journal or of a transcript was read: the record starts later. */
  partial: boolean;
  /** Some session of the list was told that the app keeps statuses itself. */
  appKeepsStatuses: boolean;
  /** The time an event sorts by where its record's order places it before its own (inWriteOrder). */
  sortAt?: ReadonlyMap<TimelineEvent, string>;
}

export function fromJournal(entries: readonly JournalEntry[], list: string): TimelineEvent[] {
  const out: TimelineEvent[] = [];
  for (const e of entries) {
    const who: Who = { kind: e.actor.kind, name: e.actor.name, session: e.actor.session ?? null };
    for (const c of e.changes) {
      const base = { at: e.at, list, who, source: 'journal' as const, command: e.command, txn: e.txn };
      const changes: TimelineEvent['changes'] = {};
      switch (c.op) {
        case 'update':
          for (const k in c.fields) {
            const f = c.fields[k] as { old?: unknown; new?: unknown };
            changes[k] = { old: 'old' in f ? f.old : null, new: 'new' in f ? f.new : null };
          }
          out.push({ ...base, task: c.id, op: 'update', changes });
          break;
        case 'create':
        case 'delete':
          for (const k in c.task) if (k !== 'id') changes[k] = c.op === 'create' ? { new: c.task[k] } : { old: c.task[k] };
          out.push({ ...base, task: c.id, op: c.op, changes });
          break;
        case 'aside':
          out.push({ ...base, task: c.id, op: 'aside', changes: { file: { old: c.file, new: c.to } } });
          break;
        case 'mark':
          out.push({ ...base, task: null, op: 'mark', changes: { highWaterMark: { old: c.old, new: c.new } } });
          break;
        default:
          out.push({
            ...base,
            task: null,
            op: 'removed',
            changes: { [c.what === 'lock' ? 'lock' : 'tempFile']: { old: c.file, new: null } },
          });
      }
    }
  }
  return out;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const timeKey = (at: string) => (ISO.test(at) ? at : new Date(Date.parse(at) || 0).toISOString());

/**
 * These events of one record (the journal, one transcript), in the order it was written,
 * sort in that order: one whose time is later than a line written after it (the clock
 * went back in between: a VM resumed, NTP stepped it back) sorts at that later line's
 * time. Its time is shown as written; only its place in the timeline follows the record,
 * so the changes after it are not taken for changes no record shows.
 */
function inWriteOrder(events: readonly TimelineEvent[], sortAt: Map<TimelineEvent, string>): void {
  let next: string | undefined;
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i] as TimelineEvent;
    const own = timeKey(e.at);
    const key = next !== undefined && next < own ? next : own;
    if (key !== own) sortAt.set(e, key);
    next = key;
  }
}

/**
 * Oldest first, by time (a record's own order kept: inWriteOrder); at the same instant,
 * the order given stands. Times written by toISOString (all of ours and Claude Code's)
 * sort as text; others are parsed.
 */
export function byTime(events: readonly TimelineEvent[], sortAt?: ReadonlyMap<TimelineEvent, string>): TimelineEvent[] {
  const keyed = events.map((e, i) => ({ e, i, k: sortAt?.get(e) ?? timeKey(e.at) }));
  keyed.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : a.i - b.i));
  return keyed.map((x) => x.e);
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
  /**
   * A session's moves between lists (session-segments.ts sessionMovesOf): those `tasks
   * use` recorded, else those its writes show (a session resumed under another list).
   */
  movesOf: (session: SessionInfo) => readonly SessionMove[] | undefined;
  /** Stops the reading between two reads (Ctrl-C). */
  signal?: AbortSignal | undefined;
  /** Add what no record explains, from the files as they are (unrecorded.ts). */
  unrecorded?: boolean;
  /** The crashed runs of the list's sessions, for a change no record explains (crashed-author.ts crashedRunsOf). */
  crashedRuns?: readonly CrashedRun[] | undefined;
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
  const sortAt = new Map<TimelineEvent, string>();
  inWriteOrder(events, sortAt);
  let transcripts = 0;
  let copied = 0;
  let copiedHere = 0;
  const ofList = new Map(opts.sessions.filter((s) => s.transcript !== undefined).map((s) => [s.sessionId, s]));
  let partial = journal.partial;
  let appKeepsStatuses = false;
  const seen = new Set<string>();
  for (const session of opts.sessions) {
    if (session.transcript === undefined) continue;
    // A session that moved between lists counts here on this list's side of each move only.
    const movesOf = opts.movesOf(session);
    for (const { file, agent } of sessionTranscripts(session.transcript, session.sessionId)) {
      transcripts++;
      const read = await readAgentChanges(file, session.sessionId, agent, { signal: opts.signal });
      copied += read.copied;
      // A parent of this list too: its changes made here (on this list's side of its own moves), not those before it moved here.
      for (const [parent, times] of read.copiedFrom) {
        const info = ofList.get(parent);
        if (info === undefined) continue;
        const parentMoves = opts.movesOf(info);
        for (const at of times) if (onListAt(parentMoves, opts.listId, at)) copiedHere++;
      }
      partial ||= read.from > 0;
      appKeepsStatuses ||= read.appKeepsStatuses;
      // An entry seen in two transcripts (a copy no marker told apart) is one change; an id
      // Claude Code could never hand out (a hostile or damaged transcript) names no task.
      const own = read.changes.filter(
        (c) => isTaskId(c.taskId) && (c.uuid === undefined || !seen.has(c.uuid)) && onListAt(movesOf, opts.listId, c.at),
      );
      for (const c of own) if (c.uuid !== undefined) seen.add(c.uuid);
      const mine = fromTranscript(own, opts.listId);
      inWriteOrder(mine, sortAt);
      pushAll(events, mine);
    }
  }
  // Oldest first; at the same instant, the journal's order and then the transcript's stand.
  let ordered = byTime(events, sortAt);
  const state = replay(ordered);
  if (opts.unrecorded) {
    const found = unrecordedEvents(listDir, ordered, state, {
      list: opts.listId,
      sessionsKnown: transcripts > 0,
      appKeepsStatuses,
      partial,
      crashed: opts.crashedRuns,
    });
    if (found.length > 0) ordered = byTime([...ordered, ...found], sortAt);
  }
  return {
    list: opts.listId,
    events: ordered,
    damaged: journal.damaged,
    problems: journal.problems,
    transcripts,
    copied,
    copiedHere,
    partial,
    appKeepsStatuses,
    sortAt,
  };
}

/** Of these tasks (on disk now), those whose creation no record shows: made before the record starts, or by a session not known. */
export function createdOutsideRecord(events: readonly TimelineEvent[], taskIds: readonly string[]): string[] {
  const created = new Set(events.filter((e) => e.op === 'create' && e.task !== null).map((e) => e.task));
  return taskIds.filter((id) => !created.has(id));
}

/** Several lists' timelines as one, oldest first (`log --all`). */
export function mergeTimelines(timelines: readonly Timeline[]): TimelineEvent[] {
  if (timelines.length === 1) return [...(timelines[0] as Timeline).events];
  const sortAt = new Map(timelines.flatMap((t) => [...(t.sortAt ?? [])]));
  return byTime(
    timelines.flatMap((t) => t.events),
    sortAt,
  );
}
