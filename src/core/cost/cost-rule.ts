/**
 * What each task cost: the tokens of the model messages spent on it and the time it was
 * in progress, read from the Claude Code transcripts of the sessions that worked on its
 * list and from the list's journal (docs/task-store.md sections 9, 10 and 14). This file
 * is the rule, as a pure function; cost-report.ts applies it to a list.
 *
 * The rule:
 *
 * - An assistant message of a session counts toward every task that session had in
 *   progress when the message began, split evenly among them (in whole tokens: splitTokens
 *   in usage-tally.ts); a message with no task in progress is the session's unattributed
 *   work. A session had a task in progress from the result of the call that set it in
 *   progress (the session's own TaskUpdate, or `tasks` on its behalf with `--as` while
 *   `$CLAUDE_CODE_SESSION_ID` named it: the journal's agent actor) until the result of the
 *   call that set it to any other status or deleted it, whoever made that call (an agent,
 *   another session, a person with `tasks done`), or the session's end. A session's
 *   process that ends ends its spells there; a resumed run of the session (`--resume`: the
 *   same session, a new process) goes on with the tasks it left in progress, from its
 *   first entry: the time between, when no process of it ran, counts toward nothing.
 * - A message began at its first transcript entry (Claude Code writes a message with
 *   several content blocks as several entries with the same `message.id` and the same
 *   usage: it counts once). A message that names no time counts as unattributed.
 * - Subagents (their transcripts, `<session>/subagents/*.jsonl`, entries marked
 *   `isSidechain`) are part of their session: their messages count toward what the session
 *   had in progress, and their TaskUpdate calls set what it has in progress.
 * - A forked session's transcript begins with copies of its parent's entries: those are
 *   the parent's, counted in the parent's transcript, never again in the fork's.
 * - Active time of a task: the time a session had it in progress, from the result of the
 *   call that set it in progress to the result of the call that ended it (or now, while
 *   the session runs, or the session's last entry), summed over spells and sessions. A
 *   process that crashed writes no end: where a later run's records place its end, the
 *   time until that run began is no task's (as above); where none does, the silence in
 *   which it may have ended is counted, and said to be unsure (never guessed away).
 * - A window (`--since`, `--until`) keeps the messages that began in it and the part of
 *   each spell inside it.
 */
import { splitTokens, type Tokens } from './usage-tally.js';

/** One model message, counted once. */
export interface UsageMessage {
  /** When it began (ms since the epoch); NaN when no entry of it tells. */
  at: number;
  /** Its price bucket (usage-tally.ts bucketKey). */
  bucket: string;
  tokens: Tokens;
  /** The list its session was on when it began, where the session worked on several (resumed under another list). */
  list?: string | undefined;
}

export type MarkStatus = 'in_progress' | 'pending' | 'completed' | 'deleted';

/** A task's status set at the moment the change was made (the result of the call that made it). */
export interface StatusMark {
  at: number;
  list: string;
  task: string;
  status: MarkStatus;
  /** The session that made the change (its own TaskUpdate, or `--as` on its behalf); undefined: a person, or no session known. */
  session?: string | undefined;
}

/** One session's messages (its subagents' too) and when it ended. */
export interface SessionWork {
  session: string;
  messages: readonly UsageMessage[];
  /** The latest a spell of it may last: now while it runs, else its last entry's time. */
  end: number;
  /** Stretches in which no process of it ran (one ended, a resumed run had not begun): no spell covers them. */
  gaps?: ReadonlyArray<{ from: number; to: number }> | undefined;
  /** Stretches in which it may have had no process (one crashed where no record says): spells cover them, unsure. */
  unsure?: ReadonlyArray<{ from: number; to: number }> | undefined;
  /** Stretches in which it was on another list than this one (resumed under another list): no spell of this list's tasks covers them. */
  away?: ReadonlyArray<{ list: string; from: number; to: number }> | undefined;
}

/** A stretch of time in which a session had a task in progress. */
export interface Spell {
  session: string;
  list: string;
  task: string;
  from: number;
  to: number;
  /** The parts of it in which the session may have had no process (SessionWork.unsure): counted, unsure. */
  unsure?: Array<{ from: number; to: number }> | undefined;
}

export interface Share {
  list: string;
  task: string;
  tokens: Tokens;
}

/** A message and its shares (none: unattributed). */
export interface AttributedMessage {
  session: string;
  message: UsageMessage;
  shares: Share[];
}

export interface Window {
  since?: number | undefined;
  until?: number | undefined;
}

const keyOf = (list: string, task: string) => `${list}\u0000${task}`;

