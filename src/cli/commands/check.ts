import type { Command } from 'commander';
import { checkLists } from '../../core/check/check-lists.js';
import { type ListChoice, requireConfigDir } from '../../core/lists/list-choice.js';
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
    .option('--strict', 'exit 4 on warnings too (owner_gone, agent_gone, stale_claim, verification_missing...), not only on errors')
    .addHelpText(
      'after',
      `
Exit status: 4 when an error is found (with --fix: when one is left), else 0; warnings
(a finished list's verification_missing, an owner or agent whose session is over) are reported
and exit 0 unless --strict.
Each finding has a stable code in --json (see docs/guide/check.md): invalid_json, invalid_task,
too_large, not_regular_file, unreadable_file, bad_file_name, id_mismatch,
edge_not_mirrored, missing_reference, cycle, highwatermark_invalid, highwatermark_behind,
stale_lock, bad_lock, temp_file, stale_claim, owner_gone (its session ended or crashed),
agent_gone (in progress with no owner, its session ended or crashed holding it),
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
      // A live session's list before its first task: nothing to check yet.
      if (chosen !== undefined && !chosen.exists) return nothingToCheck(ctx, chosen);
      const docs: Array<Record<string, unknown>> = [];
      const checkedAt = new Date(ctx.now()).toISOString();
      const errors = new BatchErrors(ctx.io, 'list');
      const count = await checkLists(
        {
          lists: chosen ?? { all: ctx.configDir },
          claimStaleMs,
          fix: Boolean(opts.fix),
          goneOwned: (listId, tasks) => ctx.goneOwned(listId, tasks),
          goneHeld: (listId, tasks) => ctx.goneHeld(listId, tasks),
          clock: () => ctx.now(),
        },
        ({ list, report, error }) => {
          if (report === undefined) docs.push({ list, ok: false, error: errors.item(list, error) });
          else docs.push(showCheck(ctx, { list, report, fix: Boolean(opts.fix) }, { strict: Boolean(opts.strict), chosen, checkedAt }));
        },
      );
      if (opts.all && count === 0) ctx.io.note(`no task lists under ${ctx.configDir}`, 'no_lists');
      if (ctx.io.json && (opts.all || docs.length > 0)) ctx.io.out(renderJson(opts.all ? docs : docs[0]));
      errors.summarize(count);
    });
}

/** One list's check: its part of the exit status, and its report for a person; returns its JSON document. */
function showCheck(
  ctx: Context,
  view: CheckView,
  o: { strict: boolean; chosen: ListChoice | undefined; checkedAt: string },
): Record<string, unknown> {
  const { report } = view;
  const doc = checkJson(view, o.checkedAt);
  const left = view.fix ? (report.remaining ?? []) : report.findings;
  if (left.some((f) => o.strict || f.severity === 'error')) ctx.io.setExit(EXIT.conflict);
  if (!ctx.io.json) {
    const listArgs = o.chosen === undefined ? ['-l', ctx.shortId(view.list)] : ctx.listArgs(o.chosen);
    printView(ctx, { ...view, list: ctx.shortId(view.list) }, listArgs);
  }
  return doc;
}

function nothingToCheck(ctx: Context, chosen: ListChoice): void {
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
}

function printView(ctx: Context, view: CheckView, listArgs: readonly string[]): void {
  const style = ctx.io.humanLayout ? ctx.io.style : PLAIN;
  const body = renderCheckReport(view, style, listArgs);
  if (body !== '') ctx.io.out(body);
  const summary = renderCheckSummary(view, ctx.io.humanLayout ? ctx.io.style : ctx.io.errStyle, listArgs);
  if (ctx.io.humanLayout) ctx.io.out(summary);
  else ctx.io.note(summary, 'summary');
}
