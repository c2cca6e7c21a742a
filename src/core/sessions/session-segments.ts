import { listDirOf, taskPath } from '../store/paths.js';
import { readTaskFile } from '../store/task-file.js';
import { type Item, itemsOf, scoreItem, splitItem } from './list-evidence.js';
import { hasKeptEvidence, listsTiedTo } from './list-sessions.js';
import type { SessionIndex } from './session-index.js';
import { readMoves, type SessionMove } from './session-moves.js';
import type { TaskWrite } from './transcript-tasks.js';

/**
 * Where a session worked when it worked on more than one list: resumed (`--resume`, the
 * same session and transcript) under another CLAUDE_CODE_TASK_LIST_ID, or moved by its
 * settings while it ran with no move recorded. A transcript never names its list, and both
 * lists can have a `#1`: each of its Task-tool changes would count in both. Its writes are
 * grouped as the evidence groups them (list-evidence.ts: a create and the updates after
 * it, cut where no list agrees with the whole), each group placed in the one list of
 * `lists` whose file of that id agrees with it best; the session is taken to move from one list to the next where its placed writes
 * change list: at the start of the run that made the first write of the next list, where
 * `runStarts` has one between the two writes, else at that write's call.
 *
 * Returns the moves as `tasks use` records them (session-moves.ts, onListAt), or undefined
 * where no split is known (one list, or its writes all placed in one).
 */
export function inferredMoves(
  index: SessionIndex,
  sessionId: string,
  transcript: string,
  lists: readonly string[],
  runStarts: readonly number[] = [],
): SessionMove[] | undefined {
  if (lists.length < 2) return undefined;
  const { writes, placed } = placedWrites(index, sessionId, transcript, lists);
  const moves = movesShown(sessionId, writes, placed, runStarts, { list: undefined, at: Number.NEGATIVE_INFINITY });
  return moves.length === 0 ? undefined : moves;
}

/**
 * The moves a session's placed writes show from `start` on (its list then, if known, and
 * the time): one where a write lands in another list than the one before, placed at the
 * start of the run that went on there (`runStarts`, the latest after the write before),
 * else at the write.
 */
function movesShown(
  sessionId: string,
  writes: readonly TaskWrite[],
  placed: ReadonlyMap<TaskWrite, string>,
  runStarts: readonly number[],
  start: { list: string | undefined; at: number },
): SessionMove[] {
  const moves: SessionMove[] = [];
  let where = start.list;
  let lastEnd = start.at;
  for (const w of writes) {
    if (w.at < start.at) continue;
    const list = placed.get(w);
    if (list === undefined) continue;
    if (where !== undefined && list !== where) {
      const starts = runStarts.filter((t) => t > lastEnd && t <= w.at);
      moves.push({ session: sessionId, from: where, to: list, at: starts.length > 0 ? Math.max(...starts) : w.at });
    }
    where = list;
    lastEnd = w.end;
  }
  return moves;
}

/**
 * A task a list held whose file is gone (a list being restored): its subject, and when its
 * file was last written (Infinity: not known, any time), as its file would say.
 */
export type ShownTask = (list: string, id: string) => { subject: string; mtimeMs: number } | undefined;

/**
 * The session's Task-tool writes, oldest first, each placed in the one list of `lists`
 * whose file of that id agrees with it best (list-evidence.ts), where one does.
 */
function placedWrites(
  index: SessionIndex,
  sessionId: string,
  transcript: string,
  lists: readonly string[],
  shown?: ShownTask,
): { writes: TaskWrite[]; placed: Map<TaskWrite, string> } {
  const writes: TaskWrite[] = [];
  for (const { file } of index.sessionFiles(sessionId, transcript))
    for (const w of index.transcriptTasks(file).writes ?? []) writes.push(w);
  writes.sort((a, b) => a.at - b.at);
  const files = new Map<string, { subject: string; mtimeMs: number } | undefined>();
  const fileOf = (list: string, id: string) => {
    const key = `${list}\u0000${id}`;
    if (!files.has(key)) {
      const file = taskPath(listDirOf(index.configDir, list), id);
      let found: { subject: string; mtimeMs: number } | undefined;
      try {
        const read = readTaskFile(file, undefined, true);
        if (read.kind === 'ok' && read.mtimeMs !== undefined) found = { subject: read.task.subject, mtimeMs: read.mtimeMs };
      } catch {
        // no file, or not one to read: no agreement
      }
      files.set(key, found ?? shown?.(list, id));
    }
    return files.get(key);
  };
  const bestList = (item: Item) => {
    let best = 0;
    let found: string[] = [];
    for (const list of lists) {
      const score = scoreItem(item, fileOf(list, item.id), undefined);
      if (score === undefined || score <= 0 || score < best) continue;
      if (score > best) found = [];
      best = score;
      found.push(list);
    }
    return found.length === 1 ? found[0] : undefined;
  };
  const scores = (item: Item) => lists.map((list) => scoreItem(item, fileOf(list, item.id), undefined));
  const agrees = (item: Item) => {
    const found = scores(item);
    return found.every((x) => x === undefined) ? undefined : found.some((x) => x !== undefined && x > 0);
  };
  const placed = new Map<TaskWrite, string>();
  if (writes.length === 0) return { writes, placed };
  for (const item of itemsOf([], writes))
    for (const piece of splitItem(item, agrees)) {
      const list = bestList(piece);
      if (list !== undefined) for (const w of piece.writes ?? []) placed.set(w, list);
    }
  return { writes, placed };
}

