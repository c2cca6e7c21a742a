import fs from 'node:fs';
import { readTranscriptTasks, type TranscriptTasks } from './transcript-tasks.js';

/**
 * What a transcript says of its tasks, kept in memory by a caller across session indexes
 * (a watch checks again and again with fresh ones), by the file's path, size, times and
 * inode. A session index keeps its own (and between runs, with a cache: transcript-store.ts).
 */
export interface TranscriptTasksCache {
  get(key: string): TranscriptTasks | undefined;
  set(key: string, value: TranscriptTasks): void;
}

export function memoryCache(): TranscriptTasksCache {
  const map = new Map<string, TranscriptTasks>();
  return { get: (key) => map.get(key), set: (key, value) => void map.set(key, value) };
}

/** The key of a transcript as it is now; undefined when it cannot be read. */
export function transcriptKey(file: string): string | undefined {
  try {
    const stat = fs.statSync(file);
    return stat.isFile() ? `${file}\0${stat.size}\0${stat.mtimeMs}\0${stat.ctimeMs}\0${stat.ino}` : undefined;
  } catch {
    return undefined;
  }
}

/** A transcript's tasks, from the cache when the file has not changed since. */
export function cachedTranscriptTasks(file: string, cache: TranscriptTasksCache): TranscriptTasks {
  const key = transcriptKey(file);
  const kept = key === undefined ? undefined : cache.get(key);
  if (kept !== undefined) return kept;
  const read = readTranscriptTasks(file);
  if (key !== undefined) cache.set(key, read);
  return read;
}

/**
 * A cache that keeps only the latest version of each transcript (keys begin with the
 * file's path): for a caller that looks again and again for as long as it runs, whose
 * transcripts grow between looks.
 */
export function latestOnlyCache(): TranscriptTasksCache {
  const map = new Map<string, { key: string; value: TranscriptTasks }>();
  const fileOf = (key: string) => key.slice(0, key.indexOf('\0'));
  return {
    get: (key) => {
      const kept = map.get(fileOf(key));
      return kept?.key === key ? kept.value : undefined;
    },
    set: (key, value) => void map.set(fileOf(key), { key, value }),
  };
}
