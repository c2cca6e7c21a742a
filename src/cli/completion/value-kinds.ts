/**
 * What kind of value an option or an argument takes, for shell completion.
 *
 * Commands, options and descriptions are read from the commander program (see
 * spec-from-program.ts); what commander cannot say is where a value comes from. It is
 * said here, once, by name, so that a new command gets completion without code of its
 * own. How a new command plugs in, in order of preference:
 *
 * 1. Fixed values: declare them on the option or argument itself,
 *    `new Option('--format <format>').choices(['table', 'json'])` or
 *    `new Argument('<shell>').choices([...])`. They are offered as given, in that order.
 * 2. Use a name this table already knows: `<id>`/`<ids...>` take task ids, `<file>` a
 *    path, `<status>` a status, `--blocked-by <ids...>`, `--owner <name>`...
 * 3. Otherwise add an entry below. Keys, most specific first:
 *      'import <file>'     the argument `file` of `tasks import`
 *      'claim --as'        the option `--as` of `tasks claim`
 *      '--as'              the option `--as` of any command
 *      '<file>'            any argument named `file`, and any option whose value is
 *                          written `<file>` (as in `--output <file>`), when its flag
 *                          has no entry of its own
 *    (a command path is its names from the root, without `tasks`: 'lists prune --keep')
 *
 * Anything not found takes free text: nothing is offered, and no file names either.
 */

export const VALUE_KINDS = [
  'task-id', // a task of the chosen list: "subject (status)", in id order
  'status', // pending, in_progress, completed
  'list', // a list folder under <config>/tasks
  'owner', // an owner found in the chosen list
  'file', // a path: the shell completes file names
  'dir', // a folder: the shell completes directory names
  'command', // a subcommand of the parent (for `help <command>`)
  'until', // a watch condition: all-completed, ready, empty, task:<id>:<status>
  'text', // free text: nothing to offer
] as const;

export type ValueKind = (typeof VALUE_KINDS)[number];

export const VALUE_KIND_BY_NAME: Readonly<Record<string, ValueKind>> = {
  // Options, on any command, by their long flag.
  '--list': 'list',
  '--session': 'text',
  '--config-dir': 'dir',
  '--status': 'status',
  '--if-status': 'status',
  '--owner': 'owner',
  '--if-owner': 'owner',
  '--as': 'owner',
  '--agent': 'owner',
  '--blocked-by': 'task-id',
  '--blocks': 'task-id',
  '--add-blocks': 'task-id',
  '--add-blocked-by': 'task-id',
  '--remove-blocks': 'task-id',
  '--remove-blocked-by': 'task-id',
  '--by': 'task-id',
  'watch --until': 'until',
  'carry --from': 'list',
  'restore --from': 'text',
  '--output': 'file',
  '--input': 'file',
  'watch --stream': 'file',

  // Arguments by name, and option values by their placeholder (`<ids...>` is '<ids>').
  '<id>': 'task-id',
  '<ids>': 'task-id',
  '<task>': 'task-id',
  '<tasks>': 'task-id',
  '<task-id>': 'task-id',
  '<task-ids>': 'task-id',
  '<status>': 'status',
  '<statuses>': 'status',
  '<owner>': 'owner',
  '<agent>': 'owner',
  '<list>': 'list',
  '<file>': 'file',
  '<path>': 'file',
  '<dir>': 'dir',
  '<command>': 'command',
};

/**
 * The kind of an option's value: by command and flag, by flag, then by the placeholder
 * its flags give its value (`--by <ids...>` -> '<ids>'); free text when nothing matches.
 */
export function optionValueKind(commandPath: readonly string[], long: string | undefined, flags: string): ValueKind {
  const placeholder = /[<[]([^>\]]+?)(?:\.\.\.)?[>\]]/.exec(flags)?.[1];
  const keys: string[] = [];
  if (long !== undefined) keys.push(scoped(commandPath, long), long);
  if (placeholder !== undefined) keys.push(scoped(commandPath, `<${placeholder}>`), `<${placeholder}>`);
  return lookup(keys);
}

/** The kind of a positional argument: by command and name, then by name alone. */
export function argumentValueKind(commandPath: readonly string[], name: string): ValueKind {
  return lookup([scoped(commandPath, `<${name}>`), `<${name}>`]);
}

function scoped(commandPath: readonly string[], key: string): string {
  return [...commandPath, key].join(' ');
}

function lookup(keys: readonly string[]): ValueKind {
  for (const key of keys) {
    const kind = VALUE_KIND_BY_NAME[key];
    if (kind !== undefined) return kind;
  }
  return 'text';
}

/**
 * Commands whose task ids are those of the list an option of theirs names, not of the
 * list in use: `tasks carry --from <list> <ids...>` takes ids of the --from list.
 */
export const IDS_FROM_OPTION: Readonly<Record<string, string>> = {
  carry: '--from',
};
