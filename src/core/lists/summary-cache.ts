import fs from 'node:fs';
import path from 'node:path';
import { stampOf, stampTuple, trusted } from '../cache/file-stamp.js';
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

export function cachedSummary(dir: string, id: string, shard: Shard, now: number, once?: object): CachedSummary | undefined {
  const folder = folderNames(dir, shard, namesKey(id), now, once);
  if (folder === undefined) return undefined;
  const { names, stat: dirStat } = folder;
  const kept = keptFiles(shard.get(filesKey(id)));
  let keptCount = 0;
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
    const was = kept === undefined ? undefined : keptFile(kept, name);
    let status: Status | null | undefined;
    if (was !== undefined && sameAsTuple(was[0], stat) && trustedTuple(was[0], was[1])) status = was[2];
    if (status === undefined) {
      const at = now;
      const read = readTaskFile(prefix + name);
      if (read.kind === 'missing') continue;
      status = read.kind === 'ok' ? read.task.status : null;
      changed = true;
      const stamp = stampOf(stat);
      if (trusted(stamp, at)) files[name] = [stampTuple(stamp), at, status];
    } else {
      files[name] = was as KeptFile;
      keptCount++;
    }
    if (status === null) problems++;
    else {
      counts[status]++;
      total++;
    }
  }
  if (changed || keptCount !== Object.keys(kept ?? {}).length) shard.set(filesKey(id), files);
  return { counts, total, problems, changedAt: newest > 0 ? newest : dirStat.mtimeMs };
}

/** The shard keys of a list: its folder's names (cache/folder-names.ts, shared with the session evidence), its files. */
const namesKey = listNamesKey;
const filesKey = (id: string) => `files/${id}`;

/** The keys of these lists' entries: the others' lists are gone. */
export function summaryKeys(ids: readonly string[]): Set<string> {
  return new Set(ids.flatMap((id) => [namesKey(id), filesKey(id)]));
}

function keptFiles(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** One file's kept record, if it has the shape this module writes (entries are data from disk). */
function keptFile(kept: Record<string, unknown>, name: string): KeptFile | undefined {
  const f = Object.hasOwn(kept, name) ? kept[name] : undefined;
  if (!Array.isArray(f) || f.length !== 3 || typeof f[1] !== 'number' || !(f[2] === null || STATUSES.includes(f[2]))) return undefined;
  const t = f[0];
  if (!Array.isArray(t) || t.length !== 4 || !t.every((n) => typeof n === 'number' && Number.isFinite(n))) return undefined;
  return f as KeptFile;
}

/** A kept stamp tuple against a file's stat now (file-stamp.ts's sameStamp, without making a stamp). */
function sameAsTuple(t: KeptFile[0], stat: fs.Stats): boolean {
  return t[0] === stat.size && t[1] === stat.mtimeMs && t[2] === stat.ctimeMs && t[3] === stat.ino;
}

function trustedTuple(t: KeptFile[0], readAt: number): boolean {
  return trusted({ size: t[0], mtimeMs: t[1], ctimeMs: t[2], ino: t[3] }, readAt);
}
