import type { Command } from 'commander';
import type { SettingsPlaces } from '../../core/binding/settings-files.js';
import { requireConfigDir } from '../../core/lists/list-choice.js';
import { projectBinding, useList } from '../../core/lists/project-list.js';
import {
  type BindingShown,
  bindingShownJson,
  listUseJson,
  renderBindingShown,
  renderBound,
  renderSessionsMoved,
  renderUnbound,
} from '../../render/binding-lines.js';
import { renderJson } from '../../render/json.js';
import { type Context, usage } from '../runtime/context.js';

interface UseOptions {
  clear?: boolean;
}

export function registerUse(program: Command, ctx: Context): void {
  program
    .command('use')
    .description('bind this project to a list: new Claude Code sessions started here use it, and so does tasks')
    .argument('[list]', 'the list to bind (a name, or a unique prefix of a session UUID list); none: show the binding')
    .option('--clear', 'remove the binding: sessions started here use their own lists again')
    .addHelpText(
      'after',
      `
Sets env.CLAUDE_CODE_TASK_LIST_ID in the project's .claude/settings.local.json (Claude
Code's settings for you alone, not meant to be committed: tasks adds no ignore rule, so
add it to .gitignore if git status shows it), where Claude Code reads it: in a git
repository, at the main working tree, for sessions started anywhere in it (its linked
worktrees too); in a linked worktree, the worktree's own file, for sessions started at
that very folder; elsewhere, the folder's own file, for sessions started in it. The rest
of the file is kept as it is; the write is atomic; a file that is not valid JSON is left
alone (exit 2). Claude Code reads a changed settings file while it runs, about a second
after the change: a session running there moves to the new list at its first task call
after that (its tasks so far stay where they are), and tasks use names each one it moves. Printed on stdout: the list id.

Examples:
  tasks use refactor
  tasks use 7baec0ff          a session's list, by the short id tasks lists shows
  tasks use                   which list, and which settings file says so
  tasks use --clear`,
    )
    .action((raw: string | undefined, opts: UseOptions) => {
      requireConfigDir(ctx.configDir);
      const cwd = ctx.cwd;
      if (cwd === undefined) throw usage('the current directory no longer exists: there is no project to bind');
      const places = { configDir: ctx.configDir, ...ctx.settingsPlaces };
      const show = { home: ctx.home, short: (id: string) => ctx.shortId(id) };
      if (opts.clear && raw !== undefined) throw usage('give a list to bind, or --clear, not both');
      // -l (--session) names the list other commands work on; use names it as its argument.
      if (ctx.globals().list !== undefined || ctx.globals().session !== undefined)
        throw usage('use takes the list to bind as its argument (tasks use <list>), not -l or --session');
      if (raw === undefined && !opts.clear) return showBinding(ctx, cwd, places, show);
      const use = useList(cwd, places, raw, ctx.sessions, ctx.now());
      if (use.movesNotRecorded !== undefined) {
        ctx.io.warn(
          `could not record the sessions this moves: ${use.movesNotRecorded}; the history of each list cannot tell their changes apart at the move`,
          'moves_not_recorded',
          { reason: use.movesNotRecorded },
        );
      }
      if (ctx.io.json) {
        ctx.io.out(renderJson(listUseJson(use)));
        return;
      }
      const { wanted, outcome, moved } = use;
      if (wanted === undefined) ctx.io.note(renderUnbound(outcome, show), 'unbound');
      else {
        ctx.io.out(wanted.id);
        ctx.io.note(renderBound(wanted, outcome, show), 'bound');
      }
      if (moved.length > 0)
        ctx.io.note(renderSessionsMoved(moved, show), 'sessions_moved', {
          moved: moved.map((m) => ({ sessionId: m.session.sessionId, from: m.from, to: m.to })),
        });
    });
}

/** `tasks use` with no list: the binding on stdout, and where it comes from on stderr. */
function showBinding(ctx: Context, cwd: string, places: SettingsPlaces, show: BindingShown): void {
  const { binding, problems, target } = projectBinding(cwd, places);
  for (const p of problems) ctx.io.warn(`${p}; Claude Code skips it too`, 'settings_skipped');
  if (ctx.io.json) {
    ctx.io.out(renderJson(bindingShownJson(binding, target)));
    return;
  }
  if (binding?.listId !== undefined) ctx.io.out(binding.listId);
  ctx.io.note(renderBindingShown(binding, target, show), 'binding');
}
