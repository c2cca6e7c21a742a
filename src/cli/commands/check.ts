import path from 'node:path';
import type { Command } from 'commander';
import { checkList } from '../../core/check/check-list.js';
import { listIds, requireConfigDir } from '../../core/lists/list-choice.js';
import { tasksRoot } from '../../core/store/paths.js';
import { type CheckView, checkJson, renderCheckReport, renderCheckSummary } from '../../render/check-report.js';
import { renderJson } from '../../render/json.js';
import { PLAIN } from '../../render/style.js';
import { AS_HELP } from '../flags/actor-flags.js';
import { parseDurationOrOff } from '../flags/duration-flags.js';
import { BatchErrors } from '../runtime/batch-errors.js';
import type { Context } from '../runtime/context.js';
import { EXIT } from '../runtime/exit-codes.js';

interface CheckOptions {
  fix?: boolean;
  strict?: boolean;
  staleAfter: string;
  all?: boolean;
}

export function registerCheck(program: Command, ctx: Context): void {
  program
    .command('check')
    .description('find damage in a list (corrupt files, broken edges, cycles, stale locks...); --fix repairs what is safe')
    .option('--as <agent>', AS_HELP)
    .option('--fix', 'repair what is safe, under the same locks agents take, and report each repair')
    .option(
      '--stale-after <duration>',
      'report tasks owned but still pending and unchanged for this long, or off (durations: see tasks --help)',
      '1h',
    )
    .option('-a, --all', 'check every list under the config folder')
    .option('--strict', 'exit 4 on warnings too (owner_gone, stale_claim, verification_missing...), not only on errors')
    .addHelpText(
      'after',
      `
Exit status: 4 when an error is found (with --fix: when one is left), else 0; warnings
(a finished list's verification_missing, an owner whose session is over) are reported
and exit 0 unless --strict.
Each finding has a stable code in --json (see docs/guide/check.md): invalid_json, invalid_task,
too_large, not_regular_file, unreadable_file, bad_file_name, id_mismatch,
edge_not_mirrored, missing_reference, cycle, highwatermark_invalid, highwatermark_behind,
stale_lock, bad_lock, temp_file, stale_claim, owner_gone (its session ended or crashed),
verification_missing (3+ tasks, all completed, none a verification step: /verif/i).

--fix never deletes a task file: a corrupt one is renamed <id>.json.corrupt-<time>, which
agents ignore. Cycles, stale claims, symlinks and misnamed files are reported, not fixed.

Examples:
  tasks check
  tasks check --fix
  tasks check --all --json | jq '.[] | select(.clean | not) | .list'
  tasks check --stale-after 30m`,
    )
    .action(async (opts: CheckOptions) => {
      const claimStaleMs = parseDurationOrOff('--stale-after', opts.staleAfter);
      if (opts.all) requireConfigDir(ctx.configDir);
      const chosen = opts.all ? undefined : ctx.list(Boolean(opts.fix)); // --fix writes: with several lists, name one
      if (chosen !== undefined && !chosen.exists) {
        // A live session's list before its first task: nothing to check yet.
        if (ctx.io.json) {
          ctx.io.out(
            renderJson({
              list: chosen.id,
              ok: true,
              path: chosen.dir,
              checkedAt: new Date(ctx.now()).toISOString(),
              files: 0,
              clean: true,
              findings: [],
            }),
          );
        } else ctx.io.note(`list "${ctx.shortId(chosen.id)}" has no tasks yet: nothing to check`, 'no_tasks_yet');
        return;
      }
      const targets = chosen
        ? [chosen]
        : // Folder names as they are: one agents cannot address is still worth checking.
          listIds(ctx.configDir).map((id) => ({ id, dir: path.join(tasksRoot(ctx.configDir), id) }));
      if (opts.all && targets.length === 0) ctx.io.note(`no task lists under ${ctx.configDir}`, 'no_lists');
      const views: CheckView[] = [];
      const docs: Array<Record<string, unknown>> = [];
      const checkedAt = new Date(ctx.now()).toISOString();
      const errors = new BatchErrors(ctx.io, 'list');
      for (const target of targets) {
        try {
          const gone = ctx.goneOwners(target.id, { deep: true });
          const ownerGone = gone && ((owner: string) => (gone.isGone(owner) ? gone.why : undefined));
          const report = await checkList(target.dir, {
            now: ctx.now(),
            clock: () => ctx.now(),
            claimStaleMs,
            ownerGone,
            fix: Boolean(opts.fix),
          });
          const view: CheckView = { list: target.id, report, fix: Boolean(opts.fix) };
          views.push(view);
          docs.push(checkJson(view, checkedAt));
          const left = opts.fix ? (report.remaining ?? []) : report.findings;
          if (left.some((f) => opts.strict || f.severity === 'error')) ctx.io.setExit(EXIT.conflict);
          if (!ctx.io.json)
            printView(
              ctx,
              { ...view, list: ctx.shortId(view.list) },
              chosen === undefined ? ['-l', ctx.shortId(target.id)] : ctx.listArgs(chosen),
            );
        } catch (err) {
          // One unreadable list does not stop the others (--all); the exit code is the worst.
          if (!opts.all) throw err;
          docs.push({ list: target.id, ok: false, error: errors.item(target.id, err) });
        }
      }
      if (ctx.io.json && (opts.all || docs.length > 0)) ctx.io.out(renderJson(opts.all ? docs : docs[0]));
      errors.summarize(targets.length);
    });
}

function printView(ctx: Context, view: CheckView, listArgs: readonly string[]): void {
  const style = ctx.io.humanLayout ? ctx.io.style : PLAIN;
  const body = renderCheckReport(view, style, listArgs);
  if (body !== '') ctx.io.out(body);
  const summary = renderCheckSummary(view, ctx.io.humanLayout ? ctx.io.style : ctx.io.errStyle, listArgs);
  if (ctx.io.humanLayout) ctx.io.out(summary);
  else ctx.io.note(summary, 'summary');
}
