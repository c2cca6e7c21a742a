/**
 * A command line with a host (`-H`), checked here before ssh is started, as commander will
 * check it there: a usage error this machine can know (a missing id, an unknown option or
 * command, an option without its value, a value outside an option's choices, a required
 * option left out) is refused at once, in the words and with the exit status (2) a run
 * here gives, instead of after ssh has started (slow, and the host must be up). What the
 * host's run would say first is followed step by step as commander takes the line
 * (parseOptions, then the command's checks in their order); where a step's outcome is not
 * known here (an option's own parser, a value given twice, the command's action), the
 * check stops and the host says. Kept free of commander and of the commands: the remote
 * bundle stays small.
 */
import { TasksError } from '../../core/base/errors.js';
import { parseTaskId } from '../../core/store/ids.js';
import { parseStatus } from '../../core/store/status-words.js';
import { optionAsValue } from '../runtime/option-as-value.js';
import { isHostWord, isVersionWord, programTakes, WITH_VALUE } from './host-argv.js';
import type { UsageSpec } from './usage-spec.js';

/**
 * Set by the build (scripts/build-cli.mjs): the program's usage spec, as JSON text. Text,
 * so that esbuild folds the condition below and leaves the spec's maker (the whole
 * program) out of the bundles; and JSON.parse reads it faster than V8 would an object literal.
 */
declare const TASKS_USAGE_SPEC: string | undefined;

/** The spec: built into the bundle, else (a build by plain tsc) made from the program. */
export async function usageSpec(): Promise<UsageSpec> {
  return typeof TASKS_USAGE_SPEC !== 'undefined'
    ? (JSON.parse(TASKS_USAGE_SPEC) as UsageSpec)
    : (await import('./usage-spec.js')).currentUsageSpec();
}

/** An option as commander reads it, from its words in the spec (usage-spec.ts). */
interface UsageOption {
  flags: string;
  long: string | undefined;
  short: string | undefined;
  /** What commander keeps it under, as far as telling two options apart goes (`owner` for --owner and --no-owner). */
  name: string;
  value: 'required' | 'optional' | undefined;
  variadic: boolean;
  collects: boolean;
  parsed: boolean;
  mandatory: boolean;
  hidden: boolean;
  choices: string[] | undefined;
}

interface UsageCommand {
  names: string[];
  options: UsageOption[];
  arguments: Array<{ name: string; required: boolean; variadic: boolean }>;
  open: boolean;
}

/** Each option read once a run (the command line is read twice: joined, then checked). */
const read = new Map<string, UsageOption>();

function optionOf(words: string): UsageOption {
  let option = read.get(words);
  if (option === undefined) read.set(words, (option = readOption(words)));
  return option;
}

function readOption(words: string): UsageOption {
  const [flags = '', marks = '', choices] = words.split('\t');
  const parts = flags.split(/[ |,]+/);
  const short = parts.find((w) => /^-[^-]$/.test(w));
  const long = parts.find((w) => w.startsWith('--'));
  return {
    flags,
    long,
    short,
    name: (long ?? short ?? flags).replace(/^--?(no-)?/, ''),
    value: flags.includes('<') ? 'required' : flags.includes('[') ? 'optional' : undefined,
    variadic: /\.\.\.[>\]]/.test(flags),
    collects: marks.includes('c'),
    parsed: marks.includes('p'),
    mandatory: marks.includes('m'),
    hidden: marks.includes('h'),
    choices: choices?.split(','),
  };
}

function commandOf(c: UsageSpec['c'][number]): UsageCommand {
  return {
    names: c.n,
    options: c.o.map(optionOf),
    arguments: c.a.map((a) => ({
      name: a.replace(/^[<[]|(\.\.\.)?[>\]]\*?$/g, ''),
      required: a.startsWith('<'),
      variadic: a.includes('...'),
    })),
    open: c.open === 1,
  };
}

/** The long options commander suggests from after an unknown one: the visible ones of the command and of the program, with their --help. */
const suggested = (...options: UsageOption[][]): string[] =>
  options.flatMap((list) => [...list.flatMap((o) => (o.hidden || o.long === undefined ? [] : [o.long])), '--help']);

/** The check stops: what the host says here is not known. */
class Unsure {}
/** Commander's error, as its message reads (without its "error: "). */
class Refused {
  constructor(readonly message: string) {}
}

/**
 * The usage error the host's run would give first for `args` (the command line after
 * `tasks`, without its hosts), as that run gives it (commander's words, with run.ts's
 * hint); undefined when there is none, or when it cannot be known here.
 */
