import { sameValue } from '../base/same-value.js';
import { sessionsOfList } from '../sessions/list-sessions.js';
import type { SessionIndex } from '../sessions/session-index.js';
import { sessionTranscripts } from '../sessions/transcript-lines.js';
import type { Task } from '../store/schema.js';
import { type FieldChange, type JournalEntry, readJournal } from './journal.js';
import { type AgentChange, readAgentChanges } from './transcript-events.js';

/** Who made a change: a person (by login name) or an agent (by its `--as` name, or its session). */
export interface Who {
  kind: 'person' | 'agent';
  name: string | null;
  /** The agent's session, for changes read from a transcript. */
  session: string | null;
}

/**
 * A field's change: `null` stands for an absent field; a missing `old` means no record
 * tells it. For `blocks` / `blockedBy` added by an agent to a task whose list of them no
 * record tells, only `added` is known.
 */
export type EventChange = FieldChange & { added?: string[] };

/** One change to one task, from either source: the stable shape of `tasks log --json`. */
export interface TimelineEvent {
  at: string;
  task: string;
  op: 'create' | 'update' | 'delete';
  who: Who;
  /** Fields with their old and new values; an `old` is absent where no record tells it. */
  changes: Record<string, EventChange>;
  source: 'journal' | 'transcript';
  /** The `tasks` command (journal only). */
  command: string | null;
}

export interface Timeline {
  events: TimelineEvent[];
  /** Damaged journal lines, skipped. */
  damaged: Array<{ line: number; reason: string }>;
  /** The transcripts read (their sessions wrote to this list). */
  transcripts: number;
}

function fromJournal(entries: readonly JournalEntry[]): TimelineEvent[] {
  return entries.flatMap((e) =>
    e.changes.map((c): TimelineEvent => {
      const who: Who = { kind: e.actor.kind, name: e.actor.name, session: null };
      const base = { at: e.at, task: c.id, who, source: 'journal' as const, command: e.command };
      if (c.op === 'update') {
        const fields = Object.fromEntries(
          Object.entries(c.fields).map(([k, f]) => [k, { old: 'old' in f ? f.old : null, new: 'new' in f ? f.new : null }]),
        );
        return { ...base, op: 'update', changes: fields };
      }
      const fields = Object.fromEntries(
        Object.entries(c.task)
          .filter(([k]) => k !== 'id')
          .map(([k, v]) => [k, c.op === 'create' ? { new: v } : { old: v }]),
      );
      return { ...base, op: c.op, changes: fields };
    }),
  );
}

function fromTranscript(changes: readonly AgentChange[]): TimelineEvent[] {
  return changes.map((c) => ({
    at: new Date(c.at).toISOString(),
    task: c.taskId,
    op: c.op,
    who: { kind: 'agent', name: c.agent ?? null, session: c.sessionId },
    changes: c.fields,
    source: 'transcript',
    command: null,
  }));
}

/**
 * Old values a transcript does not state, filled in from the events before (a replay of
 * what the record tells); edge additions become the lists they made. Mutates the events.
 */
function replay(events: TimelineEvent[]): Map<string, Record<string, unknown>> {
  const state = new Map<string, Record<string, unknown>>();
  for (const e of events) {
    const known = state.get(e.task) ?? {};
    if (e.op === 'delete') {
      state.delete(e.task);
      continue;
    }
    if (e.op === 'create') {
      // Created within the record: every field is known from here on (null: absent).
      const created: Record<string, unknown> = { activeForm: null, owner: null, metadata: null, blocks: [], blockedBy: [] };
      for (const [k, v] of Object.entries(e.changes)) created[k] = v.new;
      state.set(e.task, created);
      continue;
    }
    for (const [key, change] of Object.entries({ ...e.changes })) {
      if (key === 'addBlockedBy' || key === 'addBlocks') {
        const field = key === 'addBlockedBy' ? 'blockedBy' : 'blocks';
        const before = Array.isArray(known[field]) ? (known[field] as string[]) : undefined;
        const added = (change.new as string[]).filter((id) => !before?.includes(id));
        delete e.changes[key];
        e.changes[field] = before === undefined ? { added } : { old: before, new: [...before, ...added] };
        known[field] = before === undefined ? undefined : [...before, ...added];
        continue;
      }
      if (!('old' in change) && key in known) e.changes[key] = { old: known[key], new: change.new };
      known[key] = 'new' in change ? change.new : null;
    }
    state.set(e.task, known);
  }
  return state;
}

export interface TimelineOptions {
  index: SessionIndex;
  listId: string;
  /** Only this task's events. */
  task?: string | undefined;
  /** Skip transcripts not written since this time (ms): they cannot hold later changes. */
  changedSince?: number | undefined;
  /**
   * Also the sessions tied to a named list by their transcripts (sessions/list-sessions.ts):
   * reads them all, so only `log` asks; `get`'s last change makes do with the sessions
   * the files name.
   */
  deep?: boolean | undefined;
}

/** Every recorded change to a list (or one task), oldest first: the journal and its sessions' transcripts. */
export function readTimeline(listDir: string, opts: TimelineOptions): Timeline {
  const journal = readJournal(listDir);
  const events = fromJournal(journal.entries);
  let transcripts = 0;
  for (const session of sessionsOfList(opts.index, opts.listId, { deep: opts.deep })) {
    if (session.transcript === undefined) continue;
    if (opts.changedSince !== undefined && (session.lastActivity ?? Infinity) < opts.changedSince) continue;
    for (const { file, agent } of sessionTranscripts(session.transcript, session.sessionId)) {
      transcripts++;
      events.push(...fromTranscript(readAgentChanges(file, session.sessionId, agent)));
    }
  }
  // Oldest first; at the same instant, the journal's order and then the transcript's stand.
  const ordered = events
    .map((e, i) => ({ e, i }))
    .sort((a, b) => Date.parse(a.e.at) - Date.parse(b.e.at) || a.i - b.i)
    .map((x) => x.e);
  replay(ordered);
  const wanted = opts.task === undefined ? ordered : ordered.filter((e) => e.task === opts.task);
  return { events: wanted, damaged: journal.damaged, transcripts };
}

/** Tasks on disk now whose creation no record shows, and tasks whose present no record explains. */
export function gapsOf(events: readonly TimelineEvent[], tasks: readonly Task[]): { before: string[]; unexplained: string[] } {
  const created = new Set(events.filter((e) => e.op === 'create').map((e) => e.task));
  const last = new Map<string, Record<string, unknown>>();
  for (const e of events) {
    if (e.op === 'delete') {
      last.delete(e.task);
      continue;
    }
    const state = e.op === 'create' ? {} : (last.get(e.task) ?? {});
    for (const [k, v] of Object.entries(e.changes)) if ('new' in v) state[k] = v.new;
    last.set(e.task, state);
  }
  const before = tasks.filter((t) => !created.has(t.id)).map((t) => t.id);
  const unexplained = tasks
    .filter((t) => created.has(t.id))
    .filter((t) => {
      const known = last.get(t.id) ?? {};
      return ['status', 'owner', 'subject'].some((k) => k in known && !sameValue(known[k], t[k]));
    })
    .map((t) => t.id);
  return { before, unexplained };
}
