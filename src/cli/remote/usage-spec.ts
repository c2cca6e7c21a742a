/**
 * What a command line with a host (`-H`) can be checked against here, before ssh is
 * started (usage-check.ts): the program's commands, their options and arguments, as
 * commander reads them. Made from the program at build time (scripts/build-cli.mjs puts it
 * in the bundles, as TASKS_USAGE_SPEC); a build by plain tsc makes it from the program
 * when asked. Written short (it is read by every run with a host): an option as its flags
 * as commander writes them in its messages (`-d, --description <text>`), then after a tab
 * what else matters of it (OPTION_MARKS), then after another its choices.
 */
import type { Command, Option } from 'commander';
import { buildProgram } from '../commands/program.js';
import { Context, processCwd } from '../runtime/context.js';
import { standardInput } from '../runtime/fd-output.js';
import { IO } from '../runtime/io.js';

/**
 * An option's marks: `c` its values are collected (`--by 2 --by 3`; its parser never
 * refuses one), `p` a parser of its own that may refuse a value, `m` required
 * (`.requiredOption()`), `h` hidden (never suggested).
 */
export type OptionMarks = 'c' | 'p' | 'm' | 'h';

export interface UsageSpec {
  /** The program's options. */
  o: string[];
  /** Each command: its names (name first, then aliases), its options, its arguments (`<id>`, `[ids...]`, `*` after one with a parser), and `open` for one not checked here. */
  c: Array<{ n: string[]; o: string[]; a: string[]; open?: 1 }>;
  /** The commands commander suggests from after an unknown one (visible names, each one's first alias, and help). */
  s: string[];
}

/** The spec of this program, as built for a run (no command runs). */
export async function currentUsageSpec(): Promise<UsageSpec> {
  const io = new IO({ stdout: process.stdout, stderr: process.stderr, stdin: standardInput() }, process.env);
  return usageSpecOf(await buildProgram(new Context(io, { env: process.env, cwd: processCwd() })));
}

function usageSpecOf(program: Command): UsageSpec {
  const help = program.createHelp();
  return {
    o: program.options.map(optionWords),
    c: program.commands.map((cmd) => {
      // Subcommands of its own, or unknown options taken (`run`): not checked here.
      const open = cmd.commands.length > 0 || (cmd as unknown as { _allowUnknownOption: boolean })._allowUnknownOption;
      return {
        n: [cmd.name(), ...cmd.aliases()],
        o: cmd.options.map(optionWords),
        a: cmd.registeredArguments.map((a) => {
          const name = `${a.name()}${a.variadic ? '...' : ''}`;
          return `${a.required ? `<${name}>` : `[${name}]`}${a.parseArg === undefined && a.argChoices === undefined ? '' : '*'}`;
        }),
        ...(open ? { open: 1 as const } : {}),
      };
    }),
    s: help.visibleCommands(program).flatMap((c) => [c.name(), ...(c.alias() === undefined ? [] : [c.alias()])]),
  };
}

function optionWords(o: Option): string {
  let marks = '';
  // flags/parse.ts `collect` only gathers the values (known by its name: this module may not import flags/).
  if (o.argChoices === undefined && o.parseArg !== undefined) marks += o.parseArg.name === 'collect' ? 'c' : 'p';
  if (o.mandatory && o.defaultValue === undefined) marks += 'm';
  if (o.hidden) marks += 'h';
  const choices = o.argChoices === undefined ? '' : `\t${o.argChoices.join(',')}`;
  return marks === '' && choices === '' ? o.flags : `${o.flags}\t${marks}${choices}`;
}
