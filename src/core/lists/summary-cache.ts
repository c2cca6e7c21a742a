import fs from 'node:fs';
import path from 'node:path';
import { type FileStamp, sameStamp, stampFromTuple, stampOf, stampTuple, trusted } from '../cache/file-stamp.js';
import type { Shard } from '../cache/persistent-cache.js';
import { LARGE_FILE_BYTES, LIST_BYTES_BUDGET } from '../store/list-read.js';
import { HIGH_WATER_MARK } from '../store/paths.js';
import { readTaskFile } from '../store/task-file.js';
import { STATUSES, type Status } from '../store/task-guard.js';

/**
 * A list's counts and last change (list-summary.ts) from the persistent cache (cache/):
 * each task file's status kept with its stamp, so that a file whose stamp has not changed
 * since it was read (and was quiet then) is not read again, only looked at; the folder's
 * names kept with the folder's stamp, which changes when a file is made, removed or
 * renamed in it. The answer is the one reading every file gives (summarizeList): where
 * this cannot know it cheaply (a symlinked file, a large one, a list too big to read
 * whole, a folder that cannot be read), undefined, and the caller reads the list.
 */
export interface CachedSummary {
  counts: Record<Status, number>;
  total: number;
  problems: number;
  changedAt: number;
}

/** A task file as kept: its stamp, when it was read, and its status (null: not a task agents can read). */
type KeptFile = [ReturnType<typeof stampTuple>, number, Status | null];

interface KeptList {
  /** The folder's stamp, when its names were read, and the names. */
  d: ReturnType<typeof stampTuple>;
  at: number;
  names: string[];
  files: Record<string, KeptFile>;
}

export function cachedSummary(dir: string, id: string, shard: Shard, now: number): CachedSummary | undefined {
  let dirStat: fs.Stats;
  try {
    dirStat = fs.statSync(dir);
  } catch {
    return undefined;
  }
  if (!dirStat.isDirectory()) return undefined;
  const dirStamp = stampOf(dirStat);
  const kept = keptList(shard.get(id));
  let names: string[];
  let changed = false;
  if (kept !== undefined && sameStamp(kept.dir, dirStamp) && trusted(kept.dir, kept.at)) names = kept.names;
  else {
    try {
      names = fs.readdirSync(dir);
    } catch {
      return undefined;
    }
    changed = true;
  }
  const counts: Record<Status, number> = { pending: 0, in_progress: 0, completed: 0 };
  let total = 0;
  let problems = 0;
  let newest = 0;
  let bytes = 0;
  const files: Record<string, KeptFile> = {};
  const prefix = dir.endsWith(path.sep) ? dir : `${dir}${path.sep}`;
  for (const name of names) {
    const json = name.endsWith('.json');
    if (!json && name !== HIGH_WATER_MARK) continue;
    const stat = fs.lstatSync(prefix + name, { throwIfNoEntry: false });
    if (stat === undefined) continue; // deleted meanwhile (deletes take no lock)
    bytes += stat.size;
    if (stat.isSymbolicLink() || stat.size > LARGE_FILE_BYTES || bytes > LIST_BYTES_BUDGET) return undefined;
    newest = Math.max(newest, stat.mtimeMs);
    if (!json || name.startsWith('.')) continue;
    const stamp = stampOf(stat);
    const was = kept?.files[name];
    let status: Status | null | undefined;
    if (was !== undefined) {
      const wasStamp = stampFromTuple(was[0]);
      if (wasStamp !== undefined && sameStamp(wasStamp, stamp) && trusted(wasStamp, was[1])) status = was[2];
    }
    if (status === undefined) {
      const at = now;
      const read = readTaskFile(prefix + name);
      if (read.kind === 'missing') continue;
      status = read.kind === 'ok' ? read.task.status : null;
      changed = true;
      if (trusted(stamp, at)) files[name] = [stampTuple(stamp), at, status];
    } else files[name] = was as KeptFile;
    if (status === null) problems++;
    else {
      counts[status]++;
      total++;
    }
  }
  if (changed || Object.keys(files).length !== Object.keys(kept?.files ?? {}).length) {
    shard.set(id, { d: stampTuple(dirStamp), at: now, names, files } satisfies KeptList);
  }
  return { counts, total, problems, changedAt: newest > 0 ? newest : dirStat.mtimeMs };
}

function keptList(value: unknown): (Omit<KeptList, 'd'> & { dir: FileStamp }) | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { d, at, names, files } = value as Record<string, unknown>;
  const dir = stampFromTuple(d);
  if (dir === undefined || typeof at !== 'number' || !Array.isArray(names) || !names.every((n) => typeof n === 'string')) return undefined;
  if (typeof files !== 'object' || files === null || Array.isArray(files)) return undefined;
  const good: Record<string, KeptFile> = {};
  for (const [name, f] of Object.entries(files)) {
    if (!Array.isArray(f) || typeof f[1] !== 'number' || !(f[2] === null || STATUSES.includes(f[2]))) return undefined;
    good[name] = f as KeptFile;
  }
  return { dir, at, names: names as string[], files: good };
}
