/**
 * Pure decisions of the list watcher: which file-system events are worth a rescan, and
 * when that rescan runs. fs.watch events are hints only: they can be dropped (the
 * inotify queue overflows silently) or merged, so a hint never says *what* changed;
 * a rescan and a diff do.
 */

/** A task file: `*.json`, not a dot-file (our temp files are `.<id>.json.<...>.tmp`). */
const TASK_FILE_HINT = /^[^.].*\.json$/;

/**
 * Is an event on this name in the list folder worth a rescan? Task files, and events
 * without a name (the platform did not say). Lock directories (`<id>.json.lock`,
 * `.lock.lock`, touched every 5 s by their holder's heartbeat), the `.lock` target,
 * `.highwatermark` and temp files are not changes to any task.
 */
export function isTaskHint(name: string | null | undefined): boolean {
  return name === null || name === undefined || name === '' || TASK_FILE_HINT.test(name);
}

/**
 * When the debounced rescan is due: `debounceMs` after the latest hint, so a burst of
 * writes costs one rescan, but never later than `maxDelayMs` after the burst's first
 * hint, so a steady stream of writes cannot starve the view.
 */
export function rescanDueAt(firstHintAt: number, now: number, debounceMs: number, maxDelayMs: number): number {
  return Math.max(now, Math.min(now + debounceMs, firstHintAt + maxDelayMs));
}
