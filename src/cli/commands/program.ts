import { Command, Option } from 'commander';
import { TasksError } from '../../core/base/errors.js';
import { statusFromWord } from '../../core/store/status-words.js';
import { DURATION_HELP } from '../flags/duration-flags.js';
import { refuseOptionsAsValues } from '../flags/option-values.js';
import type { Context } from '../runtime/context.js';
import { commandIndexIn, commandNameIn, registerCommands } from './index.js';
import { VERSION } from './version.js';

/**
 * The root program, configured once before any subcommand is added: errors come back
 * to main.ts instead of exiting, and global options are defined here only.
 */
export async function buildProgram(ctx: Context, argv?: readonly string[]): Promise<Command> {
  const program = new Command('tasks')
    .description('Manage the task lists that Claude Code agents keep under ~/.claude/tasks/<list>/')
    .version(VERSION, '-V, --version')
    .addOption(
      once(
        '-l, --list <id>',
        'the task list, by its exact name (a session UUID list also by a unique prefix of 4+ hex with a dash, or digits and letters: a number is a name); default: see "Which list" in tasks --help',
      ),
    )
    .addOption(once('--session <id>', 'the list of this Claude Code session (an id or a unique prefix; tasks lists shows them)'))
    .addOption(once('--config-dir <dir>', 'Claude config folder (default: $CLAUDE_CONFIG_DIR, else ~/.claude); it must exist'))
    .addOption(
      once(
        '-H, --host <host>',
        'run the command on another machine over ssh: ssh://[user@]host[:port] or a Host of ~/.ssh/config (default: $TASKS_HOST); it needs only Node.js 20+ there; -H <host> --disconnect closes the connection kept to it',
      ),
    )
    .option('--hosts', 'every host of ~/.config/tasks/hosts, one a line (--hosts=<file>: another file); several hosts are for tasks lists')
    .option('--json', 'print JSON on stdout (errors as JSON on stderr)')
    .addOption(new Option('--no-color', 'disable colour (NO_COLOR and FORCE_COLOR are honoured too)'))
    // Each command's help lists the global options it accepts too (-l, --json, --config-dir).
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    .configureOutput({
      // Through the App: stdout may be written straight to its descriptor (fd-output.ts).
      writeOut: (s) => ctx.io.write(s),
      // With --json stderr holds JSON lines only: commander's help text for a missing command
      // becomes an error object (run.ts).
      writeErr: (s) => {
        if (!ctx.io.json) ctx.io.writeErr(s);
      },
      outputError: () => {
        // main.ts prints usage errors itself, in the same shape as every other error.
      },
    });
  ctx.attach(program);
  await registerCommands(program, ctx, argv);
  refuseRepeats(program);
  refuseOptionsAsValues(program);
  program.addHelpText(
    'after',
    `
Which list (the first rule that applies):
  --list <name> (exact, numbers too; a session UUID list also by a unique prefix that
  holds a dash, or digits and letters), --session <id>,
  $CLAUDE_CODE_TASK_LIST_ID, the project's binding (tasks use <list>), else the list of
  this directory's Claude Code session (the live one, even before its first task; else
  the most recently active; parent directories below ~ count too), else the only list,
  else (reads only) the most recently changed list. Named, a list is used without a
  word; chosen, stderr says which and why. A change never guesses: it names the
  candidates with commands to paste. A dry run is never refused.

Examples:
  tasks list                          where the agents stand
  tasks list --status pending --json  for scripts (jq-friendly)
  tasks get 4                         one task, with what blocks it
  tasks create "Write docs" -d "README and examples"
  tasks update 4 --status in_progress --owner @me
  tasks update 4 --status completed   runs Claude Code's TaskCompleted hooks first
  tasks claim --next --as worker-1 --start
  tasks block 4 --by 2,3
  tasks release --owner worker-2
  tasks delete 3 5
  tasks use refactor                  new Claude Code sessions here, and tasks, use list refactor
  tasks watch --until all-completed   wait until the agents are done
  tasks run --until all-completed -- claude -p "..." --output-format stream-json --verbose

${DURATION_HELP}

Exit codes: 0 ok, 1 failure, 2 usage, 3 not found, 4 conflict, 5 busy (retry), 6 run ended first,
7 stalled, 8 host unreachable or refused (-H), 124 timeout, 130 interrupted; tasks run also
126/127 (cannot run / no such command), 143/129 (SIGTERM/SIGHUP), or the agent's own status.`,
  );
  return program;
}

