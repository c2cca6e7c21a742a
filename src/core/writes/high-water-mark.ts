import path from 'node:path';
import { withListLock } from '../locks/locks.js';
import { readHighWaterMark } from '../store/list-read.js';
import { HIGH_WATER_MARK } from '../store/paths.js';
import { writeFileAtomic } from '../store/task-file.js';

/**
 * Raise a list's `.highwatermark` to `id` when it is lower, under the list lock (the
 * mark is what keeps ids from being handed out twice: docs/task-store.md section 4).
 * Never lowers it. Returns the mark before and after, or undefined when it was high
 * enough already (nothing written). The list folder must exist.
 */
export async function raiseHighWaterMark(listDir: string, id: string): Promise<{ old: string; new: string } | undefined> {
  if (readHighWaterMark(listDir) >= BigInt(id)) return undefined;
  return withListLock(listDir, () => {
    const mark = readHighWaterMark(listDir);
    if (mark >= BigInt(id)) return undefined;
    writeFileAtomic(path.join(listDir, HIGH_WATER_MARK), id);
    return { old: String(mark), new: id };
  });
}
