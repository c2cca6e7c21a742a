import { TasksError } from '../../core/base/errors.js';
import { setOwn } from '../../core/base/own-key.js';
import type { TaskPatch } from '../../core/store/patch.js';
import { parseStatus } from '../../core/store/status-words.js';
import { type Me, parseIdOption, parseMeta, requireOwner, requireText } from './parse.js';

/** The flags that change a task's fields (`tasks update`). */
export interface PatchFlags {
  subject?: string;
  description?: string;
  activeForm?: string;
  status?: string;
  owner?: string | boolean;
  meta?: string[];
  unsetMeta?: string[];
  addBlocks?: string[];
  addBlockedBy?: string[];
}

/** Flags -> a TaskPatch with TaskUpdate's semantics; `--status deleted` is handled by the caller. */
export function patchFrom(opts: PatchFlags, me: Me): TaskPatch {
  const patch: TaskPatch = {};
  if (opts.subject !== undefined) patch.subject = requireText('--subject', opts.subject) as string;
  if (opts.description !== undefined) patch.description = opts.description;
  if (opts.activeForm !== undefined) patch.activeForm = opts.activeForm === '' ? null : opts.activeForm;
  if (opts.status !== undefined) patch.status = parseStatus(opts.status);
  // --owner <name> sets, --no-owner removes (unassign), as TaskUpdate with owner undefined.
  if (opts.owner === false) patch.owner = null;
  else if (typeof opts.owner === 'string') patch.owner = requireOwner('--owner', opts.owner, me) as string;
  const meta = parseMeta(opts.meta) ?? {};
  for (const raw of opts.unsetMeta ?? []) {
    // No key can be set blank (`--meta =v` is refused): none is removed so either.
    if (raw.trim() === '') throw new TasksError('usage', `invalid --unset-meta "${raw}": expected a metadata key`);
    // Trimmed as --meta trims it: `--meta " k=1"` set k, so `--unset-meta " k"` removes k.
    const key = raw.trim();
    // `--meta k=v --unset-meta k`: the same key set and removed; the removal won without a word.
    if (Object.hasOwn(meta, key) && meta[key] !== null)
      throw new TasksError('usage', `--meta ${key} and --unset-meta ${key} given together: give one`);
    setOwn(meta, key, null);
  }
  if (Object.keys(meta).length > 0) patch.metadata = meta;
  const addBlocks = parseIdOption('--add-blocks', opts.addBlocks);
  const addBlockedBy = parseIdOption('--add-blocked-by', opts.addBlockedBy);
  if (addBlocks !== undefined) patch.addBlocks = addBlocks;
  if (addBlockedBy !== undefined) patch.addBlockedBy = addBlockedBy;
  return patch;
}