/**
 * The moves `tasks use` recorded, each read no earlier than the session's last write
 * after it that its old list's files show (and before any its new list's show): Claude
 * Code reads changed settings about a second after they change (2.1.328), and a task call
 * it makes meanwhile still goes to the old list. Such a move is taken to come just after
 * that write's result; a move with no such write stays where it was recorded. After the
 * last of them, a move its writes show (a resume once the binding changed again, with no
 * session running to record it) is placed as inferredMoves places one.
 */
function settledMoves(
  index: SessionIndex,
  sessionId: string,
  transcript: string,
  moves: readonly SessionMove[],
  more: { tied?: readonly string[] | undefined; runStarts?: readonly number[] | undefined },
  shown?: ShownTask,
): SessionMove[] {
  const lists = [...new Set([...moves.flatMap((m) => [m.from, m.to]), ...(more.tied ?? [])])];
  const { writes, placed } = placedWrites(index, sessionId, transcript, lists, shown);
  const settled = moves.map((m, i) => {
    const next = moves[i + 1]?.at ?? Number.POSITIVE_INFINITY;
    let at = m.at;
    for (const w of writes) {
      if (w.at < m.at || w.at >= next) continue;
      const list = placed.get(w);
      if (list === m.to) break;
      if (list === m.from) at = Math.max(at, w.end + 1);
    }
    return at === m.at ? m : { ...m, at: Math.min(at, next) };
  });
  const last = settled[settled.length - 1] as SessionMove;
  return [...settled, ...movesShown(sessionId, writes, placed, more.runStarts ?? [], { list: last.to, at: last.at })];
}

/**
 * The stretches in which a session that moved was not on each list it moved between
 * (before its first move, it was on that move's `from`).
 */
export function awayFromLists(moves: readonly SessionMove[]): Array<{ list: string; from: number; to: number }> {
  if (moves.length === 0) return [];
  const segments: Array<{ list: string; from: number; to: number }> = [];
  let from = Number.NEGATIVE_INFINITY;
  let where = (moves[0] as SessionMove).from;
  for (const m of moves) {
    segments.push({ list: where, from, to: m.at });
    from = m.at;
    where = m.to;
  }
  segments.push({ list: where, from, to: Number.POSITIVE_INFINITY });
  const lists = new Set(segments.map((s) => s.list));
  const away: Array<{ list: string; from: number; to: number }> = [];
  for (const list of lists) for (const s of segments) if (s.list !== list && s.to > s.from) away.push({ list, from: s.from, to: s.to });
  return away;
}

/** A session as its moves are read: its id and its transcript, if it has one. */
interface MovedSession {
  sessionId: string;
  transcript?: string | undefined;
}

/**
 * Where each session of `listId` was when, as `log`, `get` and `cost` all read it: the
 * moves `tasks use` recorded for it (session-moves.ts; each no earlier than its writes to
 * the old list Claude Code made before it read the changed settings: settledMoves), else, where its transcript ties
 * it to more than one list, the moves its writes show (inferredMoves). The lists it is
 * tied to: list-sessions.ts listsTiedTo, from the evidence kept between runs with `kept`
 * (where none is kept, its own lists by name alone: a quick look reads not every
 * transcript). Undefined: it stayed on one list, all of its work is the list's it is
 * read for. Give a change or a message to a list with onListAt or listAt. The recorded
 * moves are read once, when this is made.
 *
 * `shown`: the tasks of a list whose files are gone (a restore), where no file is read.
 *
 * `runStarts` (the starts of the session's runs, where known) places an inferred move at
 * the start of the run that went on in the new list, not at its first write there: the
 * messages before that write are the new list's too; no write changes side.
 */
export function sessionMovesOf(
  index: SessionIndex,
  listId: string,
  opts: { kept?: boolean; recorded?: ReadonlyMap<string, readonly SessionMove[]>; shown?: ShownTask } = {},
): (session: MovedSession, more?: { tied?: readonly string[]; runStarts?: readonly number[] }) => readonly SessionMove[] | undefined {
  const recorded = opts.recorded ?? readMoves(index.configDir);
  // No evidence kept: a quick look reads the lists the session's names tie it to, not every transcript.
  const cheap = opts.kept === true && !hasKeptEvidence(index, listId);
  // Each session's recorded moves, as its writes settle them (read once: last-change asks for each change).
  const settled = new Map<string, SessionMove[]>();
  return (session, more = {}) => {
    const moves = recorded.get(session.sessionId);
    if (moves !== undefined && moves.length > 0) {
      if (session.transcript === undefined) return moves;
      let found = settled.get(session.sessionId);
      if (found === undefined)
        settled.set(session.sessionId, (found = settledMoves(index, session.sessionId, session.transcript, moves, more, opts.shown)));
      return found;
    }
    if (session.transcript === undefined) return undefined;
    const tied =
      more.tied ??
      (cheap
        ? [...new Set([...index.listsOfSession(session.sessionId), listId])]
        : listsTiedTo(index, session.sessionId, listId, opts.kept ? { kept: true } : {}));
    return inferredMoves(index, session.sessionId, session.transcript, tied, more.runStarts);
  };
}

/** The sessions `tasks use` recorded moving to or from `listId`: each worked on it on its side of the move. */
export function movedOnto(recorded: ReadonlyMap<string, readonly SessionMove[]>, listId: string): string[] {
  const found: string[] = [];
  for (const [session, moves] of recorded) if (moves.some((m) => m.from === listId || m.to === listId)) found.push(session);
  return found;
}
