import fs from 'node:fs';
import path from 'node:path';
import { appendToRegularFile } from '../base/append-regular.js';
import { readBoundedText } from '../base/bounded-read.js';
import { isTaskId } from '../store/ids.js';

/**
 * Traces of the changes made with tasks, kept outside the list folders. A list's journal
 * lives in its folder, so when Claude Code removes the folder (docs/task-store.md section
 * 17) the journal goes with it, and with it the only record of what a person did there:
 * a restore would bring tasks back as the agents left them and could hand out again an
 * id tasks gave out. So each run that changes a list also appends one line here, once it
 * is done: the list, when, and the highest id it created. A restore reads them to say that
 * changes made with tasks are gone, and to keep the high-water mark above those ids.
 *
 * Kept in `<config>/tasks/.tasks-writes.jsonl` (agents read only list folders' `*.json`),
 * one line a run and list; past ROTATE_BYTES it becomes `.tasks-writes.1.jsonl`, replacing
 * the one before, and both are read.
 */
export interface WriteTrace {
  list: string;
  /** ms since the epoch. */
  at: number;
  /** The highest id the run created in the list (none: it created nothing). */
  id?: string;
  /** The tasks it changed (created, changed or deleted), at most MAX_TASKS of them. */
  tasks?: string[];
}

/** Tasks named in one trace: a run over thousands of tasks is traced by its highest id. */
export const MAX_TASKS = 50;

const FILE = '.tasks-writes.jsonl';
const PREVIOUS = '.tasks-writes.1.jsonl';
const ROTATE_BYTES = 1024 * 1024;

/** Append the traces of one run (one write with O_APPEND: two runs' lines never interleave). Never throws: a trace is a help, not the record. */
export function traceWrites(tasksRoot: string, traces: readonly WriteTrace[]): void {
  if (traces.length === 0) return;
  const text = traces
    .map(
      (t) =>
        `${JSON.stringify({
          at: new Date(t.at).toISOString(),
          list: t.list,
          ...(t.id === undefined ? {} : { id: t.id }),
          ...(t.tasks === undefined || t.tasks.length === 0 ? {} : { tasks: t.tasks.slice(0, MAX_TASKS) }),
        })}\n`,
    )
    .join('');
  try {
    const file = path.join(tasksRoot, FILE);
    const stat = fs.lstatSync(file, { throwIfNoEntry: false });
    if (stat !== undefined && !stat.isFile()) return;
    if ((stat?.size ?? 0) > ROTATE_BYTES) fs.renameSync(file, path.join(tasksRoot, PREVIOUS));
    appendToRegularFile(file, text);
  } catch {
    // A read-only tasks folder: the journal in the list folder still records the change.
  }
}

/** The traces of one list, oldest first (none when nothing was traced or it cannot be read). */
export function readWriteTraces(tasksRoot: string, list: string): WriteTrace[] {
  const out: WriteTrace[] = [];
  for (const name of [PREVIOUS, FILE]) {
    let text: string;
    try {
      text = readBoundedText(path.join(tasksRoot, name), 4 * ROTATE_BYTES);
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      const trace = parseTrace(line);
      if (trace?.list === list) out.push(trace);
    }
  }
  return out.sort((a, b) => a.at - b.at);
}

function parseTrace(line: string): WriteTrace | undefined {
  if (line.trim() === '') return undefined;
  try {
    const v = JSON.parse(line) as Record<string, unknown>;
    const at = typeof v.at === 'string' ? Date.parse(v.at) : Number.NaN;
    if (!Number.isFinite(at) || typeof v.list !== 'string') return undefined;
    const tasks = Array.isArray(v.tasks) ? v.tasks.filter((t): t is string => typeof t === 'string' && isTaskId(t)) : [];
    return {
      list: v.list,
      at,
      ...(typeof v.id === 'string' && isTaskId(v.id) ? { id: v.id } : {}),
      ...(tasks.length > 0 ? { tasks } : {}),
    };
  } catch {
    return undefined;
  }
}
