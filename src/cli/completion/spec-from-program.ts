import type { Argument, Command, Option } from 'commander';
import { buildProgram } from '../commands/program.js';
import { Context, processCwd } from '../runtime/context.js';
import { standardInput } from '../runtime/fd-output.js';
import { IO } from '../runtime/io.js';
import { type ArgumentSpec, type CommandSpec, type CompletionSpec, type OptionSpec, SPEC_VERSION } from './spec.js';
import { argumentValueKind, optionValueKind } from './value-kinds.js';

/**
 * The completion spec, read from the commander program: what `--help` shows is what
 * completion offers (hidden commands and options stay hidden), so a new command or
 * option needs nothing here. Value kinds come from value-kinds.ts.
 */
export function specFromProgram(program: Command): CompletionSpec {
  return { version: SPEC_VERSION, program: commandSpec(program, []) };
}

/** The spec of this program, as built for a run (no command runs). */
export async function currentSpec(): Promise<CompletionSpec> {
  return specFromProgram(await buildProgram(programContext()));
}

function commandSpec(cmd: Command, path: readonly string[]): CommandSpec {
  const help = cmd.createHelp();
  // The implicit `help` command is not in `cmd.commands`; visibleCommands() adds it.
  const commands = cmd.commands.length > 0 ? help.visibleCommands(cmd) : [];
  return {
    name: cmd.name(),
    aliases: cmd.aliases(),
    description: firstLine(cmd.summary() || cmd.description()),
    options: help.visibleOptions(cmd).map((o) => optionSpec(o, path)),
    arguments: cmd.registeredArguments.map((a) => argumentSpec(a, path)),
    commands: commands.map((c) => commandSpec(c, [...path, c.name()])),
  };
}

function optionSpec(option: Option, path: readonly string[]): OptionSpec {
  const spec: OptionSpec = { description: firstLine(option.description), attribute: option.attributeName() };
  if (option.long !== undefined) spec.long = option.long;
  if (option.short !== undefined) spec.short = option.short;
  if (option.required || option.optional) {
    spec.value = option.required ? 'required' : 'optional';
    spec.kind = optionValueKind(path, option.long, option.flags);
    if (option.argChoices !== undefined) spec.choices = [...option.argChoices];
  }
  if (option.variadic) spec.variadic = true;
  // A custom parser (a collector such as `collect`) is how commander options repeat;
  // `.choices()` installs a parser of its own, which does not collect.
  const collects = spec.value !== undefined && option.parseArg !== undefined && option.argChoices === undefined;
  if (option.variadic || collects) spec.repeatable = true;
  return spec;
}

function argumentSpec(argument: Argument, path: readonly string[]): ArgumentSpec {
  const spec: ArgumentSpec = {
    name: argument.name(),
    required: argument.required,
    variadic: argument.variadic,
    kind: argumentValueKind(path, argument.name()),
  };
  if (argument.argChoices !== undefined) spec.choices = [...argument.argChoices];
  return spec;
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').trim();
}

/** A context to build the program in: only its commands, options and help are read. */
function programContext(): Context {
  const io = new IO({ stdout: process.stdout, stderr: process.stderr, stdin: standardInput() }, process.env);
  return new Context(io, { env: process.env, cwd: processCwd() });
}
