import fs from 'node:fs';
import path from 'node:path';
import { MAX_JSON_DEPTH, nestingExceeds } from '../base/json-depth.js';
import { isTaskId } from '../store/ids.js';
import { readHighWaterMark } from '../store/list-read.js';
import { taskPath } from '../store/paths.js';
import { readTaskFile } from '../store/task-file.js';
import { type JournalChange, type JournalEntry, journalPath, journalTypeProblem, previousJournalPath } from './journal.js';
import { forEachLineBackward, MAX_SCAN_LINE, offsetAfter, openRegular, visitMatches } from './line-scan.js';

/**
 * Reading the journal (journal.ts): both generations, oldest first, at most
 * MAX_READ_BYTES from the end; every line checked before it is believed (any process that
 * can write the folder can append one): its shape, and nesting no deeper than task files
 * may nest. Lines that fail are skipped and reported, never fatal.
 */
export const MAX_READ_BYTES = 32 * 1024 * 1024;

export interface Damage {
  file: string;
  /** The line number; undefined when the file was read from a point past its start. */
  line: number | undefined;
  reason: string;
}

export interface JournalRead {
  /** Entries oldest first, with the writes that a later line says failed taken out. */
  entries: JournalEntry[];
  damaged: Damage[];
  /** Damaged lines after the last entry: the last change may be among them. */
  damagedAtEnd: Damage[];
  /** A journal that is not a regular file (not read), in words. */
  problems: string[];
  /** Only the end of the journal was read: older changes are not in `entries`. */
  partial: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';

function looksLikeChange(c: unknown): c is JournalChange {
  if (!isObject(c)) return false;
  switch (c.op) {
    case 'update':
      return isString(c.id) && isObject(c.fields) && Object.values(c.fields).every(isObject);
    case 'create':
    case 'delete':
      return isString(c.id) && isObject(c.task);
    case 'aside':
      return isString(c.id) && isString(c.file) && isString(c.to);
    case 'mark':
      return isString(c.new) && (c.old === null || isString(c.old));
    case 'removed':
      return isString(c.file) && (c.what === 'lock' || c.what === 'temp');
    default:
      return false;
  }
}

/** The shape of an entry, or why a parsed line is not one. */
export function entryProblem(v: unknown): string | undefined {
  if (!isObject(v)) return 'not a journal entry';
  if (nestingExceeds(v, MAX_JSON_DEPTH + 8)) return `nested deeper than ${MAX_JSON_DEPTH} levels`;
  const actor = v.actor;
  const ok =
    v.v === 1 &&
    isString(v.at) &&
    Number.isFinite(Date.parse(v.at)) &&
    isString(v.command) &&
    isString(v.txn) &&
    isObject(actor) &&
    isString(actor.name) &&
    (actor.kind === 'person' || actor.kind === 'agent') &&
    (actor.session === undefined || isString(actor.session)) &&
    (v.undoes === undefined || isString(v.undoes) || (Array.isArray(v.undoes) && v.undoes.every(isString))) &&
    (v.redoes === undefined || (Array.isArray(v.redoes) && v.redoes.every(isString))) &&
    (v.aborted === undefined || (Array.isArray(v.aborted) && v.aborted.every(isString))) &&
    (v.lists === undefined || (Array.isArray(v.lists) && v.lists.every(isString))) &&
    Array.isArray(v.changes) &&
    v.changes.every(looksLikeChange);
  return ok ? undefined : 'not a journal entry';
}

/** Parse one line; an entry, or why not. */
export function parseEntry(text: string): { entry: JournalEntry } | { reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { reason: 'not JSON' };
  }
  const problem = entryProblem(value);
  return problem === undefined ? { entry: value as JournalEntry } : { reason: problem };
}

interface GenerationRead {
  entries: JournalEntry[];
  damaged: Damage[];
  damagedAtEnd: Damage[];
  partial: boolean;
}

/** One generation's lines, the last `budget` bytes of it. */
function readGeneration(file: string, budget: number): GenerationRead & { bytes: number } {
  const out: GenerationRead & { bytes: number } = { entries: [], damaged: [], damagedAtEnd: [], partial: false, bytes: 0 };
  const open = openRegular(file);
  if (open === undefined) return out;
  try {
    const start = Math.max(0, open.size - budget);
    const length = open.size - start;
    const buffer = Buffer.allocUnsafe(length);
    let filled = 0;
    while (filled < length) {
      const n = fs.readSync(open.fd, buffer, filled, length - filled, start + filled);
      if (n <= 0) break;
      filled += n;
    }
    out.bytes = filled;
    out.partial = start > 0;
    let at = 0;
    if (start > 0) at = buffer.indexOf(10) + 1; // the first line is a part of one
    if (start > 0 && at === 0) return out;
    const name = path.basename(file);
    for (let n = 1; at < filled; n++) {
      const nl = buffer.indexOf(10, at);
      const end = nl === -1 || nl >= filled ? filled : nl;
      const line = start > 0 ? undefined : n;
      if (end - at > MAX_SCAN_LINE) out.damaged.push({ file: name, line, reason: 'a line too long to be an entry' });
      else if (end > at && buffer.subarray(at, end).some((b) => b !== 32 && b !== 9 && b !== 13)) {
        const parsed = parseEntry(buffer.toString('utf8', at, end));
        if ('entry' in parsed) {
          out.entries.push(parsed.entry);
          out.damagedAtEnd = [];
        } else {
          const d = { file: name, line, reason: parsed.reason };
          out.damaged.push(d);
          out.damagedAtEnd.push(d);
        }
      }
      at = end + 1;
    }
  } finally {
    fs.closeSync(open.fd);
  }
  return out;
}