export function usageErrorOf(args: readonly string[], spec: UsageSpec): TasksError | undefined {
  try {
    check(joined(args, spec), spec);
    return undefined;
  } catch (err) {
    if (err instanceof Refused) return new TasksError('usage', err.message, { hint: 'add --help for usage' });
    if (err instanceof TasksError && err.code === 'usage') return err;
    if (err instanceof Unsure) return undefined;
    throw err;
  }
}

function check(args: readonly string[], spec: UsageSpec): void {
  const program = spec.o.map(optionOf);
  const root = parseOptions(args, program, true, true);
  const name = root.operands[0];
  if (name === undefined) throw new Unsure();
  const found = spec.c.find((c) => c.n.includes(name));
  // Help asked for (not as an option's value): commander shows it before any check below.
  const help = (words: readonly string[]) => words.some((word) => word === '-h' || word === '--help');
  if (found === undefined && help(root.unknown)) throw new Unsure();
  if (found === undefined) throw new Refused(`unknown command '${name}'${suggestSimilar(name, spec.s)}`);
  const command = commandOf(found);
  if (command.open) throw new Unsure();
  const leaf = parseOptions(root.unknown, command.options, false, false);
  if (help(leaf.unknown)) throw new Unsure();
  const operands = [...root.operands.slice(1), ...leaf.operands];
  for (const option of command.options) {
    if (option.mandatory && !leaf.given.has(option.name)) throw new Refused(`required option '${option.flags}' not specified`);
  }
  const unknown = leaf.unknown[0];
  if (unknown !== undefined)
    throw new Refused(
      `unknown option '${unknown}'${unknown.startsWith('--') ? suggestSimilar(unknown, suggested(command.options, program)) : ''}`,
    );
  command.arguments.forEach((argument, i) => {
    if (argument.required && operands[i] === undefined) throw new Refused(`missing required argument '${argument.name}'`);
  });
  // Too many: run.ts may say why in its own words (flags/id-option-mistake.ts); the host says.
  if (command.arguments.at(-1)?.variadic !== true && operands.length > command.arguments.length) throw new Unsure();
  if (command.names[0] === 'update') updateFirstSteps(operands[0] as string, leaf);
}

/**
 * What update's action checks first, before it reads anything (commands/update.ts): its
 * id, its preconditions (--if-*), `--status deleted`, then its changes, the subject before
 * the status. A step's error is said here only where every step before it is known to pass.
 */
function updateFirstSteps(id: string, leaf: Parsed): void {
  parseTaskId(id);
  const status = leaf.values.get('status');
  if (['if-status', 'if-owner', 'if-unowned', 'subject'].some((name) => leaf.given.has(name)) || typeof status !== 'string') return;
  if (status.trim().toLowerCase() !== 'deleted') parseStatus(status);
}

interface Parsed {
  operands: string[];
  unknown: string[];
  given: Set<string>;
  /** Each option's value (null: an optional value left out; undefined: a switch). */
  values: Map<string, string | null | undefined>;
}

const maybeOption = (arg: string): boolean => arg.length > 1 && arg[0] === '-';
// No option of the program has a digit for its short flag: a negative number is a word.
const negativeNumber = (arg: string): boolean => /^-(\d+|\d*\.\d+)(e[+-]?\d+)?$/.test(arg);

