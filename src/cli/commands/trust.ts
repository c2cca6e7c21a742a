import path from 'node:path';
import type { Command } from 'commander';
import { isDirectory } from '../../core/base/is-directory.js';
import { recordFolderTrust } from '../../core/hooks/trust-record.js';
import { renderJson } from '../../render/json.js';
import { type Context, usage } from '../runtime/context.js';

export function registerTrust(program: Command, ctx: Context): void {
  program
    .command('trust')
    .description("trust a folder's project hooks, as accepting Claude Code's trust dialog there does (for CI checkouts)")
    .argument('[folder]', 'the folder (default: the current one); its git repository root is what is recorded')
    .addHelpText(
      'after',
      `
Project and local hooks (.claude/settings.json, .claude/settings.local.json) run only in a
folder Claude Code records as trusted. In a fresh CI checkout nobody can accept the trust
dialog: run tasks trust once in the job, and tasks (and an interactive Claude Code) then
run that project's hooks. It writes projects["<repository root>"].hasTrustDialogAccepted:
true into Claude Code's global config ($CLAUDE_CONFIG_DIR/.claude.json or --config-dir's,
else ~/.claude.json), keeping everything else in it. A folder already trusted is left
alone.

Examples:
  tasks trust                                  the checkout the job runs in
  tasks trust "$GITHUB_WORKSPACE" && tasks done 4 --require-hooks`,
    )
    .action((folder: string | undefined) => {
      const base = ctx.cwd;
      if (folder === undefined && base === undefined) throw usage('the current folder no longer exists; name the folder to trust');
      const target = folder === undefined ? (base as string) : base === undefined ? folder : path.resolve(base, folder);
      // A typo must not trust, ahead of time, whatever is put there later.
      if (!isDirectory(target)) throw usage(`${target} is not a folder: nothing trusted`);
      const recorded = recordFolderTrust(target, ctx.hookPolicy);
      if (ctx.io.json) {
        ctx.io.out(renderJson(recorded));
        return;
      }
      ctx.io.note(
        recorded.already
          ? `${recorded.folder} is trusted already (${recorded.configFile}); nothing written`
          : `trusted ${recorded.folder}: its project hooks now run (recorded in ${recorded.configFile})`,
        'trusted',
      );
    });
}