/**
 * Every entry, oldest first, from the previous generation and the current one, at most
 * `maxBytes` (the current one's end first). A missing journal is an empty one; one that is
 * not a regular file is not read, and said in `problems`.
 */
export function readJournal(listDir: string, opts: { maxBytes?: number } = {}): JournalRead {
  const budget = opts.maxBytes ?? MAX_READ_BYTES;
  const problems = [journalTypeProblem(previousJournalPath(listDir)), journalTypeProblem(journalPath(listDir))].filter(
    (p): p is string => p !== undefined,
  );
  const current = readGeneration(journalPath(listDir), budget);
  const previous =
    current.partial || current.bytes >= budget
      ? { entries: [], damaged: [], damagedAtEnd: [], partial: true, bytes: 0 }
      : readGeneration(previousJournalPath(listDir), budget - current.bytes);
  const entries = withoutAborted([...previous.entries, ...current.entries]);
  return {
    entries,
    damaged: [...previous.damaged, ...current.damaged],
    damagedAtEnd: current.entries.length > 0 || current.damaged.length > 0 ? current.damagedAtEnd : previous.damagedAtEnd,
    problems,
    partial: previous.partial || (current.partial && previous.bytes === 0),
  };
}

/**
 * The entries whose line holds `needle`, oldest first, from the same bytes readJournal
 * reads (both generations, at most MAX_READ_BYTES), found by searching the bytes: only
 * those lines are parsed. Damaged lines are passed over.
 */
export function journalEntriesWith(listDir: string, needle: string): JournalEntry[] {
  const out: JournalEntry[] = [];
  const pattern = [Buffer.from(needle)];
  let budget = MAX_READ_BYTES;
  const generations: Buffer[] = [];
  for (const file of [journalPath(listDir), previousJournalPath(listDir)]) {
    if (budget <= 0) break;
    const open = openRegular(file);
    if (open === undefined) continue;
    try {
      const start = Math.max(0, open.size - budget);
      const buffer = Buffer.allocUnsafe(open.size - start);
      let filled = 0;
      while (filled < buffer.length) {
        const n = fs.readSync(open.fd, buffer, filled, buffer.length - filled, start + filled);
        if (n <= 0) break;
        filled += n;
      }
      budget -= filled;
      const from = start > 0 ? buffer.indexOf(10) + 1 : 0;
      generations.unshift(buffer.subarray(from, filled));
    } finally {
      fs.closeSync(open.fd);
    }
  }
  for (const region of generations) {
    visitMatches(region, pattern, (line) => {
      const parsed = parseEntry(line);
      if ('entry' in parsed) out.push(parsed.entry);
    });
  }
  return out;
}

/** Take out each write that a later line of the same txn says failed (its `aborted`). */
function withoutAborted(entries: JournalEntry[]): JournalEntry[] {
  if (!entries.some((e) => e.aborted !== undefined)) return entries;
  const out: JournalEntry[] = [];
  for (const entry of entries) {
    if (entry.aborted === undefined) {
      out.push(entry);
      continue;
    }
    for (const id of entry.aborted) {
      // The last announced change of this id in this txn.
      for (let i = out.length - 1; i >= 0; i--) {
        const e = out[i] as JournalEntry;
        if (e.txn !== entry.txn) continue;
        const at = e.changes.findIndex((c) => 'id' in c && c.id === id);
        if (at === -1) continue;
        const changes = e.changes.filter((_, k) => k !== at);
        out[i] = { ...e, changes };
        break;
      }
    }
  }
  return out.filter((e) => e.changes.length > 0 || e.end === true || e.undoes !== undefined || e.redoes !== undefined);
}

/** What a task file is now, for judging a record of it. */
export interface FileNow {
  exists: boolean;
  mtimeMs: number | undefined;
  task: Record<string, unknown> | undefined;
}

function fileNow(listDir: string, id: string): FileNow {
  if (!isTaskId(id)) return { exists: false, mtimeMs: undefined, task: undefined };
  const file = taskPath(listDir, id);
  const stat = fs.lstatSync(file, { throwIfNoEntry: false });
  if (stat === undefined) return { exists: false, mtimeMs: undefined, task: undefined };
  const read = readTaskFile(file);
  return { exists: true, mtimeMs: stat.mtimeMs, task: read.kind === 'ok' ? (read.task as Record<string, unknown>) : undefined };
}