/** Commander's parseOptions (v14), for one command's options: its operands, and the first unknown option with every word after it. */
function parseOptions(args: readonly string[], options: readonly UsageOption[], hasCommands: boolean, isRoot: boolean): Parsed {
  const find = (arg: string) => options.find((o) => o.long === arg || o.short === arg);
  const operands: string[] = [];
  const unknown: string[] = [];
  const given = new Set<string>();
  const values = new Map<string, string | null | undefined>();
  let dest = operands;
  const emit = (option: UsageOption, value: string | null | undefined) => {
    // The version (the program's -V): shown, and nothing checked.
    if (option.variadic || (isRoot && option.long === '--version')) throw new Unsure();
    // Given again: refused or not as program.ts's guards judge it (the same value twice is once).
    if (!option.collects && given.has(option.name)) throw new Unsure();
    given.add(option.name);
    values.set(option.name, value);
    if (typeof value !== 'string') return;
    if (option.choices !== undefined && !option.choices.includes(value))
      throw new Refused(`option '${option.flags}' argument '${value}' is invalid. Allowed choices are ${option.choices.join(', ')}.`);
    // The program's own parsers refuse only a second value (program.ts `once`); a command's may refuse any.
    if (option.parsed && !isRoot) throw new Unsure();
    // A command's own option as the value (`--owner --no-notify`): refused after commander's checks, as flags/option-values.ts does.
    if (!isRoot && find(value) !== undefined) throw optionAsValue(option.long ?? option.flags, value);
  };
  let group: string | undefined;
  let i = 0;
  while (i < args.length || group !== undefined) {
    const arg = group ?? (args[i++] as string);
    group = undefined;
    if (arg === '--') {
      if (dest === unknown) dest.push(arg);
      dest.push(...args.slice(i));
      break;
    }
    if (maybeOption(arg)) {
      const option = find(arg);
      if (option !== undefined) {
        if (option.value === 'required') {
          const value = args[i++];
          if (value === undefined) throw new Refused(`option '${option.flags}' argument missing`);
          emit(option, value);
        } else if (option.value === 'optional') {
          const next = args[i];
          const value = next !== undefined && (!maybeOption(next) || negativeNumber(next)) ? next : null;
          if (value !== null) i++;
          emit(option, value);
        } else emit(option, undefined);
        continue;
      }
    }
    if (arg.length > 2 && arg[0] === '-' && arg[1] !== '-') {
      const option = find(`-${arg[1]}`);
      if (option !== undefined) {
        if (option.value !== undefined) emit(option, arg.slice(2));
        else {
          emit(option, undefined);
          group = `-${arg.slice(2)}`;
        }
        continue;
      }
    }
    if (/^--[^=]+=/.test(arg)) {
      const at = arg.indexOf('=');
      const option = find(arg.slice(0, at));
      if (option?.value !== undefined) {
        emit(option, arg.slice(at + 1));
        continue;
      }
    }
    if (dest === operands && maybeOption(arg) && !(!hasCommands && negativeNumber(arg))) dest = unknown;
    dest.push(arg);
  }
  return { operands, unknown, given, values };
}

/**
 * The command line as run.ts gives it to commander (command-values.ts withValuesJoined): a
 * host or version word after a command's option that takes a value is joined to it.
 */
function joined(args: readonly string[], spec: UsageSpec): readonly string[] {
  let at: number | undefined;
  for (let i = 0; i < args.length && at === undefined; i++) {
    const word = args[i] as string;
    if (word === '--') at = i + 1 < args.length ? i + 1 : undefined;
    else if (WITH_VALUE.has(word)) i++;
    else if (!word.startsWith('-')) at = i;
  }
  const found = at === undefined ? undefined : spec.c.find((c) => c.n.includes(args[at] as string));
  if (at === undefined || found === undefined) return args;
  const command = commandOf(found);
  const program = spec.o.map(optionOf);
  const takes = (options: readonly UsageOption[], word: string) =>
    options.some((o) => o.value === 'required' && (o.long === word || o.short === word));
  const out = args.slice(0, at + 1);
  for (let i = at + 1; i < args.length; i++) {
    const word = args[i] as string;
    const value = args[i + 1];
    if (word === '--' || value === undefined) {
      out.push(...args.slice(i));
      break;
    }
    if (takes(command.options, word) && (isHostWord(value) || isVersionWord(value))) {
      out.push(word.startsWith('--') ? `${word}=${value}` : `${word}${value}`);
      i++;
    } else if (takes(program, word) || (takes(command.options, word) && !programTakes(value))) {
      out.push(word, value);
      i++;
    } else out.push(word);
  }
  return out;
}

/**
 * Commander's suggestion after an unknown command or option (its suggestSimilar): the
 * candidates at the fewest edits (at most 2; a swap of two letters is one), more than 40%
 * alike, sorted; options compared without their `--`.
 */
function suggestSimilar(word: string, candidates: readonly string[]): string {
  const options = word.startsWith('--');
  const bare = options ? word.slice(2) : word;
  let similar: string[] = [];
  let best = 3;
  for (const candidate of new Set(candidates.map((c) => (options ? c.slice(2) : c)))) {
    if (candidate.length <= 1) continue;
    const distance = editDistance(bare, candidate);
    const length = Math.max(bare.length, candidate.length);
    if ((length - distance) / length <= 0.4) continue;
    if (distance < best) {
      best = distance;
      similar = [candidate];
    } else if (distance === best) similar.push(candidate);
  }
  similar.sort((a, b) => a.localeCompare(b));
  const shown = similar.map((c) => (options ? `--${c}` : c));
  if (shown.length > 1) return `\n(Did you mean one of ${shown.join(', ')}?)`;
  return shown.length === 1 ? `\n(Did you mean ${shown[0]}?)` : '';
}

/** Optimal string alignment distance (Damerau-Levenshtein without repeated edits of a substring). */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return Math.max(a.length, b.length);
  const d: number[][] = [];
  for (let i = 0; i <= a.length; i++) d[i] = [i];
  for (let j = 0; j <= b.length; j++) (d[0] as number[])[j] = j;
  for (let j = 1; j <= b.length; j++) {
    for (let i = 1; i <= a.length; i++) {
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}
