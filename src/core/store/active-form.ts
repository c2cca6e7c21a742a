import type { Task } from './schema.js';

/**
 * A task's `activeForm` is its subject in the present continuous ("Fix auth bug" ->
 * "Fixing auth bug"); TodoWrite requires one for every item. When a task has none we
 * derive it, predictably, by one documented rule:
 *
 * 1. a subject whose first word already ends in "ing" is kept as it is;
 * 2. a subject that starts with a common imperative verb (the list below, any case) gets
 *    that verb turned into its -ing form, the rest kept verbatim, the first letter's case kept;
 * 3. anything else becomes "Working on <subject>" (we do not guess at words we do not know:
 *    "Auth bug" must not become "Authing bug").
 */

/** The verbs, as one text: made a set on first use (verbs()), not at every start (a quarter of a millisecond). */
const VERB_TEXT = `add adjust align allow analyse analyze answer apply archive ask assess assign audit automate avoid
  backport backfill benchmark bisect bootstrap bring build bump cache calculate call cancel change check clarify clean
  clear clone close collect combine comment commit compare compile complete compute configure confirm connect
  consolidate continue convert copy correct create cut debug decide decouple define delete deploy deprecate
  design detect determine diagnose disable discuss document download draft drop edit enable enforce ensure
  estimate evaluate examine expand explain explore export expose extend extract fetch file fill finalise finalize
  find finish fix flag follow format gather generate get handle harden help hook identify implement import
  improve include increase index inspect install integrate introduce investigate isolate keep label land launch
  lint list load localise localize locate lock log look make map mark measure merge migrate mock modify monitor
  move normalise normalize note notify open optimise optimize order organise organize outline package pair parse
  patch pick pin plan poll polish port prepare print probe profile propagate prototype provide prune publish pull
  push put query read rebase rebuild recheck record recover reduce refactor refine reformat regenerate register
  reindex release reload remove rename reorder reorganise reorganize repair replace reply report reproduce
  request rerun research reset resolve restart restore restructure resume retry return review revert revise
  rewrite rework roll rotate run sanitise sanitize save scaffold scan schedule scope search secure seed select
  send separate serialise serialize set settle setup share ship show shrink simplify sketch skip slim sort specify split
  squash stabilise stabilize stage start stop store streamline strip study submit summarise summarize support swap
  switch sync tag take test tidy time track translate triage trim try tune turn type unblock uninstall unify
  unpin unzip update upgrade upload use validate verify vet wait walk warn watch wire wrap write`;

let verbSet: ReadonlySet<string> | undefined;
function verbs(): ReadonlySet<string> {
  verbSet ??= new Set(VERB_TEXT.split(/\s+/).filter(Boolean));
  return verbSet;
}

/** Verbs stressed on a last short syllable double their final consonant (and a few one-offs). */
const DOUBLED = new Set([
  'commit',
  'submit',
  'admit',
  'omit',
  'permit',
  'emit',
  'format',
  'rerun',
  'unpin',
  'unzip',
  'control',
  'quit',
  'refer',
  'prefer',
  'defer',
  'occur',
  'begin',
  'forget',
  'upset',
  'equip',
  'regret',
]);

/** Turn an imperative verb (lower case) into its -ing form. Exported for tests. */
export function gerund(verb: string): string {
  const v = verb.toLowerCase();
  if (v === 'be') return 'being';
  if (v.endsWith('ie')) return `${v.slice(0, -2)}ying`; // tie -> tying
  if (/(ee|ye|oe)$/.test(v)) return `${v}ing`; // see -> seeing
  if (v.endsWith('e') && v.length > 2) return `${v.slice(0, -1)}ing`; // write -> writing
  if (v.endsWith('c')) return `${v}${v === 'sync' ? '' : 'k'}ing`; // panic -> panicking, sync -> syncing
  // One vowel between consonants at the end of a one-syllable word: run -> running (not w, x, y).
  if (DOUBLED.has(v) || /^[^aeiou]*[aeiou][^aeiouwxy]$/.test(v)) return `${v}${v.at(-1)}ing`;
  return `${v}ing`;
}

export function deriveActiveForm(subject: string): string {
  const match = /^(\s*)([A-Za-z]+)(.*)$/s.exec(subject);
  if (!match) return `Working on ${subject}`;
  const [, lead = '', word = '', rest = ''] = match;
  const verb = word.toLowerCase();
  if (!verbs().has(verb)) return /ing$/.test(verb) && verb.length > 4 ? subject : `Working on ${subject}`;
  if (verb === 'setup') return `${capitalLike(word, 'setting')} up${rest}`;
  return `${lead}${capitalLike(word, gerund(word))}${rest}`;
}

/** Keep the case of the original's first letter ("Fix" -> "Fixing", "fix" -> "fixing"). */
function capitalLike(original: string, word: string): string {
  const first = original.charAt(0);
  return first === first.toUpperCase() ? word.charAt(0).toUpperCase() + word.slice(1) : word;
}

/** An activeForm that only says the subject again ("Fix auth" / "Fixing auth"): it adds nothing beside the subject. */
export function restatesSubject(task: Pick<Task, 'subject' | 'activeForm'>): boolean {
  const fold = (s: string) => s.trim().toLowerCase();
  return task.activeForm !== undefined && fold(task.activeForm) === fold(deriveActiveForm(task.subject));
}