/**
 * Records are appended before their write (journal.ts): one whose process was killed
 * between the two stands for a write that never happened. Only a task's last record can
 * be such a one; it is taken out when the file shows the write did not happen: an update
 * or delete whose file is older than the record and (for an update) does not hold what it
 * wrote, a create whose file is missing while the high-water mark never reached its id.
 */
export function confirmedEntries(entries: readonly JournalEntry[], listDir: string, only?: string): JournalEntry[] {
  const last = new Map<string, { entry: number; change: number }>();
  for (const [i, e] of entries.entries()) {
    for (const [k, c] of e.changes.entries()) {
      if (c.op === 'create' || c.op === 'update' || c.op === 'delete') last.set(c.id, { entry: i, change: k });
    }
  }
  const drop = new Set<string>();
  let mark: bigint | undefined;
  for (const [id, where] of last) {
    if (only !== undefined && id !== only) continue;
    const entry = entries[where.entry] as JournalEntry;
    const change = entry.changes[where.change] as JournalChange;
    // A file's time is the kernel's coarse clock (a tick behind, up to some 10 ms), the
    // record's is the process's: a write made just after the record can bear an earlier time.
    const at = Date.parse(entry.at) - MTIME_GRAIN_MS;
    const now = fileNow(listDir, id);
    let happened = true;
    if (change.op === 'create' && !now.exists) {
      mark ??= readHighWaterMark(listDir);
      happened = isTaskId(id) && BigInt(id) <= mark;
    } else if (change.op === 'delete' && now.exists) {
      happened = (now.mtimeMs ?? 0) >= at;
    } else if (change.op === 'update' && now.exists && (now.mtimeMs ?? 0) < at && now.task !== undefined) {
      const task = now.task;
      happened = Object.entries(change.fields).every(([k, f]) =>
        'new' in f ? JSON.stringify(task[k]) === JSON.stringify(f.new) : !Object.hasOwn(task, k),
      );
    }
    if (!happened) drop.add(`${where.entry}:${where.change}`);
  }
  if (drop.size === 0) return [...entries];
  return entries
    .map((e, i) => ({ ...e, changes: e.changes.filter((_, k) => !drop.has(`${i}:${k}`)) }))
    .filter((e) => e.changes.length > 0 || e.end === true || e.undoes !== undefined || e.redoes !== undefined);
}

/** How much earlier than the moment it was written a file's time can read (see confirmedEntries). */
const MTIME_GRAIN_MS = 50;

/** How far back `get` looks from the time of a task's last change: the journal is appended in time order. */
const NEAR_BYTES = 8 * 1024 * 1024;
/** A record's time and its file's time differ by the write between them, and by clocks of filesystems. */
export const SLACK_MS = 2000;

const timeOfLine = (line: Buffer): number | undefined => {
  const at = line.indexOf('"at":"');
  if (at === -1 || at > 200) return undefined;
  const t = Date.parse(line.toString('latin1', at + 6, at + 6 + 30).split('"')[0] as string);
  return Number.isFinite(t) ? t : undefined;
};

/**
 * The journal's last change to task `id` at or before `before` (ms), read from the
 * journal's end: bisection to that time, then backward at most NEAR_BYTES, in the current
 * generation and then the previous one. What a 200 MB journal costs `get` is a few reads.
 */
export function lastJournalChange(listDir: string, id: string, before: number): JournalEntry | undefined {
  const needle = Buffer.from(`"id":${JSON.stringify(id)}`);
  for (const file of [journalPath(listDir), previousJournalPath(listDir)]) {
    const open = openRegular(file);
    if (open === undefined) continue;
    try {
      const end = offsetAfter(open.fd, open.size, before, timeOfLine);
      let found: JournalEntry | undefined;
      const aborted = new Set<string>();
      const reachedStart = forEachLineBackward(
        open.fd,
        end,
        (line) => {
          if (line.indexOf(needle) === -1 && line.indexOf('"aborted"') === -1) return false;
          const parsed = parseEntry(line.toString('utf8'));
          if (!('entry' in parsed)) return false;
          const entry = parsed.entry;
          if (Date.parse(entry.at) > before) return false;
          if (entry.aborted?.includes(id)) {
            aborted.add(entry.txn);
            return false;
          }
          const changes = entry.changes.filter((c) => 'id' in c && c.id === id);
          if (changes.length === 0) return false;
          if (aborted.delete(entry.txn)) return false;
          found = { ...entry, changes };
          return true;
        },
        NEAR_BYTES,
      );
      if (found !== undefined) return confirmedEntries([found], listDir, id)[0];
      if (!reachedStart) return undefined; // the change is not near: not looked for further back
    } finally {
      fs.closeSync(open.fd);
    }
  }
  return undefined;
}
