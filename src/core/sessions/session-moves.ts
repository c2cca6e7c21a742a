import fs from 'node:fs';
import path from 'node:path';
import { appendToRegularFile } from '../base/append-regular.js';
import { readBoundedText } from '../base/bounded-read.js';
import { tasksRoot } from '../store/paths.js';

/**
 * Running sessions moved from one list to another by a settings change (`tasks use`):
 * Claude Code reads the changed settings while a session runs, and its next task call
 * goes to the newly bound list (docs/task-store.md section 11). A transcript never names
 * its list, so a moved session's changes would count in both lists; the move, recorded
 * when `tasks use` makes it, splits them: before it, the old list's; after it, the new
 * one's. Kept in `<config>/tasks/.tasks-session-moves.jsonl`, one move a line (agents
 * read only list folders' `*.json`); a damaged line is skipped.
 */
export interface SessionMove {
  session: string;
  from: string;
  to: string;
  /** ms since the epoch: when the settings were changed. */
  at: number;
}

const FILE = '.tasks-session-moves.jsonl';
const MAX_BYTES = 4 * 1024 * 1024;

function movesFile(configDir: string): string {
  return path.join(tasksRoot(configDir), FILE);
}

/**
 * Append these moves (one write, with O_APPEND: lines from two runs never interleave).
 * Returns why they could not be recorded (the file is a link, a FIFO), for a warning: the
 * binding they follow from is made all the same.
 */
export function recordMoves(configDir: string, moves: readonly SessionMove[]): string | undefined {
  if (moves.length === 0) return undefined;
  const text = moves
    .map((m) => `${JSON.stringify({ at: new Date(m.at).toISOString(), session: m.session, from: m.from, to: m.to })}\n`)
    .join('');
  fs.mkdirSync(tasksRoot(configDir), { recursive: true });
  const stat = fs.lstatSync(movesFile(configDir), { throwIfNoEntry: false });
  if (stat !== undefined && !stat.isFile())
    return `${FILE} is ${stat.isSymbolicLink() ? 'a symbolic link' : stat.isFIFO() ? 'a FIFO' : 'not a regular file'}, not written`;
  try {
    appendToRegularFile(movesFile(configDir), text);
  } catch (err) {
    return (err as Error).message;
  }
  return undefined;
}

/** Every recorded move, by session, oldest first (none when nothing was recorded or it cannot be read). */
export function readMoves(configDir: string): Map<string, SessionMove[]> {
  const bySession = new Map<string, SessionMove[]>();
  let text: string;
  try {
    text = readBoundedText(movesFile(configDir), MAX_BYTES);
  } catch {
    return bySession;
  }
  for (const line of text.split('\n')) {
    const move = parseMove(line);
    if (move !== undefined) bySession.set(move.session, [...(bySession.get(move.session) ?? []), move]);
  }
  for (const moves of bySession.values()) moves.sort((a, b) => a.at - b.at);
  return bySession;
}

function parseMove(line: string): SessionMove | undefined {
  if (line.trim() === '') return undefined;
  try {
    const v = JSON.parse(line) as Record<string, unknown>;
    const at = typeof v.at === 'string' ? Date.parse(v.at) : Number.NaN;
    if (!Number.isFinite(at) || typeof v.session !== 'string' || typeof v.from !== 'string' || typeof v.to !== 'string') return undefined;
    return { session: v.session, from: v.from, to: v.to, at };
  } catch {
    return undefined;
  }
}

/** Every list a recorded move took a session to or from: each was a session's list, folder or none. */
export function movedLists(configDir: string): Set<string> {
  const lists = new Set<string>();
  for (const moves of readMoves(configDir).values())
    for (const m of moves) {
      lists.add(m.from);
      lists.add(m.to);
    }
  return lists;
}

/**
 * Was the session on `list` at `at` (ms)? With no move of it recorded, whatever list its
 * changes are read for; else the list the last move before `at` took it to, or, before
 * the first, the list that move took it from.
 */
export function onListAt(moves: readonly SessionMove[] | undefined, list: string, at: number): boolean {
  if (moves === undefined || moves.length === 0) return true;
  return listAt(moves, at) === list;
}

/** The list a session that moved was on at `at` (ms): before its first move, the list that move took it from. */
export function listAt(moves: readonly SessionMove[], at: number): string | undefined {
  let where = moves[0]?.from;
  for (const m of moves) if (m.at <= at) where = m.to;
  return where;
}
