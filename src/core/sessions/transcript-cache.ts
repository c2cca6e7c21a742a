import fs from 'node:fs';
import { readTranscriptTasks, type TranscriptTasks } from './transcript-tasks.js';

/**
 * Where what a transcript says of its tasks is kept between reads, by the file's path,
 * size and mtime: a transcript only grows, so a file with the same three has the same
 * content as far as we can tell. This process keeps them in memory; a cache that outlives
 * it can stand in (same interface), and a missing or stale one only costs time.
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
    return stat.isFile() ? `${file}\0${stat.size}\0${stat.mtimeMs}` : undefined;
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
