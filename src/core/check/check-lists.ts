import path from 'node:path';
import { listIdsOnce } from '../lists/list-folders.js';
import type { GoneHeld } from '../sessions/gone-owners.js';
import { tasksRoot } from '../store/paths.js';
import type { Task } from '../store/schema.js';
import { type CheckReport, checkList } from './check-list.js';

/** What `tasks check` asks for. */
export interface ChecksRequest {
  /** One list (the chosen one), or every list folder under the config folder. */
  lists: { id: string; dir: string } | { all: string };
  /** A pending task with an owner, unchanged for longer than this, is reported; undefined: never. */
  claimStaleMs: number | undefined;
  fix: boolean;
  /** Of these tasks of a list, those `release --gone` gives back: whose agent is gone (their sessions found by their transcripts). */
  goneOwned: (listId: string, tasks: readonly Task[]) => ReadonlyMap<string, GoneHeld>;
  /** Of these tasks of a list, those in progress whose agent is gone (history/list-owners.ts). */
  goneHeld: (listId: string, tasks: readonly Task[]) => ReadonlyMap<string, GoneHeld>;
  clock: () => number;
}

/** One list's check: its report, or (checking every list) why it could not be checked. */
export type ListCheck = { list: string; report: CheckReport; error?: undefined } | { list: string; report?: undefined; error: unknown };

/**
 * Check each list, telling `each` as each is done. Checking every list, one that cannot
 * be checked does not stop the others (its error is told); one list's error is thrown.
 * Returns how many lists there were.
 */
export async function checkLists(req: ChecksRequest, each: (check: ListCheck) => void): Promise<number> {
  const all = 'all' in req.lists;
  const targets =
    'all' in req.lists
      ? // Folder names as they are: one agents cannot address is still worth checking.
        everyFolder(req.lists.all)
      : [req.lists];
  for (const target of targets) {
    let report: CheckReport;
    try {
      const ownerGone = (tasks: readonly Task[]) => req.goneOwned(target.id, tasks);
      const agentGone = (tasks: readonly Task[]) => req.goneHeld(target.id, tasks);
      report = await checkList(target.dir, {
        now: req.clock(),
        clock: req.clock,
        claimStaleMs: req.claimStaleMs,
        ownerGone,
        agentGone,
        fix: req.fix,
      });
    } catch (error) {
      if (!all) throw error;
      each({ list: target.id, error });
      continue;
    }
    each({ list: target.id, report });
  }
  return targets.length;
}

/** Each list folder once: one reached under other names too is checked under the name `tasks lists` shows. */
function everyFolder(configDir: string): Array<{ id: string; dir: string }> {
  return listIdsOnce(configDir).map((id) => ({ id, dir: path.join(tasksRoot(configDir), id) }));
}
