import fs from 'node:fs';
import path from 'node:path';
import { errnoCode } from '../base/errors.js';
import { withListLock } from '../locks/locks.js';
import { fileIds } from '../store/list-read.js';
import { HIGH_WATER_MARK, LIST_LOCK_TARGET } from '../store/paths.js';

/** What a list folder holds besides tasks when only we and the list lock have been in it. */
const OURS = new Set([
  LIST_LOCK_TARGET,
  `${LIST_LOCK_TARGET}.lock`,
  HIGH_WATER_MARK,
  '.tasks-journal.jsonl',
  '.tasks-journal.1.jsonl',
  '.tasks-journal.jsonl.lock',
]);

/**
 * Take back a list folder that a change made, once that change is undone: only when it
 * holds no task file and nothing but the lock, the high-water mark and our journal (an
 * agent's file of any kind keeps it). The check and a rename of the folder out of the
 * way happen under the list lock, so no agent's create can land in it between the two
 * (an agent waiting for the lock then finds no folder and makes a fresh one, as for any
 * new list); the renamed folder is then removed. Returns whether the list was removed.
 */
export async function removeEmptyList(listDir: string): Promise<boolean> {
  const aside = path.join(path.dirname(listDir), `.${path.basename(listDir)}.removed-${process.pid}-${Date.now().toString(36)}`);
  let moved: boolean;
  try {
    moved = await withListLock(listDir, () => {
      if (fileIds(listDir).length > 0) return false;
      if (fs.readdirSync(listDir).some((name) => !OURS.has(name))) return false;
      fs.renameSync(listDir, aside);
      return true;
    });
  } catch (err) {
    // Releasing a lock whose folder was moved away fails once the rename is done: that is ours.
    if (!fs.existsSync(aside)) throw err;
    moved = true;
  }
  if (!moved) return false;
  try {
    fs.rmSync(aside, { recursive: true, force: true });
  } catch (err) {
    // Left behind as a dot-folder no list id can name: harmless, and told by `lists`.
    if (errnoCode(err) !== 'ENOENT') return true;
  }
  return true;
}
