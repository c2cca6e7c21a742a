import fs from 'node:fs';

/**
 * What a cache entry was worked out from: the file's size, modification and change times
 * and inode. A file rewritten in place changes its size or times; one replaced by another
 * (a rename over it, a copy with its old mtime restored) gets a new inode or a new ctime,
 * which no program can set back. Equal stamps mean the same content, with one exception
 * that `trusted` rules out: file systems keep times in ticks (a few ms, up to seconds), so
 * two writes of the same size within one tick leave the same stamp.
 */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

export function stampOf(stat: fs.Stats): FileStamp {
  return { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino };
}

/** A folder's stamp (through a link, as stat follows one); undefined when it is gone or not a folder. */
export function folderStamp(dir: string): FileStamp | undefined {
  try {
    const stat = fs.statSync(dir);
    return stat.isDirectory() ? stampOf(stat) : undefined;
  } catch {
    return undefined;
  }
}

export function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

/**
 * How long after its last write a file's stamp is trusted to change with its next write:
 * longer than any file system's time tick (FAT's is 2 s), and than the skew between this
 * clock and a network file system's.
 */
export const SETTLE_MS = 3_000;

/**
 * May an entry worked out at `readAt` (ms) stand for the file while its stamp stays the
 * same? Only if the file had not been written for SETTLE_MS then: a write in the same
 * tick as the read could have changed the content after it and kept the stamp.
 */
export function trusted(stamp: FileStamp, readAt: number): boolean {
  return Math.max(stamp.mtimeMs, stamp.ctimeMs) < readAt - SETTLE_MS;
}

/** A stamp as kept in a cache: [size, mtimeMs, ctimeMs, ino]. */
export type StampTuple = [number, number, number, number];

export function stampTuple(s: FileStamp): StampTuple {
  return [s.size, s.mtimeMs, s.ctimeMs, s.ino];
}

export function stampFromTuple(value: unknown): FileStamp | undefined {
  if (!Array.isArray(value) || value.length !== 4 || !value.every((n) => typeof n === 'number' && Number.isFinite(n))) return undefined;
  const [size, mtimeMs, ctimeMs, ino] = value as StampTuple;
  return { size, mtimeMs, ctimeMs, ino };
}
