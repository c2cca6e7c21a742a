/**
 * The commands: one file each, registering its options, help and action on the root
 * program (program.ts). A command is thin: its flags, one call to core, and render's
 * text for the result. No command imports another; what several share is in flags/,
 * lifecycle/ or runtime/.
 */
import type { Command } from 'commander';
import type { Context } from '../runtime/context.js';

type Register = (program: Command, ctx: Context) => void;

/** Set by the build for dist/tasks-read.cjs, the bundle of the most-run reads: it holds those commands alone. */
declare const TASKS_READ_COMMANDS: boolean | undefined;
const READS_ONLY = typeof TASKS_READ_COMMANDS !== 'undefined' && TASKS_READ_COMMANDS;

/**
 * The commands bin/tasks.js runs from the smaller bundle (scripts/build-cli.mjs): half
 * the code to read and hand to V8 on every start. bin/tasks.js names them too.
 */
export const READ_COMMAND_NAMES: readonly string[] = ['list', 'ls', 'get', 'lists'];

/**
 * Every subcommand, one file each; the order here is the order in `--help`. Each is
 * loaded only when needed: a run of `tasks list` loads the list command and what it
 * uses, not the watcher, the importer or the hooks (start-up is most of what a command
 * costs; `npm run bench` prints the figures). In the read bundle, the others are not
 * there at all.
 */
const COMMANDS: ReadonlyArray<{ names: readonly string[]; load: () => Promise<Register> }> = [
  { names: ['list', 'ls'], load: async () => (await import('./list.js')).registerList },
  { names: ['get'], load: async () => (await import('./get.js')).registerGet },
  ...(READS_ONLY
    ? []
    : [
        { names: ['create'], load: async () => (await import('./create.js')).registerCreate },
        { names: ['update'], load: async () => (await import('./update.js')).registerUpdate },
        { names: ['start'], load: async () => (await import('./start.js')).registerStart },
        { names: ['done'], load: async () => (await import('./done.js')).registerDone },
        { names: ['claim'], load: async () => (await import('./claim.js')).registerClaim },
        { names: ['release'], load: async () => (await import('./release.js')).registerRelease },
        { names: ['block'], load: async () => (await import('./block.js')).registerBlock },
        { names: ['unblock'], load: async () => (await import('./unblock.js')).registerUnblock },
        { names: ['delete', 'rm'], load: async () => (await import('./delete.js')).registerDelete },
        // Not graph.ts: core's graph folder has that name, and no two files in src share one.
        { names: ['graph'], load: async () => (await import('./graph-command.js')).registerGraph },
        { names: ['board'], load: async () => (await import('./board.js')).registerBoard },
        { names: ['board-feed'], load: async () => (await import('./board-feed-command.js')).registerBoardFeed },
      ]),
  { names: ['lists'], load: async () => (await import('./lists.js')).registerLists },
  ...(READS_ONLY
    ? []
    : [
        { names: ['use'], load: async () => (await import('./use.js')).registerUse },
        { names: ['carry'], load: async () => (await import('./carry.js')).registerCarry },
        { names: ['watch'], load: async () => (await import('./watch.js')).registerWatch },
        { names: ['notify'], load: async () => (await import('./notify.js')).registerNotify },
        // Not run.ts: src/cli/run.ts is one run of tasks itself.
        { names: ['run'], load: async () => (await import('./run-agent.js')).registerRun },
        { names: ['import'], load: async () => (await import('./import.js')).registerImport },
        { names: ['export'], load: async () => (await import('./export.js')).registerExport },
        { names: ['restore'], load: async () => (await import('./restore.js')).registerRestore },
        { names: ['check'], load: async () => (await import('./check.js')).registerCheck },
        { names: ['doctor'], load: async () => (await import('./doctor.js')).registerDoctor },
        { names: ['log'], load: async () => (await import('./log.js')).registerLog },
        { names: ['cost'], load: async () => (await import('./cost.js')).registerCost },
        { names: ['undo'], load: async () => (await import('./undo.js')).registerUndo },
        { names: ['redo'], load: async () => (await import('./redo.js')).registerRedo },
        { names: ['trust'], load: async () => (await import('./trust.js')).registerTrust },
        { names: ['completion'], load: async () => (await import('./completion.js')).registerCompletion },
      ]),
];

/** Global options that take a value: the word after them is not the command. */
const GLOBAL_WITH_VALUE = new Set(['-l', '--list', '--session', '--config-dir', '-H', '--host']);

/** The subcommand named on a command line (`node tasks [globals] <command> ...`), if any (bin/tasks.js finds it alike). */
export function commandNameIn(argv: readonly string[]): string | undefined {
  const at = commandIndexIn(argv);
  return at === undefined ? undefined : argv[at];
}

/** Where in `argv` the subcommand is named (see commandNameIn), if anywhere. */
export function commandIndexIn(argv: readonly string[]): number | undefined {
  for (let i = 2; i < argv.length; i++) {
    const word = argv[i] as string;
    if (word === '--') return i + 1 < argv.length ? i + 1 : undefined;
    if (GLOBAL_WITH_VALUE.has(word)) i++;
    else if (!word.startsWith('-')) return i;
  }
  return undefined;
}

/**
 * Register the command `argv` names, or every command when it names none we know
 * (`tasks --help`, `tasks help list`, a typo that commander should answer with its
 * suggestions), or when no argv is given (the completion spec wants them all).
 */
export async function registerCommands(program: Command, ctx: Context, argv?: readonly string[]): Promise<void> {
  const name = argv === undefined ? undefined : commandNameIn(argv);
  // `tasks --version` needs no command (and loading them all is most of its time).
  if (name === undefined && argv !== undefined && argv.some((a) => a === '-V' || a === '--version')) return;
  const one = name === undefined ? undefined : COMMANDS.find((c) => c.names.includes(name));
  const chosen = one ? [one] : COMMANDS;
  const registers = await Promise.all(chosen.map((c) => c.load()));
  for (const register of registers) register(program, ctx);
}
