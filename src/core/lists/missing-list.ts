import { TasksError } from '../base/errors.js';
import { LIST_ID_VARIABLE } from '../binding/project-binding.js';
import { sanitizeListId } from '../store/paths.js';
import { sessionListsByPrefix } from './list-choice.js';
import type { ListChoice } from './list-choice-types.js';
import { listIds, MAX_LIST_ID_BYTES } from './list-folders.js';
import { nearNames } from './near-names.js';

/**
 * What to say when the list chosen does not exist, and what a person most likely meant:
 * a list one or two keystrokes away (`build-9` for `build-99`), or the full id of the
 * session UUID list that a short id names. Claude Code reads CLAUDE_CODE_TASK_LIST_ID
 * exactly: a short id there names a new, empty list, so the variable and the binding are
 * named in the message, with the full id to put there.
 */
export interface MissingList {
  /** Existing lists one or two keystrokes from the id. */
  near: string[];
  /** The session UUID list that the id is a unique prefix of (for the variable and the binding). */
  fullId?: string | undefined;
}

export function missingListFacts(configDir: string, choice: ListChoice): MissingList {
  const near = nearNames(choice.id, listIds(configDir));
  const prefixed = choice.how === 'env' || choice.how === 'binding' ? sessionListsByPrefix(configDir, choice.typed ?? choice.id) : [];
  return { near, fullId: prefixed.length === 1 ? prefixed[0] : undefined };
}

/** Not found (exit 3): the list, where its name came from, and what was probably meant. */
export function missingListError(configDir: string, choice: ListChoice): TasksError {
  const { near, fullId } = missingListFacts(configDir, choice);
  const where =
    choice.how === 'env'
      ? ` (named by ${LIST_ID_VARIABLE}="${choice.typed ?? choice.id}")`
      : choice.how === 'binding'
        ? ` (bound by ${choice.binding?.file ?? 'the settings'})`
        : '';
  const meant =
    fullId !== undefined
      ? `; did you mean ${fullId}? Claude Code reads ${choice.how === 'env' ? 'this variable' : LIST_ID_VARIABLE} exactly`
      : near.length > 0
        ? `; did you mean ${near.join(' or ')}?`
        : '';
  return new TasksError('not_found', `list folder ${choice.dir} does not exist${where}${meant}`, {
    hint: fullId !== undefined || near.length > 0 ? undefined : 'tasks lists shows the lists there are',
    details: {
      list: choice.id,
      ...(near.length > 0 ? { suggestions: near } : {}),
      ...(fullId !== undefined ? { fullId } : {}),
      ...(choice.how === 'env' ? { variable: LIST_ID_VARIABLE } : {}),
    },
  });
}

/**
 * The list id that `tasks use <name>` binds: the list of exactly that name; else the
 * session UUID list a unique prefix names, in full (Claude Code reads the variable
 * exactly, so `7baec0ff` must be written out); else the new name itself, with the
 * existing lists it is near (a typo shows at once).
 */
export function listToBind(configDir: string, raw: string): { id: string; exists: boolean; near: string[] } {
  const typed = raw.trim();
  if (typed === '') throw new TasksError('usage', 'the list id is empty');
  const id = sanitizeListId(typed);
  if (id.length > MAX_LIST_ID_BYTES)
    throw new TasksError('usage', `the list id is ${id.length} bytes long; a list folder name can hold at most ${MAX_LIST_ID_BYTES}`);
  const ids = listIds(configDir);
  if (ids.includes(id)) return { id, exists: true, near: [] };
  const prefixed = sessionListsByPrefix(configDir, typed);
  if (prefixed.length === 1) return { id: prefixed[0] as string, exists: true, near: [] };
  if (prefixed.length > 1) {
    throw new TasksError('usage', `list prefix "${typed}" is ambiguous: ${prefixed.join(', ')}`, {
      hint: 'type more of the list id',
      details: { candidates: prefixed },
    });
  }
  return { id, exists: false, near: nearNames(id, ids) };
}
