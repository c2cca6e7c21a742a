/**
 * The command line as commander is given it when no host is named: a host or version word
 * that is the value of a command's option joined to it (see withValuesJoined).
 */
import type { Command, Option } from 'commander';
import { commandIndexIn } from '../commands/index.js';
import { isHostWord, isVersionWord, programTakes } from './host-argv.js';

/**
 * A command's option that takes a value gets the word after it, whatever it looks like
 * (`update 4 --subject -x`), but commander reads the program's options first, anywhere on
 * the line: `--subject -Hotfix` lost its value to the program's -H, and was refused for
 * want of one; `--subject -V` printed the version and changed nothing. A host or version
 * word after such an option is joined to it (`--subject=-Hotfix`, `-d-V`), which
 * commander reads as the same option and value: the value is the command's, as
 * host-argv.ts takes it (and as commander itself takes `--subject --help`).
 */
export function withValuesJoined(program: Command, argv: readonly string[]): readonly string[] {
  const at = commandIndexIn(argv);
  const command =
    at === undefined ? undefined : program.commands.find((c) => c.name() === argv[at] || c.aliases().includes(argv[at] as string));
  if (at === undefined || command === undefined) return argv;
  const takes = (options: readonly Option[], word: string) => options.some((o) => o.required && (o.long === word || o.short === word));
  const out = argv.slice(0, at + 1);
  for (let i = at + 1; i < argv.length; i++) {
    const word = argv[i] as string;
    const value = argv[i + 1];
    if (word === '--' || value === undefined) {
      out.push(...argv.slice(i));
      break;
    }
    if (takes(command.options, word) && (isHostWord(value) || isVersionWord(value))) {
      out.push(word.startsWith('--') ? `${word}=${value}` : `${word}${value}`);
      i++;
    } else if (takes(program.options, word) || (takes(command.options, word) && !programTakes(value))) {
      out.push(word, value);
      i++;
    } else out.push(word);
  }
  return out;
}
