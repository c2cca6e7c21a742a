import { sameValue } from '../core/base/same-value.js';
import type { Status } from '../core/store/schema.js';
import type { ChangeEvent, FieldChange } from '../core/watch/watch-diff.js';
import { paintStatus, STATUS_WORD } from './status.js';
import type { Style } from './style.js';
import { oneLine } from './text.js';

function isStatus(v: unknown): v is Status {
  return v === 'pending' || v === 'in_progress' || v === 'completed';
}

function ids(v: unknown): string[] {
  return Array.isArray(v) ? v.map((x) => String(x)) : [];
}

function edgeDelta(change: FieldChange): string {
  const old = ids(change.old);
  const now = ids(change.new);
  const added = now.filter((x) => !old.includes(x)).map((x) => `+#${oneLine(x)}`);
  const removed = old.filter((x) => !now.includes(x)).map((x) => `−#${oneLine(x)}`);
  return [...added, ...removed].join(' ');
}

function text(v: unknown): string {
  return typeof v === 'string' ? oneLine(v) : oneLine(JSON.stringify(v) ?? '');
}

/** One field's change in words: "status pending → done", "owner → amy", "blocked by +#3". */
export function describeField(key: string, change: FieldChange, style: Style): string {
  const had = 'old' in change;
  const has = 'new' in change;
  switch (key) {
    case 'status': {
      const word = (v: unknown) => (isStatus(v) ? paintStatus(style, v, STATUS_WORD[v]) : text(v));
      return `status ${word(change.old)} → ${word(change.new)}`;
    }
    case 'owner':
      if (!has) return `owner ${text(change.old)} removed`;
      return had ? `owner ${text(change.old)} → ${text(change.new)}` : `owner → ${text(change.new)}`;
    case 'blockedBy':
      return `blocked by ${edgeDelta(change)}`;
    case 'blocks':
      return `blocks ${edgeDelta(change)}`;
    case 'subject':
      return `renamed from "${text(change.old)}"`;
    case 'activeForm':
      return has ? `active form "${text(change.new)}"` : 'active form removed';
    case 'description':
      return 'description edited';
    case 'metadata': {
      const o = (change.old ?? {}) as Record<string, unknown>;
      const n = (change.new ?? {}) as Record<string, unknown>;
      const keys = [...new Set([...Object.keys(o), ...Object.keys(n)])].filter((k) => !sameValue(o[k], n[k]));
      return `metadata ${keys.map(oneLine).join(', ')}`;
    }
    default:
      return `${oneLine(key)} ${has ? (had ? 'changed' : 'added') : 'removed'}`;
  }
}

/** One event in words, for the live view's "last change" line. */
function describeEvent(e: ChangeEvent, style: Style): string {
  switch (e.type) {
    case 'created':
      return `${style.bold(`#${e.task.id}`)} created: ${oneLine(e.task.subject)}`;
    case 'deleted':
      return `${style.bold(`#${e.task.id}`)} deleted: ${oneLine(e.task.subject)}`;
    case 'list-cleared':
      return `list cleared: ${e.tasks.length} ${e.tasks.length === 1 ? 'task' : 'tasks'} removed`;
    case 'updated': {
      const fields = Object.entries(e.changes).map(([k, c]) => describeField(k, c, style));
      return `${style.bold(`#${e.task.id}`)} ${oneLine(e.task.subject)}: ${fields.join('; ')}`;
    }
  }
}

/** What a person most wants to hear of a batch: a reset, a new task, a status change... */
function weight(e: ChangeEvent): number {
  if (e.type === 'list-cleared') return 0;
  if (e.type === 'created') return 1;
  if (e.type === 'updated' && 'status' in e.changes) return 2;
  if (e.type === 'deleted') return 3;
  if (e.type === 'updated' && 'owner' in e.changes) return 4;
  return 5;
}

/** A batch: its most telling event, and how many more came with it. */
export function describeEvents(events: readonly ChangeEvent[], style: Style): string {
  let first: ChangeEvent | undefined;
  for (const e of events) if (!first || weight(e) < weight(first)) first = e;
  if (!first) return '';
  const more = events.length - 1;
  return more > 0 ? `${describeEvent(first, style)} ${style.dim(`(+${more} more)`)}` : describeEvent(first, style);
}
