import type { TaskPeek } from '../../core/store/list-peek.js';
import { SHORT_STATUS_WORDS } from '../../core/store/status-words.js';
import { STATUSES } from '../../core/store/task-guard.js';
import { oneLine } from '../../render/text.js';
import { type LineReading, readLine, type ValueSlot } from './line.js';
import type { CommandSpec, CompletionSpec, OptionSpec } from './spec.js';

/**
 * What to offer for the word under the cursor: cobra's protocol, so that the scripts
 * are those GitHub CLI and kubectl users know. Pure: values on disk come through a
 * ValueSource made for the line (its --list and --config-dir).
 */

/** Cobra's directives: a bit set printed as the last line, `:<n>`. */
export const DIRECTIVE = {
  /** Something failed: offer nothing. */
  error: 1,
  /** Do not add a space after the completion. */
  noSpace: 2,
  /** Do not fall back to file names when there is no candidate. */
  noFiles: 4,
  /** The candidates are file extensions to filter file names by. */
  filterFileExt: 8,
  /** Complete directory names only. */
  filterDirs: 16,
  /** Keep the candidates in the order given (ids in id order, statuses in their order). */
  keepOrder: 32,
} as const;

export interface Candidate {
  value: string;
  description?: string;
}

export interface Completion {
  candidates: Candidate[];
  directive: number;
}

export interface ValueSource {
  /** The chosen list's readable tasks in id order; `wanted` filters ids before files are read. */
  tasks(wanted: (id: string) => boolean): TaskPeek[];
  /** The lists under the config folder, with their number of task files. */
  lists(): Array<{ id: string; tasks: number }>;
}

export interface LineSources {
  list?: string;
  session?: string;
  configDir?: string;
}

const STATUS_HELP: Record<(typeof STATUSES)[number], string> = {
  pending: 'not started',
  in_progress: 'being worked on',
  completed: 'done',
};

/** Descriptions fit a line: shells cut them to the width anyway, and some print them whole. */
const MAX_DESCRIPTION = 100;

/**
 * `words` are the words after the program name, up to the one under the cursor;
 * `current` is that one (empty after a space).
 */
export function complete(
  spec: CompletionSpec,
  words: readonly string[],
  current: string,
  sourceFor: (line: LineSources) => ValueSource,
): Completion {
  const reading = readLine(spec.program, words, current);
  const target = reading.target;
  switch (target.type) {
    case 'command':
      return { candidates: commandCandidates(target.command, reading.current), directive: DIRECTIVE.noFiles };
    case 'option':
      return { candidates: optionCandidates(target.options, reading.current, target.longOnly), directive: DIRECTIVE.noFiles };
    case 'value':
      return valueCompletion(target.slot, target.prefix, target.parent, reading, () => sourceFor(sourcesOf(reading)));
    case 'nothing':
      return { candidates: [], directive: DIRECTIVE.noFiles };
  }
}

function sourcesOf(reading: LineReading): LineSources {
  const out: LineSources = {};
  if (reading.list !== undefined) out.list = reading.list;
  if (reading.session !== undefined) out.session = reading.session;
  if (reading.configDir !== undefined) out.configDir = reading.configDir;
  return out;
}

/** Subcommands by name; an alias only when no name fits what is typed (`tasks rm<TAB>`). */
function commandCandidates(command: CommandSpec, current: string): Candidate[] {
  const byName = command.commands.filter((c) => c.name.startsWith(current)).map((c) => candidate(c.name, c.description));
  if (byName.length > 0) return byName;
  return command.commands.flatMap((c) => c.aliases.filter((a) => a.startsWith(current)).map((a) => candidate(a, c.description)));
}

/** `--long` forms; `-s` forms too when a single dash is typed, as cobra does. */
function optionCandidates(options: readonly OptionSpec[], current: string, longOnly: boolean): Candidate[] {
  const out: Candidate[] = [];
  for (const option of options) {
    if (option.long?.startsWith(current)) out.push(candidate(option.long, option.description));
    if (!longOnly && option.short?.startsWith(current)) out.push(candidate(option.short, option.description));
  }
  return out;
}

