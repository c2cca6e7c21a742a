import fs from 'node:fs';
import path from 'node:path';
import { sameStamp, stampFromTuple, stampOf, stampTuple, trusted } from '../cache/file-stamp.js';
import { folderNames, listNamesKey } from '../cache/folder-names.js';
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

export function cachedSummary(dir: string, id: string, shard: Shard, now: number): CachedSummary | undefined {
  const folder = folderNames(dir, shard, namesKey(id), now);
  if (folder === undefined) return undefined;
  const { names, stat: dirStat } = folder;
  const kept = keptFiles(shard.get(filesKey(id)));
  let changed = false;
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
    const was = kept?.[name];
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
  if (changed || Object.keys(files).length !== Object.keys(kept ?? {}).length) shard.set(filesKey(id), files);
  return { counts, total, problems, changedAt: newest > 0 ? newest : dirStat.mtimeMs };
}

/** The shard keys of a list: its folder's names (cache/folder-names.ts, shared with the session evidence), its files. */
const namesKey = listNamesKey;
const filesKey = (id: string) => `files/${id}`;

/** The keys of these lists' entries: the others' lists are gone. */
export function summaryKeys(ids: readonly string[]): Set<string> {
  return new Set(ids.flatMap((id) => [namesKey(id), filesKey(id)]));
}

function keptFiles(value: unknown): Record<string, KeptFile> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const good: Record<string, KeptFile> = {};
  for (const [name, f] of Object.entries(value)) {
    if (!Array.isArray(f) || typeof f[1] !== 'number' || !(f[2] === null || STATUSES.includes(f[2]))) return undefined;
    good[name] = f as KeptFile;
  }
  return good;
}
