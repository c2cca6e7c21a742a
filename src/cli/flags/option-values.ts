import type { Command } from 'commander';
import { optionAsValue } from '../runtime/option-as-value.js';

/**
 * An option that takes a value, given another option of its command as it (`--owner $WHO
 * --no-notify` with WHO empty and unquoted): commander takes the next word whatever it is,
 * so the flag would be written as the owner, the subject or the agent, and the flag itself
 * lost. Refused (exit 2) before the command runs. Only a word that is exactly one of the
 * command's own options is refused: a value that merely starts with a dash (`--subject
 * "--verbose breaks the build"`, `-d -1`) is a value, and so is a help or version word
 * (`--subject -V`: help-word-values.test.ts); the program's options (`--json`, `-l`) are
 * read by the program before the command sees the line, and are left to it.
 */
export function refuseOptionsAsValues(program: Command): void {
  for (const command of program.commands) refuseIn(command);
}

function refuseIn(command: Command): void {
  const flags = new Set(command.options.flatMap((o) => [o.long, o.short].filter((f) => f !== undefined)));
  for (const option of command.options) {
    if (!(option.required || option.optional)) continue;
    command.on(`option:${option.name()}`, (raw: unknown) => {
      if (typeof raw === 'string' && flags.has(raw)) throw optionAsValue(option.long ?? option.flags, raw);
    });
  }
  for (const sub of command.commands) refuseIn(sub);
}
