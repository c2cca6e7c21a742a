import { type GoneOwners, listLife, liveSessionsNear } from '../sessions/gone-owners.js';
import type { SessionIndex, SessionInfo } from '../sessions/session-index.js';
import { readList } from '../store/list-read.js';
import { listDirOf } from '../store/paths.js';
import type { Task } from '../store/schema.js';
import { goneOwnersOfList } from './list-owners.js';

/**
 * What `release --gone` would release in a list, and what stands in its way, read once
 * for the command and for the board alike: the unfinished tasks whose owner is gone
 * (list-owners.ts, with a named list's sessions found by their transcripts), and the live
 * sessions that can see the list and may pick that work up, which a real release asks
 * `--force` for. While a sign of life of the list remains, only owners whose own sessions
 * are all over are gone; with none, `alive` says which sign keeps them.
 */
export interface GoneRelease {
  /** Undefined: no owner here can be said to be gone. */
  gone: GoneOwners | undefined;
  /** The unfinished tasks a release would give back, in the list's order. */
  targets: Task[];
  /** Live sessions that may take the work up: a release needs --force while there is one. */
  live: SessionInfo[];
  /** With no owner gone: the sign of life that keeps them (undefined: no session of the list is known). */
  alive: string | undefined;
}

/** Read without a lock; each release is then made under its task lock against the owner seen here. */
export function planGoneRelease(
  index: SessionIndex,
  configDir: string,
  listId: string,
  person: string | undefined,
  exists: boolean,
): GoneRelease {
  const dir = listDirOf(configDir, listId);
  const gone = exists ? goneOwnersOfList(index, dir, listId, person, { deep: true }) : undefined;
  const targets = gone === undefined ? [] : readList(dir).tasks.filter((t) => t.status !== 'completed' && gone.isGone(t.owner));
  if (targets.length === 0 || gone === undefined) {
    const alive = gone === undefined && exists ? listLife(index, listId, { deep: true }).life?.why : undefined;
    return { gone, targets, live: [], alive };
  }
  // Owners judged one by one are gone while others of the list live: those may take the work up, as they should.
  return { gone, targets, live: gone.byOwner ? [] : liveSessionsNear(index, listId), alive: undefined };
}
