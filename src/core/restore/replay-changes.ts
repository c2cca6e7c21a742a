import { setOwn } from '../base/own-key.js';
import type { SnapshotItem } from '../snapshots/import-snapshot.js';
import { replayedItem } from '../snapshots/stream-tasks.js';
import { compareIds, isTaskId, MAX_ALLOCATABLE_ID } from '../store/ids.js';
import { STATUSES, type Status } from '../store/schema.js';

/**
 * The list a record of changes ends with. Agents' changes (their transcripts' Task-tool
 * calls) by the agents' own rules (docs/task-store.md section 6): each TaskCreate makes
 * its task under the id its result gave, each TaskUpdate merges its fields (metadata key
 * by key, `null` removing a key) and adds edges between tasks that exist. Changes made
 * with tasks (its journal) set each field to the value recorded (an absent `new`
 * removes it), edges included. A delete takes the task and every reference to it. Pure;
 * the changes come oldest first (every transcript and the journal merged by time).
 *
 * An agent's create that reuses an id the record has already seen in this list, or a create
 * made with tasks that made the folder (`tasks create` after the folder was removed), means
 * the list started again from #1 (its folder was removed and made anew: agents never hand
 * out an id twice otherwise): the tasks alive before are kept, under refs that are not ids
 * (`3@1`: #3 before the first new start), so they come back under new ids; later
 * changes name the new tasks.
 */
export interface RecordedChange {
  at: number;
  taskId: string;
  op: 'create' | 'update' | 'delete';
  /** `agent`: a Task-tool call, with TaskUpdate's meaning; `tasks`: the journal's values before and after. */
  source: 'agent' | 'tasks';
  fields: Record<string, { old?: unknown; new?: unknown }>;
  /** A create made with tasks that made the list's folder (the journal's `newList`). */
  madeList?: boolean;
}

export interface ReplayedList {
  /** Refs: the task's id, or `<id>@<n>` for a task from before the n-th new start. */
  items: SnapshotItem[];
  /** The highest id the record shows in use since the last new start (deleted ones too): the mark must reach it. */
  highestId: string | undefined;
  created: number;
  updated: number;
  deleted: number;
  /** How often the ids started again. */
  restarts: number;
  warnings: string[];
  /** When each item's task last changed in the record (ms), by ref: a restored file keeps the agents' time. */
  changedAt: Map<string, number>;
}

interface Sim {
  ref: string;
  subject: string;
  description: string;
  activeForm?: string;
  owner?: string;
  status: Status;
  metadata?: Record<string, unknown>;
  blocks: string[];
  blockedBy: string[];
  /** Keys agents do not know, kept by tasks' own writes. */
  extra?: Record<string, unknown>;
  /** When the record last changed it (ms). */
  at: number;
}

const STATUS = new Set<string>(STATUSES);
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const record = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
const ids = (v: unknown): string[] => (Array.isArray(v) ? v.map(String).filter(isTaskId) : []);