/** The spells of one session: marks oldest first (the order given stands at the same instant). */
export function spellsOf(work: SessionWork, marks: readonly StatusMark[]): Spell[] {
  const ordered = marks.map((m, i) => ({ m, i })).sort((a, b) => a.m.at - b.m.at || a.i - b.i);
  const open = new Map<string, { list: string; task: string; from: number }>();
  const spells: Spell[] = [];
  const close = (key: string, at: number) => {
    const o = open.get(key);
    if (o === undefined) return;
    open.delete(key);
    const to = Math.min(at, work.end);
    const away = (work.away ?? []).filter((a) => a.list === o.list);
    for (const [from, until] of outsideGaps(o.from, to, [...(work.gaps ?? []), ...away]))
      spells.push({ session: work.session, list: o.list, task: o.task, from, to: until });
  };
  for (const { m } of ordered) {
    if (!Number.isFinite(m.at)) continue;
    const key = keyOf(m.list, m.task);
    if (m.status === 'in_progress') {
      if (m.session === work.session && !open.has(key)) open.set(key, { list: m.list, task: m.task, from: m.at });
    } else close(key, m.at);
  }
  for (const key of [...open.keys()]) close(key, work.end);
  return spells;
}

/** The parts of [from, to) that no gap covers, oldest first (none when it is empty). */
function outsideGaps(from: number, to: number, gaps: ReadonlyArray<{ from: number; to: number }>): Array<[number, number]> {
  const parts: Array<[number, number]> = [];
  let start = from;
  for (const g of [...gaps].sort((a, b) => a.from - b.from)) {
    if (g.to <= start || g.from >= to) continue;
    if (g.from > start) parts.push([start, g.from]);
    start = Math.max(start, g.to);
  }
  if (to > start) parts.push([start, to]);
  return parts;
}

/** Task ids in their order: numeric where they are numbers, else as text. */
function byListAndTask(a: { list: string; task: string }, b: { list: string; task: string }): number {
  if (a.list !== b.list) return a.list < b.list ? -1 : 1;
  if (a.task.length !== b.task.length) return a.task.length - b.task.length;
  return a.task < b.task ? -1 : a.task > b.task ? 1 : 0;
}

function inWindow(at: number, w: Window): boolean {
  if (!Number.isFinite(at)) return w.since === undefined && w.until === undefined;
  return (w.since === undefined || at >= w.since) && (w.until === undefined || at <= w.until);
}

/** The rule (above) over every session: each message with its shares, and the spells within the window. */
export function attribute(
  sessions: readonly SessionWork[],
  marks: readonly StatusMark[],
  window: Window = {},
): { messages: AttributedMessage[]; spells: Spell[] } {
  const messages: AttributedMessage[] = [];
  const spells: Spell[] = [];
  for (const work of sessions) {
    const own = spellsOf(work, marks).sort((a, b) => a.from - b.from);
    // A spell cut by its process's end ends at that process's last entry, which may be the
    // message it ended on: that message began while the task was in progress, so it counts.
    const ends = new Set((work.gaps ?? []).map((g) => g.from));
    let turn = 0;
    for (const message of work.messages) {
      if (!inWindow(message.at, window)) continue;
      const at = message.at;
      const on = Number.isFinite(at)
        ? own.filter((s) => s.from <= at && (at < s.to || (at === s.to && ends.has(at)))).sort(byListAndTask)
        : [];
      const split = on.length === 0 ? [] : splitTokens(message.tokens, on.length, turn++);
      messages.push({
        session: work.session,
        message,
        shares: on.map((s, i) => ({ list: s.list, task: s.task, tokens: split[i] as Tokens })),
      });
    }
    for (const s of own) {
      const from = Math.max(s.from, window.since ?? s.from);
      const to = Math.min(s.to, window.until ?? s.to);
      if (!(to > from)) continue;
      const unsure = (work.unsure ?? [])
        .map((u) => ({ from: Math.max(u.from, from), to: Math.min(u.to, to) }))
        .filter((u) => u.to > u.from);
      spells.push({ ...s, from, to, ...(unsure.length === 0 ? {} : { unsure }) });
    }
  }
  return { messages, spells };
}

/** How long these spells cover, counting time that two of them share once. */
export function coveredMs(spells: ReadonlyArray<{ from: number; to: number }>): number {
  const sorted = [...spells].sort((a, b) => a.from - b.from);
  let total = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const s of sorted) {
    const from = Math.max(s.from, end);
    if (s.to > from) total += s.to - from;
    end = Math.max(end, s.to);
  }
  return total;
}
