import type { EventChange, TimelineEvent, Who } from '../core/history/timeline.js';
import { ago } from './elapsed.js';
import type { Style } from './style.js';
import { oneLine, truncate } from './text.js';

/** `alice (person)`, `worker-1 (agent)`, `agent of session 2d483082`, `subagent a1b2 of session 2d483082` */
function whoText(who: Who): string {
  if (who.kind === 'person') return `${oneLine(who.name ?? 'someone')} (person)`;
  const session = who.session === null ? '' : `session ${who.session.slice(0, 8)}`;
  if (who.name === null) return `agent of ${session}`;
  return session === '' ? `${oneLine(who.name)} (agent)` : `${oneLine(who.name)} (agent of ${session})`;
}

const value = (v: unknown): string => {
  if (v === undefined || v === null) return '(none)';
  if (typeof v === 'string') return v === '' ? '""' : truncate(oneLine(v), 40);
  return truncate(oneLine(JSON.stringify(v)), 40);
};
const ids = (list: readonly string[]) => list.map((id) => `#${oneLine(id)}`).join(', ');

/** One field's change in words: `status pending → in_progress`, `blocked by #2`. */
function fieldText(key: string, c: EventChange): string[] {
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

/** What an event did, in words: `created "Fix auth"`, `status pending → completed, owner → bob`, `deleted`. */
function eventText(e: TimelineEvent): string {
  const by = e.command === 'undo' ? 'undo: ' : '';
  return by + whatText(e);
}

function whatText(e: TimelineEvent): string {
  if (e.op === 'create') return `created ${value(e.changes.subject?.new)}`;
  if (e.op === 'delete') return `deleted${e.changes.subject?.old === undefined ? '' : ` ${value(e.changes.subject.old)}`}`;
  return (
    Object.entries(e.changes)
      .flatMap(([k, c]) => fieldText(k, c))
      .join(', ') || 'no visible change'
  );
}

/** "2026-11-30 12:53:59" in local time: a log is read against a clock. */
export function stamp(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** The timeline for a person: time, task, who, what. */
export function renderLogLines(events: readonly TimelineEvent[], style: Style): string {
  const whoWidth = Math.min(36, Math.max(...events.map((e) => whoText(e.who).length)));
  const idWidth = Math.max(...events.map((e) => e.task.length + 1));
  return events
    .map((e) =>
      [
        style.dim(stamp(e.at)),
        `#${oneLine(e.task)}`.padEnd(idWidth),
        (e.who.kind === 'person' ? style.magenta : style.cyan)(truncate(whoText(e.who), whoWidth).padEnd(whoWidth)),
        eventText(e),
      ].join('  '),
    )
    .join('\n');
}

/** "last changed 5 min ago by alice (person): status → in_progress" */
export function renderLastChange(e: TimelineEvent, now: number): string {
  return `last changed ${ago(Date.parse(e.at), now)} by ${whoText(e.who)}: ${eventText(e)}`;
}

/** A journal line that could not be read (line 0: the journal itself). */
export function renderJournalDamage(d: { line: number; reason: string }): string {
  return d.line === 0 ? `cannot read the journal: ${d.reason}` : `skipped line ${d.line} of .tasks-journal.jsonl: ${d.reason}`;
}

/**
 * What `tasks log` says on stderr before the changes: where the record starts, what it
 * is made of, and what no record explains.
 */
export function renderLogNotes(opts: {
  task: string | undefined;
  first: TimelineEvent | undefined;
  transcripts: number;
  gaps: { before: readonly string[]; unexplained: readonly string[] };
}): string[] {
  const { task, first, transcripts, gaps } = opts;
  const start =
    first === undefined ? `no change to ${task === undefined ? 'this list' : `#${task}`} is recorded` : `history from ${stamp(first.at)}`;
  const sources =
    transcripts > 0
      ? `, and ${transcripts} transcript${transcripts === 1 ? '' : 's'} of this list's sessions`
      : '; no session of this list is known';
  const refs = (ids: readonly string[]) => ids.map((id) => `#${id}`).join(', ');
  return [
    `${start} (the journal of tasks' own changes${sources})`,
    ...(gaps.before.length > 0
      ? [`no record of the creation of ${refs(gaps.before)} (made before the record starts, or by a session that is not known)`]
      : []),
    ...(gaps.unexplained.length > 0
      ? [`changed in ways no record shows (a hand edit, or an agent whose session is not known): ${refs(gaps.unexplained)}`]
      : []),
  ];
}

/** Under `get`'s last change, when the file is newer than any record of it. */
export function renderChangedSince(): string {
  return 'changed since then by a change no record shows (a hand edit, or an agent whose session is not known)';
}
