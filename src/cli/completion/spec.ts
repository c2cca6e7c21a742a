import type { ValueKind } from './value-kinds.js';

/**
 * What completion knows of the program without loading it: every visible command,
 * option and argument, with descriptions and value kinds. Made from the commander
 * program at build time (spec-from-program.ts, written to dist/ by
 * scripts/build-completion.mjs) and read as JSON on every TAB.
 */

/** Bump when the shape changes: a spec file of another version is not trusted. */
export const SPEC_VERSION = 1;

export interface OptionSpec {
  /** `--list`; absent for a short-only option. */
  long?: string;
  /** `-l` */
  short?: string;
  description: string;
  /** Commander's attribute name: `--owner` and `--no-owner` share one; once either is given, both are done. */
  attribute: string;
  /** `'required'` for `<value>`, `'optional'` for `[value]`, absent for a switch. */
  value?: 'required' | 'optional';
  /** `<ids...>`: takes every following word up to the next option. */
  variadic?: boolean;
  /** May be given again (a variadic option, or one with its own parser, such as a collector). */
  repeatable?: boolean;
  kind?: ValueKind;
  choices?: string[];
}

export interface ArgumentSpec {
  name: string;
  required: boolean;
  variadic: boolean;
  kind: ValueKind;
  choices?: string[];
}

export interface CommandSpec {
  name: string;
  aliases: string[];
  description: string;
  /** This command's own options; an ancestor's options apply below it too. */
  options: OptionSpec[];
  arguments: ArgumentSpec[];
  commands: CommandSpec[];
}

export interface CompletionSpec {
  version: number;
  program: CommandSpec;
}
