import fs from 'node:fs';
import { sameStamp, stampFromTuple, stampOf, stampTuple, trusted } from './file-stamp.js';
import type { Shard } from './persistent-cache.js';

/**
 * A folder's entry names, kept in a shard with the folder's stamp: making, removing or
 * renaming an entry changes the folder's times, so a folder whose stamp has not changed
 * since it was listed (and was quiet then) has the same names, and is looked at instead
 * of listed. Undefined when it is not a folder that can be read. `stat`: the folder's.
 *
 * `once`: what a single reading of the folders is (a session index): within it each
 * folder is looked at once, as the list summaries and the session evidence both ask. It
 * is never the shard, which a long run (the board) keeps for hours while agents make
 * and remove files: what one reading saw must not stand for the next.
 */
export function folderNames(
  dir: string,
  shard: Shard | undefined,
  key: string,
  now: number,
  once?: object,
): { names: string[]; stat: fs.Stats } | undefined {
  let seen = once === undefined ? undefined : looked.get(once);
  if (once !== undefined && seen === undefined) looked.set(once, (seen = new Map()));
  if (seen?.has(key)) return seen.get(key);
  const found = lookAt(dir, shard, key, now);
  seen?.set(key, found);
  return found;
}

type Found = { names: string[]; stat: fs.Stats } | undefined;

/** What each reading has found of its folders. */
const looked = new WeakMap<object, Map<string, Found>>();

function lookAt(dir: string, shard: Shard | undefined, key: string, now: number): Found {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    return undefined;
  }
  if (!stat.isDirectory()) return undefined;
  const stamp = stampOf(stat);
  const kept = shard?.get(key) as { d?: unknown; at?: unknown; names?: unknown } | undefined;
  if (kept !== undefined && typeof kept === 'object' && kept !== null && typeof kept.at === 'number' && Array.isArray(kept.names)) {
    const was = stampFromTuple(kept.d);
    if (was !== undefined && sameStamp(was, stamp) && trusted(was, kept.at) && kept.names.every((n) => typeof n === 'string')) {
      return { names: kept.names as string[], stat };
    }
  }
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return undefined;
  }
  if (shard !== undefined && trusted(stamp, now)) shard.set(key, { d: stampTuple(stamp), at: now, names });
  return { names, stat };
}

/**
 * The shard that list folders are kept in (their names here, their task files' statuses
 * by lists/summary-cache.ts): a name no project folder can have. Both the list summaries
 * and the session evidence read a list folder's names from it, under listNamesKey.
 */
export const LISTS_SHARD = '_lists';
export const listNamesKey = (id: string) => `names/${id}`;
