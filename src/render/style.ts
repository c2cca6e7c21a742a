import { Chalk } from 'chalk';

/** Colours decided once per process (render/color-choice.ts); renderers only apply them. */
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

export function makeStyle(color: boolean): Style {
  const chalk = new Chalk({ level: color ? 1 : 0 });
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

export const PLAIN: Style = makeStyle(false);

/**
 * Colour: `--no-color` wins, then NO_COLOR (any non-empty value), then FORCE_COLOR,
 * then a TTY whose TERM is not "dumb". chalk alone ignores NO_COLOR, hence this.
 */
export function decideColor(opts: { flag: boolean | undefined; env: NodeJS.ProcessEnv; isTTY: boolean }): boolean {
  if (opts.flag === false) return false;
  if (opts.env.NO_COLOR !== undefined && opts.env.NO_COLOR !== '') return false;
  const force = opts.env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  return opts.isTTY && opts.env.TERM !== 'dumb';
}
