/**
 * The shell side of completion: a script each for bash, zsh and fish that asks
 * `tasks __complete` for candidates on every TAB, so the scripts never change when
 * commands, options or lists do. Printed by `tasks completion <shell>`.
 */
import { bashScript } from './bash.js';
import { fishScript } from './fish.js';
import { zshScript } from './zsh.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** The completion script for a shell; completions/ holds the same text (`npm run completions`). */
export function completionScript(shell: Shell, prog: string): string {
  switch (shell) {
    case 'bash':
      return bashScript(prog);
    case 'zsh':
      return zshScript(prog);
    case 'fish':
      return fishScript(prog);
  }
}

/** The file each script goes to in completions/, named as each shell looks for it. */
export function completionFileName(shell: Shell, prog: string): string {
  switch (shell) {
    case 'bash':
      return `${prog}.bash`;
    case 'zsh':
      return `_${prog}`;
    case 'fish':
      return `${prog}.fish`;
  }
}
