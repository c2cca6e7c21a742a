import { Argument, type Command } from 'commander';
import { completionScript, SHELLS, type Shell } from '../completion/scripts/shell-scripts.js';
import type { Context } from '../runtime/context.js';

/**
 * `tasks completion <shell>`: print the completion script. The script asks the hidden
 * `tasks __complete` for candidates on every TAB (src/cli/completion/complete.ts), so
 * new commands, options and the lists on disk need no new script.
 */
export function registerCompletion(program: Command, ctx: Context): void {
  program
    .command('completion')
    .description('print the shell completion script for bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'the shell that loads the script').choices(SHELLS))
    .addHelpText(
      'after',
      `
Completes commands, options, task ids (with subject and status), statuses, lists,
owners and file names, from the list the command would use there (--list,
--config-dir, $CLAUDE_CONFIG_DIR, $CLAUDE_CODE_TASK_LIST_ID, the project's binding).

Install:
  bash  echo 'source <(tasks completion bash)' >> ~/.bashrc
        or: mkdir -p ~/.local/share/bash-completion/completions &&
            tasks completion bash > ~/.local/share/bash-completion/completions/tasks
  zsh   mkdir -p ~/.zfunc && tasks completion zsh > ~/.zfunc/_tasks
        and, in ~/.zshrc before compinit: fpath=(~/.zfunc $fpath)
        or, in ~/.zshrc after compinit: source <(tasks completion zsh)
  fish  mkdir -p ~/.config/fish/completions &&
        tasks completion fish > ~/.config/fish/completions/tasks.fish

The same scripts are in the package's completions/ folder.`,
    )
    .action((shell: Shell) => {
      ctx.io.out(completionScript(shell, program.name()));
    });
}
