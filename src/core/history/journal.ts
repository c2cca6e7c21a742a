/**
 * History: who changed what, and when. Agents' changes are already recorded, with time
 * and author, in their sessions' transcripts (docs/task-store.md sections 9 and 10); the
 * changes made by `tasks` itself are recorded here, in a journal beside the tasks (this
 * file), and the two are merged into one timeline (timeline.ts) that `tasks log` shows
 * and from which `tasks undo` takes back a person's last change (undo.ts).
 *
 * The journal is `<list>/.tasks-journal.jsonl`: agents read only `*.json` files, and a
 * list reset deletes only task files, so it is invisible to them and outlives a reset.
 * One JSON line per command (a large import: several lines of one `txn`), appended with
 * one write to a file opened for append, so lines from concurrent processes never
 * interleave or tear. A string value over MAX_VALUE_CHARS is kept cut: its start, its
 * length and its SHA-256.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Task } from '../store/schema.js';

export const JOURNAL_FILE = '.tasks-journal.jsonl';
/** Longer strings are stored cut (an agent's 10 MB description must not make a line of it). */
export const MAX_VALUE_CHARS = 16384;
/** A line is at most about this long; more changes go on more lines of the same txn. */
export const MAX_LINE_BYTES = 60 * 1024;
/** Reading: a journal past this is read from its end. */
const MAX_READ_BYTES = 64 * 1024 * 1024;

export interface Actor {
  kind: 'person' | 'agent';
  name: string;
}

/** A field's value before and after; a missing `old` or `new` means the field was absent. */
export interface FieldChange {
  old?: unknown;
  new?: unknown;
}

export type JournalChange =
  | { id: string; op: 'create'; task: Task }
  | { id: string; op: 'delete'; task: Task }
  | { id: string; op: 'update'; fields: Record<string, FieldChange> };

export interface JournalEntry {
  v: 1;
  at: string;
  actor: Actor;
  command: string;
  /** One per command run: the lines of one large change share it, and undo takes them together. */
  txn: string;
  /** For an undo: the txn it took back. */
  undoes?: string;
  /** This change made the list folder: undoing it takes the list back too, once it is empty. */
  newList?: true;
  changes: JournalChange[];
}

/** A value stored cut. */
export interface CutValue {
  $cut: { length: number; sha256: string; head: string };
}

function isCut(value: unknown): value is CutValue {
  return typeof value === 'object' && value !== null && '$cut' in value;
}

/** Does any string inside `value` stand cut in the journal? */
export function holdsCut(value: unknown): boolean {
  if (isCut(value)) return true;
  if (Array.isArray(value)) return value.some(holdsCut);
  if (typeof value === 'object' && value !== null) return Object.values(value).some(holdsCut);
  return false;
}

function cut(value: unknown): unknown {
  if (typeof value === 'string') {
    if (value.length <= MAX_VALUE_CHARS) return value;
    const sha256 = crypto().createHash('sha256').update(value).digest('hex');
    return { $cut: { length: value.length, sha256, head: value.slice(0, 200) } } satisfies CutValue;
  }
  if (Array.isArray(value)) return value.map(cut);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cut(v)]));
  return value;
}

/** node:crypto, loaded the first time a value is cut: most commands never need it. */
function crypto(): typeof import('node:crypto') {
  return (
    typeof require === 'function' ? require('node:crypto') : createRequire(import.meta.url)('node:crypto')
  ) as typeof import('node:crypto');
}

export function journalPath(listDir: string): string {
  return path.join(listDir, JOURNAL_FILE);
}

/**
 * Append an entry: one line per write(2), opened for append. Changes beyond a line's
 * room go on further lines of the same txn. Throws on an I/O error; callers warn and go on.
 * Returns the ids of tasks whose change was stored with a value cut (undo cannot restore it).
 */
