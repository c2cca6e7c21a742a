import fs from 'node:fs';
import path from 'node:path';
import { isDirectory } from '../base/is-directory.js';
import { sameValue } from '../base/same-value.js';
import { fileIds, readHighWaterMark, readList } from '../store/list-read.js';
import { HIGH_WATER_MARK, taskPath } from '../store/paths.js';
import { type CrashedRun, crashedAuthor } from './crashed-author.js';
import type { TimelineEvent, UnrecordedCause } from './events.js';
import type { KnownState } from './replay.js';

/**
 * What no record explains: a task on disk whose fields differ from what the journal and
 * the transcripts leave it with, or a task the record has that is gone with no record of
 * its deletion. Each is an event of its own (`op: "unrecorded"`), at the time its file
 * (or the folder) last changed, with its likely cause: Claude Code keeping a status
 * itself (docs/task-store.md section 13: only the status differs, and the app told the
 * agent it keeps them), an agent killed before its transcript recorded the change (a
 * run of a session of the list that crashed shortly after its last entry: crashed-author.ts; the
 * event names it), an agent whose transcript is not known (no session of the list is
 * known, or its record starts later), else a hand edit. A change the journal recorded
 * is never one of these: an absent field and `null` are the same absent field.
 *
 * Tasks gone together in Claude Code's own list reset (docs/task-store.md section 6.7:
 * once every task is completed, at the next prompt, the session's process deletes every
 * task file under the list lock and writes the high-water mark) are said to be that, not
 * a hand edit: every task the record has is gone and was completed there, no task file
 * is left, and the mark, at least the highest of their ids, was written with the
 * deletions (within RESET_SLACK_MS of the folder's last change), after every record of
 * them. A person who deletes the files by hand leaves the mark as it was.
 */
const RESET_SLACK_MS = 2000;
export interface UnrecordedContext {
  list: string;
  /** Some transcript of the list's sessions was read. */
  sessionsKnown: boolean;
  /** Some session was told that the app keeps statuses itself. */
  appKeepsStatuses: boolean;
  /** The record starts later than the journal or a transcript. */
  partial: boolean;
  /** The crashed runs of the list's sessions (crashed-author.ts). */
  crashed?: readonly CrashedRun[] | undefined;
}

const absentAsNull = (v: unknown) => (v === undefined ? null : v);

export function unrecordedEvents(
  listDir: string,
  events: readonly TimelineEvent[],
  state: KnownState,
  ctx: UnrecordedContext,
): TimelineEvent[] {
  const lastAt = new Map<string, number>();
  const deleted = new Set<string>();
  for (const e of events) {
    if (e.task === null) continue;
    lastAt.set(e.task, Date.parse(e.at));
    if (e.op === 'delete' || e.op === 'aside') deleted.add(e.task);
    else deleted.delete(e.task);
  }
  const cause = (fields: string[]): UnrecordedCause =>
    fields.length === 1 && fields[0] === 'status' && ctx.appKeepsStatuses
      ? 'app-status'
      : !ctx.sessionsKnown || ctx.partial
        ? 'unknown-agent'
        : 'hand-edit';
  const out: TimelineEvent[] = [];
  const onDisk = new Set<string>();
  const event = (task: string, atMs: number, changes: TimelineEvent['changes'], why: UnrecordedCause): TimelineEvent => {
    // Not the app's own doing: an agent killed just after it, before its transcript said so, rather than a hand.
    const crashed = why === 'app-status' || why === 'app-reset' ? undefined : crashedAuthor(ctx.crashed ?? [], atMs);
    return {
      at: new Date(Math.max(atMs, lastAt.get(task) ?? 0)).toISOString(),
      list: ctx.list,
      task,
      op: 'unrecorded',
      who: { kind: 'unknown', name: null, session: crashed ?? null },
      changes,
      source: 'files',
      command: null,
      txn: null,
      cause: crashed === undefined ? why : 'crashed-agent',
    };
  };
  // A list whose folder is not made yet (a live session before its first task) has no files to explain.
  if (!isDirectory(listDir)) return [];
  const list = readList(listDir);
  // A file that does not read as a task is still there: `tasks check` speaks of it.
  for (const id of fileIds(listDir)) onDisk.add(id);
  for (const task of list.tasks) {
    onDisk.add(task.id);
    const known = state.get(task.id);
    if (known === undefined) continue;
    const changes: TimelineEvent['changes'] = {};
    for (const [key, value] of Object.entries(known)) {
      if (value === undefined) continue;
      const now = absentAsNull(task[key]);
      if (!sameValue(absentAsNull(value), now)) changes[key] = { old: value, new: now };
    }
    const fields = Object.keys(changes);
    if (fields.length === 0) continue;
    const mtime = fs.statSync(taskPath(listDir, task.id), { throwIfNoEntry: false })?.mtimeMs ?? 0;
    out.push(event(task.id, mtime, changes, cause(fields)));
  }
  // In the record, not deleted there, and gone from disk.
  const folderTime = fs.statSync(listDir, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const gone = [...state.keys()].filter((id) => !onDisk.has(id) && !deleted.has(id));
  const why = appReset(listDir, gone, state, onDisk, folderTime, lastAt, ctx) ? 'app-reset' : cause([]);
  for (const id of gone) out.push({ ...event(id, folderTime, {}, why), changes: { file: { old: `${id}.json`, new: null } } });
  return out;
}

/** Whether these gone tasks went in Claude Code's own list reset (above). */
function appReset(
  listDir: string,
  gone: readonly string[],
  state: KnownState,
  onDisk: ReadonlySet<string>,
  folderTime: number,
  lastAt: ReadonlyMap<string, number>,
  ctx: UnrecordedContext,
): boolean {
  if (gone.length === 0 || onDisk.size > 0 || !ctx.sessionsKnown) return false;
  if (!gone.every((id) => state.get(id)?.status === 'completed' && (lastAt.get(id) ?? 0) <= folderTime)) return false;
  const markTime = fs.statSync(path.join(listDir, HIGH_WATER_MARK), { throwIfNoEntry: false })?.mtimeMs;
  if (markTime === undefined || Math.abs(markTime - folderTime) > RESET_SLACK_MS) return false;
  const mark = readHighWaterMark(listDir);
  return gone.every((id) => /^\d+$/.test(id) && BigInt(id) <= mark);
}
