/**
 * A plain read: `tasks list` and `tasks get <id>` with a command line simple enough to be
 * read here, word by word, without building commander's program (the root with its
 * global options, the command with its options, the parse: about 3 ms of a start that is
 * most of what a read costs). It runs the very function the command's action runs
 * (runList, runGet), with the options as commander would have handed them over, so its
 * output, errors, warnings, notes and exit status are the command's own. Anything not
 * understood here falls through to the program: help and version, unknown or repeated
 * options, `--opt=value` and `-abc` forms, a value that starts with a dash, `--`, extra
 * words, an option whose value commander checks itself (`--sort` outside its choices),
 * `--stalled` and `--cost`, every other command.
 */
import type { Command } from 'commander';
import type { ListOptions } from '../commands/list.js';
import type { Context, GlobalOptions } from '../runtime/context.js';

export interface PlainRead {
  /** The root program's options, as commander's `opts()` would give them. */
  globals: GlobalOptions;
  /** What the run's journal record asks of the command: its name and options. */
  command: Pick<Command, 'name' | 'opts'>;
  run(ctx: Context): Promise<void>;
}

/** Options of `list` that take no value, by each spelling, and the key commander gives them. */
const LIST_SWITCHES: Readonly<Record<string, keyof ListOptions>> = {
  '-q': 'quiet',
  '--quiet': 'quiet',
  '--unowned': 'unowned',
  '--ready': 'ready',
  '--blocked': 'blocked',
  '-a': 'all',
  '--all': 'all',
};
/** Options of `list` that take one value; `many`: repeatable, each value collected (flags/parse.ts `collect`). */
const LIST_VALUES: Readonly<Record<string, { key: keyof ListOptions; many?: boolean }>> = {
  '-s': { key: 'status', many: true },
  '--status': { key: 'status', many: true },
  '-o': { key: 'owner' },
  '--owner': { key: 'owner' },
  '--search': { key: 'search' },
  '--meta': { key: 'meta', many: true },
  '--sort': { key: 'sort' },
  '--limit': { key: 'limit' },
};
/** `--sort`'s choices (core/lists/task-sort.ts SORT_KEYS): any other value is commander's error to give. */
const SORT_CHOICES = new Set(['id', 'status', 'owner', 'updated']);

/** The plain read `argv` (`node tasks ...`) asks for, or undefined: the program must read it. */
export function plainRead(argv: readonly string[]): PlainRead | undefined {
  // commander's opts() of the root: --no-color makes `color` true unless given.
  const globals: GlobalOptions = { color: true };
  const options: Record<string, unknown> = {};
  const operands: string[] = [];
  let command: 'list' | 'get' | undefined;
  const taken = (word: string | undefined): word is string => word !== undefined && word !== '' && !word.startsWith('-');
  for (let i = 2; i < argv.length; i++) {
    const word = argv[i] as string;
    // Global options, before or after the command (commander reads them anywhere).
    if (word === '-l' || word === '--list') {
      const value = argv[++i];
      if (!taken(value) || globals.list !== undefined) return undefined;
      globals.list = value;
    } else if (word === '--json') globals.json = true;
    else if (word === '--no-color') globals.color = false;
    else if (command === undefined) {
      if (word === 'list' || word === 'ls') command = 'list';
      else if (word === 'get') command = 'get';
      else return undefined;
    } else if (command === 'list' && word in LIST_SWITCHES) {
      const key = LIST_SWITCHES[word] as string;
      if (key in options) return undefined;
      options[key] = true;
    } else if (command === 'list' && word in LIST_VALUES) {
      const { key, many } = LIST_VALUES[word] as { key: string; many?: boolean };
      const value = argv[++i];
      if (!taken(value) || (!many && key in options)) return undefined;
      if (key === 'sort' && !SORT_CHOICES.has(value)) return undefined;
      options[key] = many ? [...((options[key] as string[] | undefined) ?? []), value] : value;
    } else if (command === 'get' && taken(word)) operands.push(word);
    else return undefined;
  }
  if (command === 'list') {
    return {
      globals,
      command: commandLike('list', options),
      run: async (ctx) => (await import('../commands/list.js')).runList(ctx, options),
    };
  }
  if (command === 'get' && operands.length === 1) {
    const id = operands[0] as string;
    return { globals, command: commandLike('get', options), run: async (ctx) => (await import('../commands/get.js')).runGet(ctx, id) };
  }
  return undefined;
}

function commandLike(name: string, options: Record<string, unknown>): Pick<Command, 'name' | 'opts'> {
  return { name: () => name, opts: <T>() => options as T } as Pick<Command, 'name' | 'opts'>;
}