function valueCompletion(
  slot: ValueSlot,
  prefix: string,
  parent: CommandSpec,
  reading: LineReading,
  source: () => ValueSource,
): Completion {
  // In a comma-separated list (`--status pending,in<TAB>`, `delete 3,4<TAB>`), complete the last item.
  let head = prefix;
  let typed = reading.current.slice(prefix.length);
  const given = new Set(slot.given);
  if ((slot.kind === 'status' || slot.kind === 'task-id') && typed.includes(',')) {
    const cut = typed.lastIndexOf(',') + 1;
    for (const item of typed.slice(0, cut).split(',')) given.add(item.trim().replace(/^#/, ''));
    head += typed.slice(0, cut);
    typed = typed.slice(cut);
  }
  const offer = (values: Candidate[], directive: number): Completion => ({
    candidates: values.filter((c) => c.value.startsWith(typed)).map((c) => ({ ...c, value: head + c.value })),
    directive,
  });

  if (slot.choices !== undefined) {
    return offer(
      slot.choices.map((c) => ({ value: c })),
      DIRECTIVE.noFiles | DIRECTIVE.keepOrder,
    );
  }
  switch (slot.kind) {
    case 'status': {
      const stored = STATUSES.filter((s) => !given.has(s) && s.startsWith(typed));
      // The short forms only when no stored value fits what is typed (`d<TAB>` -> done), as for command aliases.
      const short =
        stored.length > 0
          ? []
          : SHORT_STATUS_WORDS.filter(([w, s]) => !given.has(w) && !given.has(s)).map(([w, s]) => candidate(w, `= ${s}`));
      return offer([...stored.map((s) => candidate(s, STATUS_HELP[s])), ...short], DIRECTIVE.noFiles | DIRECTIVE.keepOrder);
    }
    case 'task-id': {
      // Agents print ids as `#4`, and `#4` is accepted: keep the hash if it was typed.
      const hash = typed.startsWith('#') ? '#' : '';
      const digits = typed.slice(hash.length);
      const taken = new Set([...given, ...reading.taskIds]);
      const tasks = source().tasks((id) => id.startsWith(digits) && !taken.has(id));
      return offer(
        tasks.map((t) => candidate(hash + t.id, `${t.subject} (${t.status})`)),
        DIRECTIVE.noFiles | DIRECTIVE.keepOrder,
      );
    }
    case 'list':
      return offer(
        source()
          .lists()
          .map((l) => candidate(l.id, count(l.tasks, 'task'))),
        DIRECTIVE.noFiles,
      );
    case 'owner':
      return offer(ownerCandidates(source().tasks(() => true)), DIRECTIVE.noFiles);
    case 'file':
      // No candidates and no directive bit: the shell completes file names.
      return { candidates: [], directive: 0 };
    case 'dir':
      return { candidates: [], directive: DIRECTIVE.filterDirs };
    case 'command':
      return offer(commandCandidates(parent, ''), DIRECTIVE.noFiles);
    case 'until':
      return untilCompletion(typed, head, source);
    case 'text':
      return { candidates: [], directive: DIRECTIVE.noFiles };
  }
}

/** Conditions `watch --until` holds to, as in watch-condition.ts; `task:<id>:` is finished with a status. */
const UNTIL_HELP: ReadonlyArray<readonly [string, string]> = [
  ['all-completed', 'every task is completed'],
  ['ready', 'some task is ready to claim'],
  ['empty', 'no tasks, or no list'],
];

/**
 * `--until <TAB>`: the fixed conditions, then `task:<id>:` for each task (no space after
 * it: a status follows); `--until task:4:<TAB>`: that task's three statuses.
 */
function untilCompletion(typed: string, head: string, source: () => ValueSource): Completion {
  const ofTask = /^task:([^:]*):(.*)$/.exec(typed);
  if (ofTask) {
    const stem = `task:${ofTask[1]}:`;
    const candidates = STATUSES.filter((s) => s.startsWith(ofTask[2] ?? '')).map((s) => candidate(head + stem + s, STATUS_HELP[s]));
    return { candidates, directive: DIRECTIVE.noFiles | DIRECTIVE.keepOrder };
  }
  const fixed = UNTIL_HELP.filter(([value]) => value.startsWith(typed)).map(([value, help]) => candidate(head + value, help));
  if (!'task:'.startsWith(typed) && !typed.startsWith('task:'))
    return { candidates: fixed, directive: DIRECTIVE.noFiles | DIRECTIVE.keepOrder };
  const digits = typed.startsWith('task:') ? typed.slice(5) : '';
  const tasks = source().tasks((id) => id.startsWith(digits));
  const perTask = tasks
    .map((t) => candidate(`${head}task:${t.id}:`, `${t.subject} (${t.status})`))
    .filter((c) => c.value.startsWith(head + typed));
  const all = [...fixed, ...perTask];
  // Only task:<id>: forms left: the word goes on (a status follows), so no space after it.
  const directive = DIRECTIVE.noFiles | DIRECTIVE.keepOrder | (fixed.length === 0 ? DIRECTIVE.noSpace : 0);
  return { candidates: all, directive };
}

/** The owners of the list, with how much each holds; the busiest first would reorder as work moves, so by name. */
function ownerCandidates(tasks: readonly TaskPeek[]): Candidate[] {
  const byOwner = new Map<string, { all: number; open: number }>();
  for (const t of tasks) {
    if (t.owner === undefined || t.owner.trim() === '') continue;
    const n = byOwner.get(t.owner) ?? { all: 0, open: 0 };
    n.all++;
    if (t.status !== 'completed') n.open++;
    byOwner.set(t.owner, n);
  }
  return [...byOwner.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([owner, n]) => candidate(owner, `${count(n.all, 'task')}, ${n.open} open`));
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** What oneLine() would change, or a run of spaces: most text has none, and skips the work. */
const UNTIDY = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]|\s\s/;

function tidy(text: string): string {
  return UNTIDY.test(text) ? oneLine(text).replace(/\s+/g, ' ').trim() : text.trim();
}

/** Values and descriptions travel as `value<TAB>description` lines: no control characters in either. */
function candidate(value: string, description?: string): Candidate {
  const out: Candidate = { value: tidy(value) };
  if (description !== undefined && description !== '') {
    const text = tidy(description);
    out.description = text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1)}…` : text;
  }
  return out;
}

/** The protocol's output: one candidate a line, then `:<directive>`. */
export function formatCompletion(result: Completion): string {
  const lines = result.candidates.map((c) => (c.description === undefined ? c.value : `${c.value}\t${c.description}`));
  lines.push(`:${result.directive}`);
  return `${lines.join('\n')}\n`;
}
