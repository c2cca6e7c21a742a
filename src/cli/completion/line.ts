import { pushAll } from '../../core/base/many-items.js';
import type { ArgumentSpec, CommandSpec, OptionSpec } from './spec.js';
import { IDS_FROM_OPTION, type ValueKind } from './value-kinds.js';

/**
 * Reading a command line as commander will parse it, to find what the word under the
 * cursor is: a subcommand, an option, or the value of an option or argument. Pure.
 *
 * Commander's rules followed here: options of a command and of its ancestors are
 * accepted anywhere after it; `--flag=value`, `--flag value`, `-lvalue`, `-l value`;
 * a variadic option (`--blocked-by <ids...>`) takes every word up to the next option;
 * `--` ends options.
 */

/** Where a value goes: an option (by its attribute) or an argument (by its position). */
export interface ValueSlot {
  kind: ValueKind;
  choices?: string[];
  /** The values given to this slot earlier on the line (a repeated option, a variadic argument). */
  given: string[];
}

export type Target =
  | { type: 'command'; command: CommandSpec }
  | { type: 'option'; options: OptionSpec[]; longOnly: boolean }
  /** `prefix` is text of the word that stays as typed, such as `--list=`. */
  | { type: 'value'; slot: ValueSlot; prefix: string; parent: CommandSpec }
  | { type: 'nothing' };

export interface LineReading {
  target: Target;
  /** The part of the current word that candidates must start with (it includes `prefix`). */
  current: string;
  /** `--list` and `--config-dir` as given on the line, for the values to come from the right place. */
  list?: string;
  session?: string;
  configDir?: string;
  /** Every value given to a task-id slot: no use offering them again. */
  taskIds: string[];
}

interface Walk {
  chain: CommandSpec[];
  positional: number;
  pending?: OptionSpec;
  openVariadic?: OptionSpec;
  endOfOptions: boolean;
  used: Set<string>;
  given: Map<string, string[]>;
  taskIds: string[];
  list?: string;
  session?: string;
  configDir?: string;
  /** The list the ids come from was named by a command's option (IDS_FROM_OPTION). */
  idsFrom?: boolean;
}

export function readLine(root: CommandSpec, words: readonly string[], current: string): LineReading {
  const walk: Walk = { chain: [root], positional: 0, endOfOptions: false, used: new Set(), given: new Map(), taskIds: [] };
  for (const word of words) step(walk, word);
  const reading = (target: Target, text = current): LineReading => {
    const out: LineReading = { target, current: text, taskIds: walk.taskIds };
    if (walk.list !== undefined) out.list = walk.list;
    if (walk.session !== undefined) out.session = walk.session;
    if (walk.configDir !== undefined) out.configDir = walk.configDir;
    return out;
  };
  const command = innermost(walk);
  const parent = walk.chain[walk.chain.length - 2] ?? command;

  const pending = walk.pending;
  if (pending !== undefined && !(pending.value === 'optional' && current.startsWith('-'))) {
    return reading({ type: 'value', slot: optionSlot(walk, pending), prefix: '', parent });
  }
  if (!walk.endOfOptions && current.startsWith('--') && current.includes('=')) {
    const name = current.slice(0, current.indexOf('='));
    const option = findOption(walk, name);
    if (option === undefined || option.value === undefined) return reading({ type: 'nothing' });
    return reading({ type: 'value', slot: optionSlot(walk, option), prefix: `${name}=`, parent });
  }
  if (!walk.endOfOptions && current.startsWith('-')) {
    return reading({ type: 'option', options: remainingOptions(walk), longOnly: current.startsWith('--') });
  }
  if (walk.openVariadic !== undefined) {
    return reading({ type: 'value', slot: optionSlot(walk, walk.openVariadic), prefix: '', parent });
  }
  if (command.commands.length > 0 && walk.positional === 0) return reading({ type: 'command', command });
  const argument = argumentAt(command, walk.positional);
  if (argument !== undefined) {
    return reading({ type: 'value', slot: argumentSlot(walk, argument), prefix: '', parent });
  }
  // Every argument is given: what is left to type is options.
  if (current === '' && !walk.endOfOptions) return reading({ type: 'option', options: remainingOptions(walk), longOnly: true });
  return reading({ type: 'nothing' });
}

function step(walk: Walk, word: string): void {
  const pending = walk.pending;
  if (pending !== undefined) {
    walk.pending = undefined;
    if (!(pending.value === 'optional' && word.startsWith('-'))) {
      giveOption(walk, pending, word);
      if (pending.variadic) walk.openVariadic = pending;
      return;
    }
  }
  if (!walk.endOfOptions && word === '--') {
    walk.endOfOptions = true;
    walk.openVariadic = undefined;
    return;
  }
  if (!walk.endOfOptions && word.startsWith('-') && word !== '-') {
    walk.openVariadic = undefined;
    if (word.startsWith('--')) longOption(walk, word);
    else shortOptions(walk, word);
    return;
  }
  if (walk.openVariadic !== undefined) {
    giveOption(walk, walk.openVariadic, word);
    return;
  }
  const command = innermost(walk);
  if (command.commands.length > 0 && walk.positional === 0) {
    const sub = command.commands.find((c) => c.name === word || c.aliases.includes(word));
    if (sub !== undefined) {
      walk.chain.push(sub);
      return;
    }
  }
  const argument = argumentAt(command, walk.positional);
  if (argument !== undefined) giveValue(walk, `arg:${walk.chain.length}:${argument.name}`, argument.kind, word);
  walk.positional++;
}

