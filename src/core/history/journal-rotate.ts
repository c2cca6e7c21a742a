import fs from 'node:fs';
import { journalPath, previousJournalPath, ROTATE_BYTES } from './journal.js';

/**
 * Rotation (journal.ts): once the journal is past ROTATE_BYTES, it is renamed
 * `.tasks-journal.1.jsonl` (replacing the generation before) and the next line starts a
 * new one. Rotation, not compaction: nothing is rewritten, so no line a reader or an
 * appender holds open can be lost or torn, and what undo needs (the last changes and
 * the record of undos and redos) is all in the two generations that are kept.
 *
 * Two processes must never both rotate (the second would rename the first's fresh
 * journal over the generation just kept): rotation holds the lock directory of our own
 * on the journal (`.tasks-journal.jsonl.lock`, the one undo takes through proper-lockfile),
 * taken with one mkdir and never waited for: a busy lock means someone else is at it,
 * and the next writer tries again. Appenders open the journal by name for each line, so
 * a line written just as the journal is renamed lands in the generation before, in order.
 */
export function rotateIfLarge(listDir: string, limit: number = ROTATE_BYTES): boolean {
  const file = journalPath(listDir);
  let size: fs.Stats | undefined;
  try {
    size = fs.lstatSync(file, { throwIfNoEntry: false });
  } catch {
    // The list's folder is gone or replaced (a file in its place, ENOTDIR): nothing to rotate.
    return false;
  }
  if (size === undefined || !size.isFile() || size.size < limit) return false;
  const lock = `${file}.lock`;
  try {
    fs.mkdirSync(lock);
  } catch {
    return false;
  }
  try {
    // Seen again under the lock: someone may have rotated between our look and the mkdir.
    const now = fs.lstatSync(file, { throwIfNoEntry: false });
    if (now === undefined || !now.isFile() || now.size < limit) return false;
    const previous = fs.lstatSync(previousJournalPath(listDir), { throwIfNoEntry: false });
    // A generation before that is not a regular file is left for a person: never replaced.
    if (previous !== undefined && !previous.isFile()) return false;
    fs.renameSync(file, previousJournalPath(listDir));
    return true;
  } catch {
    return false;
  } finally {
    try {
      fs.rmdirSync(lock);
    } catch {
      // already gone
    }
  }
}
