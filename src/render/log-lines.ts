import { maxOf } from '../core/base/many-items.js';
import type { Damage } from '../core/history/journal-read.js';
import type { EventChange, Timeline, TimelineEvent, UnrecordedCause, Who } from '../core/history/timeline.js';
import { ago, isAhead } from './elapsed.js';
import type { Style } from './style.js';
import { oneLine, truncate } from './text.js';

/** `alice (person)`, `worker-1 (agent)`, `agent of session 2d483082`, `subagent a1b2 of session 2d483082`, `(no record)` */
function whoText(who: Who): string {
  if (who.kind === 'unknown') return '(no record)';
  if (who.kind === 'person') return `${oneLine(who.name ?? 'someone')} (person)`;
  const session = who.session === null ? '' : `session ${who.session.slice(0, 8)}`;
  if (who.name === null) return `agent of ${session}`;
  return session === '' ? `${oneLine(who.name)} (agent)` : `${oneLine(who.name)} (agent of ${session})`;
}

/** A value in words: cut to `max` columns in a terminal, whole when piped (max undefined). */
const valueText = (v: unknown, max: number | undefined): string => {
  if (v === undefined || v === null) return '(none)';
  const text = typeof v === 'string' ? (v === '' ? '""' : oneLine(v)) : oneLine(JSON.stringify(v));
  return max === undefined ? text : truncate(text, max);
};
const ids = (list: readonly string[]) => list.map((id) => `#${oneLine(id)}`).join(', ');

/** One field's change in words: `status pending → in_progress`, `blocked by #2`. */
function fieldText(key: string, c: EventChange, max: number | undefined): string[] {
  const value = (v: unknown) => valueText(v, max);
  if (key === 'blockedBy' || key === 'blocks') {
    const old = Array.isArray(c.old) ? (c.old as string[]) : [];
    const now = Array.isArray(c.new) ? (c.new as string[]) : [];
    const added = c.added ?? now.filter((id) => !old.includes(id));
    const removed = c.added ? [] : old.filter((id) => !now.includes(id));
    const [yes, no] = key === 'blockedBy' ? ['blocked by', 'no longer blocked by'] : ['blocks', 'no longer blocks'];
    return [...(added.length > 0 ? [`${yes} ${ids(added)}`] : []), ...(removed.length > 0 ? [`${no} ${ids(removed)}`] : [])];
  }
  if (key === 'description') return ['description changed'];
  if (key === 'metadata') {
    const old = (c.old ?? {}) as Record<string, unknown>;
    const now = (c.new ?? {}) as Record<string, unknown>;
    const keys = [...new Set([...Object.keys(old), ...Object.keys(now)])].filter((k) => JSON.stringify(old[k]) !== JSON.stringify(now[k]));
    return keys.map((k) => (k in now ? `metadata ${oneLine(k)}=${value(now[k])}` : `metadata -${oneLine(k)}`));
  }
  const label = key === 'activeForm' ? 'active form' : oneLine(key);
  return 'old' in c ? [`${label} ${value(c.old)} → ${value(c.new)}`] : [`${label} → ${value(c.new)}`];
}

const CAUSES: Record<UnrecordedCause, string> = {
  'app-status': 'likely Claude Code keeping the status itself',
  'unknown-agent': 'likely an agent whose transcript is not known',
  'crashed-agent': 'likely an agent killed before its transcript recorded it',
  'app-reset': 'an interactive Claude Code session on a list clears it 5 s after every task of it is completed',
  'hand-edit': 'likely a hand edit',
};

/** The likely cause in words; for an agent killed before it recorded the change, which session's. */
function causeText(cause: UnrecordedCause | undefined, session: string | null | undefined): string {
  if (cause === 'crashed-agent' && session)
    return `likely the agent of session ${session.slice(0, 8)}, killed before its transcript recorded it`;
  return CAUSES[cause ?? 'hand-edit'];
}

/** What an event did, in words: `created "Fix auth"`, `status pending → completed, owner → bob`, `deleted`. */
function eventText(e: TimelineEvent, max: number | undefined): string {
  const by = e.command === 'undo' || e.command === 'redo' ? `${e.command}: ` : '';
  return by + whatText(e, max);
}