export function replayChanges(changes: readonly RecordedChange[]): ReplayedList {
  const out: ReplayedList = {
    items: [],
    highestId: undefined,
    created: 0,
    updated: 0,
    deleted: 0,
    restarts: 0,
    warnings: [],
    changedAt: new Map(),
  };
  /** Tasks alive now, by id. */
  let live = new Map<string, Sim>();
  /** Ids seen since the last new start. */
  let seen = new Set<string>();
  const earlier: Sim[] = [];
  let highest = 0n;
  const use = (id: string) => {
    seen.add(id);
    if (isTaskId(id) && BigInt(id) > highest) highest = BigInt(id);
  };
  const newStart = (at: number) => {
    out.restarts++;
    for (const task of live.values()) {
      const ref = `${task.ref}@${out.restarts}`;
      const rename = (x: string) => (live.has(x) ? `${x}@${out.restarts}` : x);
      earlier.push({ ...task, ref, blocks: task.blocks.map(rename), blockedBy: task.blockedBy.map(rename) });
    }
    out.warnings.push(
      `the list started again from a low id at ${new Date(at).toISOString()} (its folder was removed and made anew): ${live.size} task${live.size === 1 ? '' : 's'} from before come back under new ids`,
    );
    live = new Map();
    seen = new Set();
    highest = 0n;
  };

  // A record is anyone's to write: an id Claude Code never hands out (not a positive
  // decimal, or past the highest it counts exactly) is left out, once said, so that it can
  // neither name a file nor push the high-water mark past every id there is.
  const refused = new Set<string>();
  for (const change of changes) {
    const f = change.fields;
    const id = change.taskId;
    if (!isTaskId(id) || BigInt(id) > MAX_ALLOCATABLE_ID) {
      if (!refused.has(id)) {
        refused.add(id);
        out.warnings.push(
          `a record names task #${id.length > 40 ? `${id.slice(0, 40)}…` : id}, no id Claude Code hands out (a positive whole number up to ${MAX_ALLOCATABLE_ID}); left out`,
        );
      }
      continue;
    }
    if (change.op === 'create') {
      // An agent never makes an id twice in one list; tasks does, putting a deleted task back
      // (undo), which never makes the folder: a create that made it started the ids again.
      if (seen.has(id) && (change.source === 'agent' || change.madeList === true)) newStart(change.at);
      use(id);
      const subject = text(f.subject?.new);
      if (subject === undefined) {
        out.warnings.push(`#${id}: created with no subject in the record; not restored`);
        continue;
      }
      const task: Sim = {
        ref: id,
        subject,
        description: text(f.description?.new) ?? '',
        status: 'pending',
        blocks: [],
        blockedBy: [],
        at: change.at,
      };
      if (change.source === 'tasks') setFields(task, f);
      else {
        const activeForm = text(f.activeForm?.new);
        if (activeForm !== undefined) task.activeForm = activeForm;
        const metadata = record(f.metadata?.new);
        if (metadata !== undefined) task.metadata = { ...metadata };
      }
      live.set(id, task);
      out.created++;
      continue;
    }
    use(id);
    const task = live.get(id);
    if (change.op === 'delete') {
      if (task === undefined) continue;
      live.delete(id);
      for (const other of live.values()) {
        other.blocks = other.blocks.filter((x) => x !== id);
        other.blockedBy = other.blockedBy.filter((x) => x !== id);
      }
      out.deleted++;
      continue;
    }
    if (task === undefined) {
      out.warnings.push(
        `#${id}: changed ${change.source === 'agent' ? 'by an agent' : 'with tasks'}, but no record read shows it created; not restored`,
      );
      continue;
    }
    out.updated++;
    task.at = change.at;
    if (change.source === 'tasks') {
      setFields(task, f);
      continue;
    }
    const subject = text(f.subject?.new);
    if (subject !== undefined) task.subject = subject;
    const description = text(f.description?.new);
    if (description !== undefined) task.description = description;
    const activeForm = text(f.activeForm?.new);
    if (activeForm !== undefined) task.activeForm = activeForm;
    const owner = text(f.owner?.new);
    if (owner !== undefined) task.owner = owner;
    const status = text(f.status?.new);
    if (status !== undefined && STATUS.has(status)) task.status = status as Status;
    const patch = record(f.metadata?.new);
    if (patch !== undefined) {
      const merged: Record<string, unknown> = { ...(task.metadata ?? {}) };
      for (const [key, value] of Object.entries(patch)) {
        if (value === null) delete merged[key];
        else merged[key] = value;
      }
      task.metadata = merged;
    }
    for (const other of ids(f.addBlocks?.new)) link(live, id, other, change.at);
    for (const other of ids(f.addBlockedBy?.new)) link(live, other, id, change.at);
  }

  const all = [...earlier, ...live.values()];
  const known = new Set(all.map((t) => t.ref));
  for (const t of all) out.changedAt.set(t.ref, t.at);
  out.items = all
    .sort((a, b) => compareIds(a.ref, b.ref))
    .map((t) => {
      const item = replayedItem(
        t,
        (x) => x.ref,
        (ref) => known.has(ref),
        all,
      );
      if (t.extra !== undefined && Object.keys(t.extra).length > 0) item.extra = t.extra;
      return item;
    });
  out.highestId = highest > 0n ? String(highest) : undefined;
  return out;
}

const KNOWN = new Set(['id', 'subject', 'description', 'activeForm', 'owner', 'status', 'blocks', 'blockedBy', 'metadata']);

/** A change made with tasks: each field to its recorded value; an absent `new` removes it. */
function setFields(task: Sim, fields: RecordedChange['fields']): void {
  for (const [key, change] of Object.entries(fields)) {
    const has = 'new' in change;
    const value = change.new;
    switch (key) {
      case 'id':
        break;
      case 'subject':
      case 'description':
        if (typeof value === 'string') task[key] = value;
        break;
      case 'activeForm':
      case 'owner':
        if (has && typeof value === 'string') task[key] = value;
        else delete task[key];
        break;
      case 'status':
        if (typeof value === 'string' && STATUS.has(value)) task.status = value as Status;
        break;
      case 'metadata': {
        const m = record(value);
        if (has && m !== undefined) task.metadata = { ...m };
        else delete task.metadata;
        break;
      }
      case 'blocks':
      case 'blockedBy':
        task[key] = ids(value);
        break;
      default:
        if (KNOWN.has(key)) break;
        task.extra ??= {};
        if (has) setOwn(task.extra, key, value);
        else delete task.extra[key];
    }
  }
}

/** An edge is made only when both tasks exist, as the agents' blockTask does; it changes both. */
function link(live: Map<string, Sim>, blocker: string, blocked: string, at: number): void {
  const a = live.get(blocker);
  const b = live.get(blocked);
  if (!a || !b || a === b) return;
  a.at = Math.max(a.at, at);
  b.at = Math.max(b.at, at);
  if (!a.blocks.includes(blocked)) a.blocks.push(blocked);
  if (!b.blockedBy.includes(blocker)) b.blockedBy.push(blocker);
}