/**
 * A global option that names where a command acts: given twice (`-l a -l b`), which one
 * was meant cannot be told, and a change must never land in the other: refused (exit 2).
 */
function once(flags: string, description: string): Option {
  const option = new Option(flags, description);
  return option.argParser((value: string, previous: unknown) => {
    // A usage error of its own: commander would wrap an invalid argument's message in its own words.
    if (previous !== undefined && previous !== value)
      throw new TasksError('usage', `${option.long ?? option.flags} given twice (${String(previous)}, then ${value}): give it once`);
    return value;
  });
}

const NO_VALUE = Symbol('no value');
const shown = (raw: unknown) => (raw === null ? 'with no value' : String(raw));

/** What a value means, where two spellings mean one (`--status in-progress`, `--status in_progress`). */
function sameAs(option: Option, raw: unknown): unknown {
  if (option.attributeName() !== 'status' || typeof raw !== 'string') return raw;
  return statusFromWord(raw) ?? raw;
}

/**
 * Any other option that takes one value, given twice with two values (`--owner a --owner b`,
 * `--status completed --status pending`): which one was meant cannot be told either, and
 * commander would keep the last without a word. Refused (exit 2) before the command runs;
 * the same value twice counts as one. Options that may be repeated collect their values
 * with a parser of their own, and are left alone, as are the global ones `once` guards
 * (a parser that only checks its choices does not collect).
 */
function refuseRepeats(command: Command): void {
  for (const option of command.options) {
    if (!(option.required || option.optional) || option.variadic || (option.parseArg !== undefined && option.argChoices === undefined))
      continue;
    let given: { raw: unknown; as: unknown } | undefined;
    command.on(`option:${option.name()}`, (raw: unknown) => {
      if (raw === undefined) return;
      // An optional value left out (`--stalled`) is its default: another value beside it is a second answer.
      const as = raw === null ? NO_VALUE : sameAs(option, raw);
      if (given !== undefined && given.as !== as)
        throw new TasksError('usage', `${option.long ?? option.flags} given twice (${shown(given.raw)}, then ${shown(raw)}): give it once`);
      given = { raw, as };
    });
  }
  // `--owner a --no-owner`: the same question answered both ways.
  for (const negated of command.options.filter((o) => o.negate)) {
    const plain = command.options.find((o) => !o.negate && o.attributeName() === negated.attributeName());
    if (plain === undefined) continue;
    const given = new Set<string>();
    const mark = (flag: string) => {
      given.add(flag);
      if (given.size > 1)
        throw new TasksError('usage', `${plain.long ?? plain.flags} and ${negated.long ?? negated.flags} given together: give one`);
    };
    command.on(`option:${plain.name()}`, () => mark('plain'));
    command.on(`option:${negated.name()}`, () => mark('negated'));
  }
  for (const sub of command.commands) refuseRepeats(sub);
}

/**
 * `tasks help nosuch`: commander would print the whole help on stderr. Without the `help`,
 * the command line is answered as `tasks nosuch` is: one line, `unknown command 'nosuch'`,
 * with commander's "Did you mean" (exit 2). Any other command line is returned as it is,
 * and so is one that, without its `help`, would name a command (`tasks help -l x create a`
 * asks for the help of create; it must never create anything).
 */
export function withoutHelpOfUnknown(program: Command, argv: readonly string[]): readonly string[] {
  const at = commandIndexIn(argv);
  if (at === undefined || argv[at] !== 'help') return argv;
  const without = [...argv.slice(0, at), ...argv.slice(at + 1)];
  const topic = commandNameIn(without);
  if (topic === undefined || program.commands.some((c) => c.name() === topic || c.aliases().includes(topic))) return argv;
  return without;
}