function whatText(e: TimelineEvent, max: number | undefined): string {
  const value = (v: unknown) => valueText(v, max);
  const fields = () =>
    Object.entries(e.changes)
      .flatMap(([k, c]) => fieldText(k, c, max))
      .join(', ');
  switch (e.op) {
    case 'create':
      // A restore writes back a task its record shows made: the making was the record's.
      return `${e.command === 'restore' ? 'restored' : 'created'} ${value(e.changes.subject?.new)}`;
    case 'delete':
      return `deleted${e.changes.subject?.old === undefined ? '' : ` ${value(e.changes.subject.old)}`}`;
    case 'aside':
      return `moved aside (it was not a valid task): ${value(e.changes.file?.old)} → ${value(e.changes.file?.new)}`;
    case 'mark':
      return `high-water mark ${value(e.changes.highWaterMark?.old)} → ${value(e.changes.highWaterMark?.new)}`;
    case 'removed':
      return e.changes.lock
        ? `removed the stale lock ${value(e.changes.lock.old)}`
        : `removed the temp file ${value(e.changes.tempFile?.old)}`;
    case 'unrecorded': {
      // Claude Code's own timer (docs/task-store.md section 6.7), not a prompt: the list goes while its session sits idle.
      if (e.cause === 'app-reset')
        return 'cleared by Claude Code: an interactive session on the list clears it 5 s after every task is completed';
      const what = e.changes.file !== undefined && Object.keys(e.changes).length === 1 ? 'gone, with no record of its deletion' : fields();
      return `changed with no record: ${what} (${causeText(e.cause, e.who.session)})`;
    }
    default:
      return fields() || 'no visible change';
  }
}

/**
 * One change in the words of `tasks log`: who made it (`alice (person)`, `(no record)`)
 * and what it did, values cut to `max` characters (whole when undefined). The board's
 * history shows these.
 */
export function logEventWords(e: TimelineEvent, max?: number): { who: string; what: string } {
  return { who: whoText(e.who), what: eventText(e, max) };
}