export function appendJournal(listDir: string, entry: JournalEntry): string[] {
  const cutIds: string[] = [];
  const lines: string[] = [];
  let batch: JournalChange[] = [];
  let size = 0;
  const push = () => {
    if (batch.length > 0) lines.push(JSON.stringify({ ...entry, changes: batch }));
    batch = [];
    size = 0;
  };
  for (const change of entry.changes) {
    const stored = cut(change) as JournalChange;
    if (holdsCut(stored)) cutIds.push(change.id);
    const bytes = Buffer.byteLength(JSON.stringify(stored));
    if (size + bytes > MAX_LINE_BYTES) push();
    batch.push(stored);
    size += bytes;
  }
  push();
  // Non-blocking: a FIFO put where the journal goes must not hang the command.
  const fd = fs.openSync(
    journalPath(listDir),
    fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK,
    0o644,
  );
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new Error(`${JOURNAL_FILE} is not a regular file`);
    // A line torn by a crash mid-write: ours starts on a line of its own, not glued to it.
    if (stat.size > 0 && lastByte(journalPath(listDir), stat.size) !== 10) lines[0] = `\n${lines[0]}`;
    for (const line of lines) {
      const data = Buffer.from(`${line}\n`);
      const n = fs.writeSync(fd, data);
      if (n !== data.length) throw new Error(`short write to ${JOURNAL_FILE} (${n} of ${data.length} bytes)`);
    }
  } finally {
    fs.closeSync(fd);
  }
  return cutIds;
}

function lastByte(file: string, size: number): number | undefined {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  try {
    const one = Buffer.alloc(1);
    return fs.readSync(fd, one, 0, 1, size - 1) === 1 ? one[0] : undefined;
  } finally {
    fs.closeSync(fd);
  }
}

export interface JournalRead {
  entries: JournalEntry[];
  /** The line number of the last entry (0: none). */
  lastEntryLine: number;
  /** Lines that are not journal entries: skipped, each with its line number. */
  damaged: Array<{ line: number; reason: string }>;
}

function looksLikeEntry(v: unknown): v is JournalEntry {
  if (typeof v !== 'object' || v === null) return false;
  const e = v as Record<string, unknown>;
  const actor = e.actor as Record<string, unknown> | undefined;
  return (
    e.v === 1 &&
    typeof e.at === 'string' &&
    Number.isFinite(Date.parse(e.at)) &&
    typeof e.command === 'string' &&
    typeof e.txn === 'string' &&
    typeof actor?.name === 'string' &&
    (actor.kind === 'person' || actor.kind === 'agent') &&
    Array.isArray(e.changes) &&
    e.changes.every((c: unknown) => {
      const ch = c as Record<string, unknown> | null;
      if (!ch || typeof ch.id !== 'string') return false;
      if (ch.op === 'update') return typeof ch.fields === 'object' && ch.fields !== null;
      return (ch.op === 'create' || ch.op === 'delete') && typeof ch.task === 'object' && ch.task !== null;
    })
  );
}

/** Every entry, oldest first; a missing journal is an empty one. */
export function readJournal(listDir: string): JournalRead {
  const out: JournalRead = { entries: [], lastEntryLine: 0, damaged: [] };
  let text: string;
  try {
    const fd = fs.openSync(journalPath(listDir), fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW);
    try {
      const stat = fs.fstatSync(fd);
      if (!stat.isFile()) return { entries: [], lastEntryLine: 0, damaged: [{ line: 0, reason: `${JOURNAL_FILE} is not a regular file` }] };
      const start = Math.max(0, stat.size - MAX_READ_BYTES);
      const buffer = Buffer.allocUnsafe(stat.size - start);
      let filled = 0;
      while (filled < buffer.length) {
        const n = fs.readSync(fd, buffer, filled, buffer.length - filled, start + filled);
        if (n <= 0) break;
        filled += n;
      }
      text = buffer.toString('utf8', 0, filled);
      if (start > 0) text = text.slice(text.indexOf('\n') + 1);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return out;
  }
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      out.damaged.push({ line: i + 1, reason: 'not JSON' });
      return;
    }
    if (looksLikeEntry(value)) {
      out.entries.push(value);
      out.lastEntryLine = i + 1;
    } else out.damaged.push({ line: i + 1, reason: 'not a journal entry' });
  });
  return out;
}

/**
 * Owners that changes made with `tasks` gave tasks: people and `--as` names, not a
 * session's agents, so never "gone" with a session.
 */
export function ownersSetWithTasks(listDir: string): Set<string> {
  const owners = new Set<string>();
  for (const entry of readJournal(listDir).entries) {
    for (const change of entry.changes) {
      const owner = change.op === 'update' ? change.fields.owner?.new : change.op === 'create' ? change.task.owner : undefined;
      if (typeof owner === 'string' && owner !== '') owners.add(owner);
    }
  }
  return owners;
}
