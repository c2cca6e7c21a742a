import { missingListFacts } from '../../core/lists/missing-list.js';
import { listDirOf } from '../../core/store/paths.js';
import { renderNotThereYet } from '../../render/new-list.js';
import type { Context } from '../runtime/context.js';

/**
 * What is said of list `named` (-l, CLAUDE_CODE_TASK_LIST_ID) while it is not there, with
 * the near names meant, as watch says it (`list "build-9" does not exist yet (did you mean
 * build-99?)`); nothing of any other list (a session's own, made by its first task).
 * `nearOnly`: nothing either when no name is near (the view's own words for a list not made
 * yet say the rest).
 */
export function missingListWords(ctx: Context, named: string, nearOnly = false): (id: string) => string | undefined {
  let meant: readonly string[] | undefined;
  return (id) => {
    if (id !== named) return undefined;
    if (meant === undefined) {
      const typed = ctx.globals().list;
      const facts = missingListFacts(ctx.configDir, {
        id,
        dir: listDirOf(ctx.configDir, id),
        how: typed === undefined ? 'env' : 'flag',
        typed: typed ?? ctx.env.CLAUDE_CODE_TASK_LIST_ID,
        exists: false,
        warnings: [],
      });
      meant = facts.fullId === undefined ? facts.near : [facts.fullId];
    }
    return nearOnly && meant.length === 0 ? undefined : renderNotThereYet(ctx.shortId(id), meant);
  };
}
