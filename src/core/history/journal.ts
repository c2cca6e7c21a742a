/**
 * History: who changed what, and when. Agents' changes are already recorded, with time
 * and author, in their sessions' transcripts (docs/task-store.md sections 9, 10 and 14);
 * the changes made by `tasks` itself are recorded here, in a journal beside the tasks
 * (this file: its format and how it is appended; journal-read.ts reads it), and the two
 * are merged into one timeline (timeline.ts) that `tasks log` shows and from which
 * `tasks undo` and `tasks redo` step back and forth (undo-stack.ts, undo-plan.ts).
 *
 * The journal is `<list>/.tasks-journal.jsonl`: agents read only `*.json` files, and a
 * list reset deletes only task files, so it is invisible to them and outlives a reset.
 * Each change is recorded with its write: one JSON line, appended under the lock that
 * guards the change, once the new file is on disk under its temp name and just before it
 * takes the task's name (a write that then fails appends a line that says so). So a
 * process killed between the two leaves the change recorded (readers drop a record whose
 * write evidently never happened: journal-read.ts), and the journal's order is the order
 * of the writes to each task. The lines of one
 * command share its `txn`. Each line is one write(2) to a file opened for append, so
 * lines from concurrent processes never interleave or tear. A string value over
 * MAX_VALUE_CHARS is kept cut: its start, its length and its SHA-256.
 *
 * Past ROTATE_BYTES the journal is rotated (journal-rotate.ts): it becomes
 * `.tasks-journal.1.jsonl`, replacing the one before, and a new journal starts. Readers
 * read both, so what undo can reach is at least the last ROTATE_BYTES of changes.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pushAll } from '../base/many-items.js';
import type { Task } from '../store/schema.js';

export const JOURNAL_FILE = '.tasks-journal.jsonl';
/** The generation before the current one. */
export const PREVIOUS_JOURNAL_FILE = '.tasks-journal.1.jsonl';
/** Longer strings are stored cut (an agent's 10 MB description must not make a line of it). */
export const MAX_VALUE_CHARS = 16384;
/** Past this size the journal is rotated. */
export const ROTATE_BYTES = 16 * 1024 * 1024;

export interface Actor {
  kind: 'person' | 'agent';
  name: string;
  /** The Claude Code session an agent ran in (`$CLAUDE_CODE_SESSION_ID`), when it said. */
  session?: string;
}

/** A field's value before and after; a missing `old` or `new` means the field was absent. */
export interface FieldChange {
  old?: unknown;
  new?: unknown;
}

export type TaskChange =
  | { id: string; op: 'create'; task: Task }
  | { id: string; op: 'delete'; task: Task }
  | { id: string; op: 'update'; fields: Record<string, FieldChange> };

/**
 * Changes to a list's other files (`check --fix`): a corrupt task file moved aside (`file`
 * renamed `to`), the high-water mark raised, a stale lock or abandoned temp file removed.
 */
export type FileChange =
  | { id: string; op: 'aside'; file: string; to: string }
  | { op: 'mark'; old: string | null; new: string }
  | { op: 'removed'; file: string; what: 'lock' | 'temp' };

export type JournalChange = TaskChange | FileChange;

export interface JournalEntry {
  v: 1;
  at: string;
  actor: Actor;
  command: string;
  /** One per command run: the lines of one command share it, and undo takes them together. */
  txn: string;
  /** An undo: the txns it takes back (an older journal's undo names one, as a string). */
  undoes?: string[] | string;
  /** A redo: the txns it applies again. */
  redoes?: string[];
  /** The undo or redo `txn` finished: every one of its writes is made. */
  end?: true;
  /** A write announced on the line before for these ids failed: nothing of it was written. */
  aborted?: string[];
  /** This write made the list folder: undoing its command takes the list back too, once it is empty. */
  newList?: true;
  /**
   * Every list this txn changes (their ids), when it changes more than one (a carry: the
   * list carried into, then those carried from). Undo and redo take such a command back,
   * or apply it again, in each of them (undo-lists.ts).
   */
  lists?: string[];
  changes: JournalChange[];
}

/** A value stored cut. */
export interface CutValue {
  $cut: { length: number; sha256: string; head: string };
}

function isCut(value: unknown): value is CutValue {
  return typeof value === 'object' && value !== null && '$cut' in value;
}

/** Does any string inside `value` stand cut in the journal? (Values read back are depth-checked.) */
export function holdsCut(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (isCut(v)) return true;
    pushAll(stack, Array.isArray(v) ? v : Object.values(v));
  }
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

export function previousJournalPath(listDir: string): string {
  return path.join(listDir, PREVIOUS_JOURNAL_FILE);
}

/** What a journal that is not a regular file is, in words; undefined for a file or none. */
export function journalTypeProblem(file: string): string | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch {
    return undefined;
  }
  if (stat.isFile()) return undefined;
  const what = stat.isSymbolicLink()
    ? 'a symbolic link'
    : stat.isDirectory()
      ? 'a directory'
      : stat.isFIFO()
        ? 'a FIFO'
        : stat.isSocket()
          ? 'a socket'
          : 'a device';
  return `${path.basename(file)} is ${what}, not a regular file`;
}

/**
 * An entry's line: its changes with long values cut. Returns the line and the ids whose
 * change was stored with a value cut (undo cannot restore those).
 */
export function entryLine(entry: JournalEntry): { line: string; cutIds: string[] } {
  const cutIds: string[] = [];
  const changes = entry.changes.map((change) => {
    const stored = cut(change) as JournalChange;
    if ('id' in change && holdsCut(stored)) cutIds.push(change.id);
    return stored;
  });
  return { line: JSON.stringify({ ...entry, changes }), cutIds };
}

/**
 * Append lines to the journal, each with one write(2), to a file opened for append, not
 * following a symlink and not blocking on a FIFO (which is refused: not a regular file).
 * A journal whose last line was torn by a crash gets a newline first, so ours starts on a
 * line of its own. Throws on an I/O error; callers warn and go on.
 */
export function appendLines(listDir: string, lines: readonly string[]): void {
  if (lines.length === 0) return;
  const file = journalPath(listDir);
  let fd: number;
  try {
    fd = fs.openSync(
      file,
      fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK,
      0o644,
    );
  } catch (err) {
    // O_NOFOLLOW refuses a symlink with ELOOP, "too many symbolic links": say what is there.
    const problem = (err as NodeJS.ErrnoException).code === 'ELOOP' ? journalTypeProblem(file) : undefined;
    throw problem === undefined ? err : new Error(problem);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new Error(`${JOURNAL_FILE} is not a regular file`);
    let first = true;
    for (const line of lines) {
      let text = `${line}\n`;
      if (first && stat.size > 0 && lastByte(fd, stat.size) !== 10) text = `\n${text}`;
      first = false;
      const data = Buffer.from(text);
      const n = fs.writeSync(fd, data);
      if (n !== data.length) throw new Error(`short write to ${JOURNAL_FILE} (${n} of ${data.length} bytes)`);
    }
  } finally {
    fs.closeSync(fd);
  }
}

function lastByte(fd: number, size: number): number | undefined {
  const one = Buffer.alloc(1);
  return fs.readSync(fd, one, 0, 1, size - 1) === 1 ? one[0] : undefined;
}
