import { type ReleaseResult, releaseOwner, releaseTask } from '../claims/release-apply.js';
import { readList } from '../store/list-read.js';
import { teamForList, unknownOwnerWarning } from '../teams/teams.js';
import { type Preconditions, preconditionGuard } from '../writes/preconditions.js';

/**
 * `release --owner`: every unfinished task of `owner` given back (claims/), as Claude
 * Code does when a teammate exits. With nothing to release, a team member's name is
 * fine; a name nobody in the list or its team has is likely a typo (`unknownOwner`).
 */
export async function releaseOwned(o: {
  configDir: string;
  listId: string;
  dir: string;
  owner: string;
}): Promise<{ released: ReleaseResult[]; unknownOwner?: string | undefined }> {
  const released = await releaseOwner(o.dir, o.owner);
  if (released.length > 0) return { released };
  return { released, unknownOwner: unknownOwnerWarning(o.owner, readList(o.dir).tasks, teamForList(o.configDir, o.listId)) };
}

/** One task given back, if `preconditions` hold inside its lock. */
export function releaseOne(dir: string, id: string, preconditions: Preconditions | undefined): Promise<ReleaseResult> {
  return releaseTask(dir, id, preconditionGuard(preconditions));
}