function longOption(walk: Walk, word: string): void {
  const eq = word.indexOf('=');
  const option = findOption(walk, eq === -1 ? word : word.slice(0, eq));
  if (option === undefined) return; // unknown: commander will say so; take it as a switch
  walk.used.add(option.attribute);
  if (eq !== -1) giveOption(walk, option, word.slice(eq + 1));
  else if (option.value !== undefined) walk.pending = option;
}

/** `-l x`, `-lx`, and switches run together (`-an`). */
function shortOptions(walk: Walk, word: string): void {
  for (let i = 1; i < word.length; i++) {
    const option = findOption(walk, `-${word[i]}`);
    if (option === undefined) return;
    walk.used.add(option.attribute);
    if (option.value !== undefined) {
      const rest = word.slice(i + 1);
      if (rest !== '') giveOption(walk, option, rest);
      else walk.pending = option;
      return;
    }
  }
}

function giveOption(walk: Walk, option: OptionSpec, value: string): void {
  // The root's --list, --session and --config-dir decide where values come from.
  if (walk.chain[0]?.options.includes(option)) {
    if (option.attribute === 'list') walk.list = value;
    if (option.attribute === 'session') walk.session = value;
    if (option.attribute === 'configDir') walk.configDir = value;
  }
  // A command whose ids are of the list an option names (carry --from): the first one given.
  const path = walk.chain
    .slice(1)
    .map((c) => c.name)
    .join(' ');
  if (option.long !== undefined && IDS_FROM_OPTION[path] === option.long && !walk.idsFrom) {
    walk.idsFrom = true;
    walk.list = value;
    delete walk.session;
  }
  giveValue(walk, `opt:${option.attribute}`, option.kind, value);
}

function giveValue(walk: Walk, key: string, kind: ValueKind | undefined, value: string): void {
  // Lists and ids may be comma-separated (`--status a,b`, `delete 3,4`); ids may be written `#4`.
  const values = value
    .split(',')
    .map((v) => (kind === 'task-id' ? v.trim().replace(/^#/, '') : v.trim()))
    .filter((v) => v !== '');
  walk.given.set(key, [...(walk.given.get(key) ?? []), ...values]);
  if (kind === 'task-id') pushAll(walk.taskIds, values);
}

function optionSlot(walk: Walk, option: OptionSpec): ValueSlot {
  return slot(option.kind ?? 'text', option.choices, walk.given.get(`opt:${option.attribute}`));
}

function argumentSlot(walk: Walk, argument: ArgumentSpec): ValueSlot {
  return slot(argument.kind, argument.choices, walk.given.get(`arg:${walk.chain.length}:${argument.name}`));
}

function slot(kind: ValueKind, choices: string[] | undefined, given: string[] | undefined): ValueSlot {
  const out: ValueSlot = { kind, given: given ?? [] };
  if (choices !== undefined) out.choices = choices;
  return out;
}

function innermost(walk: Walk): CommandSpec {
  return walk.chain[walk.chain.length - 1] as CommandSpec;
}

/** The argument a positional word fills: the next one, or the last when it is variadic. */
function argumentAt(command: CommandSpec, index: number): ArgumentSpec | undefined {
  const last = command.arguments[command.arguments.length - 1];
  return command.arguments[index] ?? (last?.variadic ? last : undefined);
}

/** The options in force: the current command's, then its ancestors' (innermost first). */
function optionsInForce(walk: Walk): OptionSpec[] {
  const out: OptionSpec[] = [];
  const seen = new Set<string>();
  for (let depth = walk.chain.length - 1; depth >= 0; depth--) {
    const command = walk.chain[depth] as CommandSpec;
    for (const option of command.options) {
      // An ancestor's --help and --version are about the ancestor: not offered below it.
      if (depth < walk.chain.length - 1 && (option.attribute === 'help' || option.attribute === 'version')) continue;
      const key = option.long ?? option.short ?? option.attribute;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(option);
    }
  }
  return out;
}

function findOption(walk: Walk, flag: string): OptionSpec | undefined {
  for (let depth = walk.chain.length - 1; depth >= 0; depth--) {
    const found = (walk.chain[depth] as CommandSpec).options.find((o) => o.long === flag || o.short === flag);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Options not given yet; one given already is offered again only when it repeats. */
function remainingOptions(walk: Walk): OptionSpec[] {
  return optionsInForce(walk).filter((o) => o.repeatable || !walk.used.has(o.attribute));
}