/** "2026-11-30 12:53:59" in local time: a log is read against a clock. */
export function stamp(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

const taskText = (e: TimelineEvent) => (e.task === null ? '-' : `#${oneLine(e.task)}`);

/**
 * The timeline for a person at a terminal: time, [list,] task, who, what; columns padded,
 * long values cut. `listName`: how a list is named (a session's by its short id).
 */
export function renderLogLines(
  events: readonly TimelineEvent[],
  style: Style,
  opts: { lists?: boolean; listName?: (id: string) => string } = {},
): string {
  const whoWidth = Math.min(36, maxOf(events.map((e) => whoText(e.who).length)));
  const idWidth = maxOf(events.map((e) => taskText(e).length));
  const names = new Map<string, string>();
  const listText = (id: string) => {
    let name = names.get(id);
    if (name === undefined) names.set(id, (name = oneLine(opts.listName?.(id) ?? id)));
    return name;
  };
  const listWidth = opts.lists ? Math.min(20, maxOf(events.map((e) => listText(e.list).length))) : 0;
  return events
    .map((e) =>
      [
        style.dim(stamp(e.at)),
        ...(opts.lists ? [truncate(listText(e.list), listWidth).padEnd(listWidth)] : []),
        taskText(e).padEnd(idWidth),
        (e.who.kind === 'person' ? style.magenta : e.who.kind === 'agent' ? style.cyan : style.yellow)(
          truncate(whoText(e.who), whoWidth).padEnd(whoWidth),
        ),
        eventText(e, 40),
      ].join('  '),
    )
    .join('\n');
}

/**
 * The timeline piped: one change a line, tab-separated, nothing padded or cut (a grep
 * finds every word): time, [list,] task (`-` for the list's own files), who, what.
 */
export function renderLogTsv(events: readonly TimelineEvent[], opts: { lists?: boolean } = {}): string {
  return events
    .map((e) => [stamp(e.at), ...(opts.lists ? [oneLine(e.list)] : []), taskText(e), whoText(e.who), eventText(e, undefined)].join('\t'))
    .join('\n');
}

/** "last changed 5 min ago by alice (person): status → in_progress" */
export function renderLastChange(e: TimelineEvent, now: number): string {
  return `last changed ${when(e.at, now)} by ${whoText(e.who)}: ${eventText(e, 40)}`;
}

/** "5 min ago"; a time ahead of the clock with the time itself: "at 2026-12-06 19:45:00, 3 h in the future (...)". */
function when(iso: string, now: number): string {
  const at = Date.parse(iso);
  return isAhead(at, now) ? `at ${stamp(iso)}, ${ago(at, now)} (ahead of this machine's clock)` : ago(at, now);
}

/**
 * Under `get`'s last change, when the file is newer than any record of it; with no
 * recorded change read (`first`), the last change itself.
 */
export function renderChangedSince(
  unrecorded: { at: string; cause: UnrecordedCause; session?: string | undefined },
  now: number,
  first = false,
): string {
  const cause = causeText(unrecorded.cause, unrecorded.session);
  if (first) return `last changed ${when(unrecorded.at, now)} by a change no record shows (${cause})`;
  return `changed since then, ${when(unrecorded.at, now)}, by a change no record shows (${cause})`;
}

/** Who made a task's last change, for a refusal: "by agent of session 2d483082 at 2026-...", or a change no record shows. */
export function renderChangedBy(last: {
  event: TimelineEvent | undefined;
  unrecorded: { at: string; cause: UnrecordedCause; session?: string | undefined } | undefined;
}): string | undefined {
  if (last.unrecorded !== undefined)
    return `by a change no record shows, ${stamp(last.unrecorded.at)} (${causeText(last.unrecorded.cause, last.unrecorded.session)})`;
  return last.event === undefined ? undefined : `by ${whoText(last.event.who)} at ${stamp(last.event.at)}`;
}

/** A journal line that could not be read. */
export function renderJournalDamage(d: Damage): string {
  return d.line === undefined ? `skipped a damaged line of ${d.file}: ${d.reason}` : `skipped line ${d.line} of ${d.file}: ${d.reason}`;
}

/** A journal that is not a regular file: not read. */
export function renderJournalProblem(problem: string): string {
  return `${problem}; not read`;
}

/**
 * What `tasks log` says on stderr before the changes: where the record starts, what it
 * is made of, what it counts elsewhere, and which tasks predate it.
 */
export function renderLogNotes(timeline: Timeline, task: string | undefined): string[] {
  const events = timeline.events.filter((e) => e.op !== 'unrecorded' && (task === undefined || e.task === task));
  const first = events[0];
  const start =
    first === undefined ? `no change to ${task === undefined ? 'this list' : `#${task}`} is recorded` : `history from ${stamp(first.at)}`;
  const n = timeline.transcripts;
  const sources = n > 0 ? `, and ${n} transcript${n === 1 ? '' : 's'} of this list's sessions` : '; no session of this list is known';
  const notes = [`${start} (the journal of tasks' own changes${sources})`];
  const elsewhere = timeline.copied - timeline.copiedHere;
  const changes = (n: number) => `${n} change${n === 1 ? '' : 's'} in entries a forked session copied from its parent`;
  if (elsewhere > 0) notes.push(`${changes(elsewhere)}: counted in the parent's list, not here`);
  // A fork that shares its parent's list: the parent's own entries are read here too.
  if (timeline.copiedHere > 0) notes.push(`${changes(timeline.copiedHere)}, which shares this list: counted once, as the parent's`);
  if (timeline.partial) notes.push('the record starts later than the journal or a transcript: only their last part was read');
  return notes;
}

/** Tasks on disk whose creation no record shows. */
export function renderUnrecordedCreations(ids: readonly string[]): string | undefined {
  if (ids.length === 0) return undefined;
  const named = ids
    .slice(0, 10)
    .map((id) => `#${id}`)
    .join(', ');
  const more = ids.length > 10 ? ` and ${ids.length - 10} more` : '';
  return `no record of the creation of ${named}${more} (made before the record starts, or by a session that is not known)`;
}

/** A change the journal keeps only in part (a value too long): said by the command and by the board alike. */
export function renderJournalCut(ids: readonly string[]): string {
  return `the journal keeps only part of ${ids.map((id) => `#${id}`).join(', ')} (a value over 16,384 characters): undo cannot restore it in full`;
}

/** A journal that could not be written: the change itself stands. */
export function renderJournalNotWritten(listDir: string, err: unknown): string {
  return `could not record this change in ${listDir}/.tasks-journal.jsonl: ${(err as Error).message}; the change itself is made`;
}
