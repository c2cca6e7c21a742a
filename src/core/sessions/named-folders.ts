import path from 'node:path';
import { namesIn } from '../base/names-in.js';
import { folderStamp, sameStamp, stampFromTuple, stampTuple, trusted } from '../cache/file-stamp.js';
import type { Shard } from '../cache/persistent-cache.js';
import type { TranscriptFacts } from './transcript-facts.js';

/**
 * The sessions of a project folder `$CLAUDE_CODE_PROJECT_DIR_NAME` named, by the directory
 * each ran in (its transcript's first `cwd`, which a session keeps for good). Such a folder
 * holds the sessions of every directory started with that name, so finding one
 * directory's takes every transcript's facts; a directory with none of them (a folder
 * below a project, looked at before the project itself) would pay that on every run.
 * Kept between runs with the folder's stamp: a transcript made or removed changes it,
 * one that grows does not, and its directory cannot change. Kept only once the folder
 * has settled (SETTLE_MS) and every transcript there names its directory.
 */

/** The persistent cache's shard of them (a name no project folder named after a directory has). */
const SHARD = '_named';

interface Kept {
  /** The folder's stamp. */
  s: unknown;
  /** Session ids by directory. */
  c: Record<string, string[]>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface FolderReader {
  readonly shard: Shard | undefined;
  readonly now: number;
  facts(file: string): TranscriptFacts;
  factsAhead(files: readonly string[]): void;
}

export interface FolderSessions {
  /** Session ids by the directory they ran in. */
  byDirectory: Map<string, string[]>;
  /** Sessions whose transcript names no directory yet (just made): any directory's. */
  unknown: string[];
}

/** The sessions of `folder` (a project folder's path) by the directory they ran in. */
export function sessionsByDirectory(folder: string, reader: FolderReader): FolderSessions {
  const project = path.basename(folder);
  // Taken before the listing: a transcript made after it changes the folder from this stamp.
  const stamp = folderStamp(folder);
  const kept = keptOf(reader.shard?.get(project));
  const was = kept === undefined ? undefined : stampFromTuple(kept.s);
  if (kept !== undefined && stamp !== undefined && was !== undefined && sameStamp(was, stamp))
    return { byDirectory: new Map(Object.entries(kept.c)), unknown: [] };
  const files = namesIn(folder)
    .filter((name) => name.endsWith('.jsonl') && UUID.test(name.slice(0, -6)))
    .map((name) => `${folder}${path.sep}${name}`);
  reader.factsAhead(files);
  const found = new Map<string, string[]>();
  const unknown: string[] = [];
  for (const file of files) {
    const cwd = reader.facts(file).cwd;
    if (cwd === undefined) {
      unknown.push(path.basename(file, '.jsonl'));
      continue;
    }
    const ids = found.get(cwd) ?? [];
    ids.push(path.basename(file, '.jsonl'));
    found.set(cwd, ids);
  }
  if (reader.shard !== undefined && unknown.length === 0 && stamp !== undefined && trusted(stamp, reader.now))
    reader.shard.set(project, { s: stampTuple(stamp), c: Object.fromEntries(found) } satisfies Kept);
  return { byDirectory: found, unknown };
}

/** The shard that keeps them, when the run keeps a persistent cache. */
export function namedFoldersShard(cache: { dir?: string | undefined; shard(name: string): Shard } | undefined): Shard | undefined {
  return cache?.dir === undefined ? undefined : cache.shard(SHARD);
}

function keptOf(value: unknown): Kept | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Partial<Kept>;
  if (typeof v.c !== 'object' || v.c === null) return undefined;
  // Ids name files: only a session's id.
  const ok = Object.values(v.c).every((ids) => Array.isArray(ids) && ids.every((id) => typeof id === 'string' && UUID.test(id)));
  return ok ? (v as Kept) : undefined;
}
