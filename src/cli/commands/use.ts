import type { Command } from 'commander';
import { bindHere } from '../../core/binding/bind-here.js';
import { bindingTarget } from '../../core/binding/binding-target.js';
import { readBinding } from '../../core/binding/project-binding.js';
import { requireConfigDir } from '../../core/lists/list-choice.js';
import { listToBind } from '../../core/lists/missing-list.js';
import { liveSessionLists, sessionsMoved } from '../../core/sessions/live-lists.js';
import { recordMoves } from '../../core/sessions/session-moves.js';
import { renderBindingShown, renderBound, renderSessionsMoved, renderUnbound } from '../../render/binding-lines.js';
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
Code's settings for you alone, not committed), where Claude Code reads it: in a git
repository, at the main working tree, for sessions started anywhere in it (its linked
worktrees too); in a linked worktree, the worktree's own file, for sessions started at
that very folder; elsewhere, the folder's own file, for sessions started in it. The rest
of the file is kept as it is; the write is atomic; a file that is not valid JSON is left
alone (exit 2). Claude Code reads a changed settings file while it runs: a session
running there moves to the new list at its next task call (its tasks so far stay where
they are), and tasks use names each one it moves. Printed on stdout: the list id.

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
      if (raw === undefined && !opts.clear) {
        const { binding, problems } = readBinding(cwd, places);
        for (const p of problems) ctx.io.warn(`${p}; Claude Code skips it too`, 'settings_skipped');
        if (ctx.io.json) {
          ctx.io.out(
            renderJson({
              list: binding?.listId ?? null,
              value: binding?.value ?? null,
              file: binding?.file ?? null,
              scope: binding?.scope ?? null,
              target: bindingTarget(cwd, places).file,
            }),
          );
          return;
        }
        if (binding?.listId !== undefined) ctx.io.out(binding.listId);
        ctx.io.note(renderBindingShown(binding, bindingTarget(cwd, places), show), 'binding');
        return;
      }
      const wanted = raw === undefined ? undefined : listToBind(ctx.configDir, raw, ctx.sessions);
      const running = liveSessionLists(ctx.sessions);
      const outcome = bindHere(cwd, places, wanted?.id);
      const moved = outcome.write.changed ? sessionsMoved(ctx.sessions, running) : [];
      // Recorded, so that each list's history takes a moved session's changes from its side of the move.
      recordMoves(
        ctx.configDir,
        moved.map((m) => ({ session: m.session.sessionId, from: m.from, to: m.to, at: Date.now() })),
      );
      if (ctx.io.json) {
        ctx.io.out(
          renderJson({
            list: wanted?.id ?? null,
            file: outcome.target.file,
            reach: outcome.target.reach,
            dir: outcome.target.dir,
            worktrees: outcome.target.worktrees,
            changed: outcome.write.changed,
            created: outcome.write.created,
            previous: outcome.write.previous === undefined ? null : String(outcome.write.previous),
            bound: outcome.after.binding?.listId ?? null,
            moved: moved.map((m) => ({ sessionId: m.session.sessionId, cwd: m.session.cwd ?? null, from: m.from, to: m.to })),
          }),
        );
        return;
      }
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
