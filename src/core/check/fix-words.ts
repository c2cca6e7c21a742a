import { HIGH_WATER_MARK } from '../store/paths.js';

/** A finding as these words need it (findings.ts defines the full shape, and uses this file). */
interface Finding {
  code: string;
  fixable: boolean;
  message: string;
  [field: string]: unknown;
}

/**
 * What `check --fix` will do about a finding, in words, and what it did, in the same
 * words in the past tense: `check` announces exactly the repairs `--fix` makes.
 */

/** The name a file moved aside gets is known only when it is moved. */
export const ASIDE_PLACEHOLDER = '<time>';

export function plannedFix(f: Finding): string | undefined {
  if (!f.fixable) return undefined;
  switch (f.code) {
    case 'invalid_json':
    case 'invalid_task':
      return `move ${String(f.file)} aside to ${String(f.id)}.json.corrupt-${ASIDE_PLACEHOLDER} (agents ignore it; id ${String(f.id)} stays used)`;
    case 'id_mismatch':
      return `set the id inside ${String(f.file)} from "${String(f.contentId)}" to "${String(f.id)}"`;
    case 'edge_not_mirrored':
      return f.missingOn === f.blocked
        ? `add #${String(f.blocker)} to #${String(f.blocked)}'s blockedBy`
        : `add #${String(f.blocked)} to #${String(f.blocker)}'s blocks`;
    case 'missing_reference':
      return `drop #${String(f.ref)} from task #${String(f.id)}'s ${String(f.field)}`;
    case 'highwatermark_behind':
      return `raise ${HIGH_WATER_MARK} to ${String(f.usedId)}`;
    case 'highwatermark_invalid':
      return `rewrite ${HIGH_WATER_MARK} with the highest id known to be used`;
    case 'stale_lock':
      return `remove the stale lock ${String(f.file)}`;
    case 'temp_file':
      return `remove ${String(f.file)}`;
    case 'future_lock':
      return `remove ${String(f.file)} once it has stayed unchanged for the stale time (no live holder refreshes it)`;
    default:
      return undefined;
  }
}

const PAST: Readonly<Record<string, string>> = {
  move: 'moved',
  set: 'set',
  add: 'added',
  drop: 'dropped',
  raise: 'raised',
  rewrite: 'rewrote',
  remove: 'removed',
};

/** The plan in the past tense; `detail` fills in what only the repair knew (a file name, a number). */
export function doneFix(f: Finding, detail?: { aside?: string; mark?: number | bigint }): string {
  const plan = plannedFix(f) ?? f.message;
  const [verb = '', ...rest] = plan.split(' ');
  let text = [PAST[verb] ?? verb, ...rest].join(' ');
  if (detail?.aside !== undefined) text = text.replace(`${String(f.id)}.json.corrupt-${ASIDE_PLACEHOLDER}`, detail.aside);
  if (detail?.mark !== undefined && f.code === 'highwatermark_invalid') text += ` (${detail.mark})`;
  return text;
}
