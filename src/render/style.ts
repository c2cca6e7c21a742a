import type { ChalkInstance } from 'chalk';

/** Colours decided once per process (decideColor, below); renderers only apply them. */
export interface Style {
  readonly color: boolean;
  bold(s: string): string;
  dim(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  red(s: string): string;
  cyan(s: string): string;
  magenta(s: string): string;
}

const same = (s: string) => s;

/** No colour: no chalk either (it costs start-up time, and a pipe or --json needs none). */
export const PLAIN: Style = { color: false, bold: same, dim: same, green: same, yellow: same, red: same, cyan: same, magenta: same };

let colourChalk: ChalkInstance | undefined;

/**
 * Load chalk, once, before the first coloured Style is made; the CLI calls this at
 * start-up only when some output may be coloured.
 */
export async function loadColour(): Promise<void> {
  if (colourChalk) return;
  const { Chalk } = await import('chalk');
  colourChalk = new Chalk({ level: 1 });
}

export function makeStyle(color: boolean): Style {
  if (!color) return PLAIN;
  const chalk = colourChalk;
  if (!chalk) throw new Error('makeStyle(true) before loadColour()');
  return {
    color,
    bold: (s) => chalk.bold(s),
    dim: (s) => chalk.dim(s),
    green: (s) => chalk.green(s),
    yellow: (s) => chalk.yellow(s),
    red: (s) => chalk.red(s),
    cyan: (s) => chalk.cyan(s),
    magenta: (s) => chalk.magenta(s),
  };
}

/**
 * Colour: only ever on a terminal (a pipe or a file is read by a program or a log, and
 * CI systems set FORCE_COLOR for their own log viewers). On a terminal: `--no-color`
 * wins, then NO_COLOR (any non-empty value), then FORCE_COLOR, then a TERM that is not
 * "dumb". chalk alone ignores NO_COLOR, hence this.
 */
export function decideColor(opts: { flag: boolean | undefined; env: NodeJS.ProcessEnv; isTTY: boolean }): boolean {
  if (opts.flag === false || !opts.isTTY) return false;
  if (opts.env.NO_COLOR !== undefined && opts.env.NO_COLOR !== '') return false;
  const force = opts.env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  return opts.env.TERM !== 'dumb';
}
