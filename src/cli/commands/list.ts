import type { Command } from 'commander';
import { type ListTaskCosts, taskCostsOf } from '../../core/cost/task-costs.js';
import { type ListingRows, listTasks, type TaskListing } from '../../core/lists/task-listing.js';
import { SORT_KEYS, type SortKey } from '../../core/lists/task-sort.js';
import { DEFAULT_STALLED_MS } from '../../core/progress/stalled-work.js';
import { COST_HEAD, costCells, costFields } from '../../render/cost-cells.js';
import { NO_USAGE, usageJson } from '../../render/cost-json.js';
import { renderJson } from '../../render/json.js';
import {
  renderAgentGoneLine,
  renderAgentGoneNote,
  renderGoneNote,
  renderLimitNote,
  renderSkippedFile,
  renderStalledNote,
  renderStalledWarning,
  renderStallTimeAhead,
  renderStallTimeNotKept,
  renderUntimedTodos,
  renderWaitingLeftOut,
  renderWaitingLine,
  renderWaitingNote,
} from '../../render/list-notes.js';
import type { Style } from '../../render/style.js';
import { goneJson, ownTasksJson, waitingJson } from '../../render/task-json.js';
import { renderMissingLegend, renderMissingWarning, renderSummary, renderTaskLines, renderTaskTable } from '../../render/task-table.js';
import { parseDuration } from '../flags/duration-flags.js';
import { addFilterOptions, type FilterOptions, filterFrom } from '../flags/filter-flags.js';
import { parsePositiveInt } from '../flags/parse.js';
import type { Context } from '../runtime/context.js';

export interface ListOptions extends FilterOptions {
  sort?: SortKey;
  limit?: string;
  quiet?: boolean;
  stalled?: string | boolean;
  cost?: boolean;
}

export function registerList(program: Command, ctx: Context): void {
  const command = program.command('list').alias('ls').description('list the tasks of a list, in id order, with a summary');
  addFilterOptions(command, ['status', 'owner', 'unowned', 'ready', 'blocked', 'all', 'search', 'meta'])
    .addOption(
      command
        .createOption('--sort <key>', 'order: id (default), status (in progress first), owner, updated (newest first)')
        .choices([...SORT_KEYS]),
    )
    .option('--limit <n>', 'show the first <n> tasks (the summary still counts every match)')
    .option('-q, --quiet', 'no summary line')
    .option(
      '--stalled [duration]',
      'only tasks in progress whose file has not changed for this long (default 30m; durations: see tasks --help) while their session is not busy, and those whose agent is gone',
    )
    .option('--cost', "add each task's time in progress, tokens and estimated cost (see tasks cost)")
    .addHelpText(
      'after',
      '\nIn a terminal: a table with colour. Piped: one task per line, tab-separated:\n  id, status, owner (-), open blockers (-), subject\nBlockers that name missing tasks do not block: the table shows them as #n?, piped\noutput warns on stderr.\n\nStalled: a task in progress whose file has not changed for 30m (or --stalled <duration>),\nwhile no session of the list is at work: one busy on a turn counts only while its\ntranscript grows or it is inside a tool call (as watch and notify judge it).\nThe table marks it "stalled 45m"; piped output warns on stderr. A task in progress\nwhose session waits for a person (a permission prompt) is waiting, never stalled:\nmarked "waiting: permission prompt", --json gives it a "waiting" object, and\n--stalled leaves it out with a note on stderr.\n\nAgent gone: a task in progress with no owner whose session ended or crashed holding it\nis marked "agent gone: session 4aa21e64 crashed 5 min ago", not stalled (piped: a warning\non stderr); --stalled shows it whatever its age and the list\'s other sessions, and\n--json then gives it a "gone" object (plain --json reads no sessions for it: tasks\ncheck does). A task whose owner is gone shows its owner so.\ntasks release --gone gives such work back.\n\nExamples:\n  tasks list --status pending,in_progress\n  tasks list --ready\n  tasks list --blocked\n  tasks list --stalled 1h\n  tasks list --sort updated --limit 10\n  tasks list --search auth --meta priority=high\n  tasks list --json | jq -r \'.[] | select(.owner == null) | .id\'',
    )
    .action((opts: ListOptions) => runList(ctx, opts));
}

/** `tasks list` with its options as parsed: by commander, or by the plain read path (read-path/), which skips building the program. */
export function runList(ctx: Context, opts: ListOptions): void {
  const filter = filterFrom(opts, ctx);
  const limit = parsePositiveInt('--limit', opts.limit);
  const stalledAfter = typeof opts.stalled === 'string' ? parseDuration('--stalled', opts.stalled) : DEFAULT_STALLED_MS;
  const choice = ctx.list(false, { todos: true });
  const listing = listTasks({
    choice,
    configDir: ctx.configDir,
    filter,
    sort: opts.sort ?? 'id',
    limit,
    stalledOnly: Boolean(opts.stalled),
    stalledAfterMs: stalledAfter,
    now: ctx.now(),
    sessions: ctx.sessions,
    output: ctx.io.json ? 'json' : ctx.io.humanLayout ? 'table' : 'lines',
    goneOwners: () => ctx.goneOwners(choice.id),
    goneHeld: (tasks) => ctx.goneHeld(choice.id, tasks),
  });
  for (const p of listing.problems) ctx.io.warn(renderSkippedFile(p), 'file_skipped', { file: p.file, reason: p.reason });
  if (listing.unknownOwner !== undefined) ctx.io.warn(listing.unknownOwner, 'unknown_owner', { owner: filter.owner });
  // Asked for stalled work, a TodoWrite item whose call has no time is one that cannot be judged.
  const untimed = listing.untimedTodos ?? [];
  if (opts.stalled !== undefined && untimed.length > 0) ctx.io.warn(renderUntimedTodos(untimed), 'stalled_unknown', { ids: untimed });
  // A task dated ahead of the clock cannot be judged stalled until then: said, so that no silence is taken for "not stalled".
  for (const [id, aheadMs] of listing.ahead)
    if (!listing.gone.has(id)) ctx.io.warn(renderStallTimeAhead([id], aheadMs), 'stall_time_ahead', { id, aheadMs: Math.round(aheadMs) });
  // So is one whose file's time was not kept (dated 1970): when it last changed is unknown.
  for (const id of listing.undated) if (!listing.gone.has(id)) ctx.io.warn(renderStallTimeNotKept([id]), 'stall_time_not_kept', { id });
  // Asked for stalled work, what waits for a person is left out, and said apart: it is not stuck, it waits for someone.
  const leftOut = listing.waitingLeftOut ?? [];
  const on = leftOut[0]?.on;
  if (on !== undefined) {
    const ids = leftOut.map((w) => w.id);
    ctx.io.note(renderWaitingLeftOut(ids, on), 'waiting_for_person', { ids, session: on.session, waitingFor: on.waitingFor ?? null });
  }
  const { tasks, rows } = listing;
  // What each task cost (tasks cost's figures), only when asked: it reads the list's sessions.
  const cost = opts.cost ? taskCostsOf(ctx.sessions, choice, { env: ctx.env, home: ctx.home, now: ctx.now() }) : undefined;
  if (rows === undefined) {
    const json = ownTasksJson(tasks, listing.times);
    // In place, as ownTasksJson: a task that waits for a person says so (after updatedAt), as does one whose agent is gone.
    for (const t of json) {
      const on = listing.waiting.get(t.id);
      if (on !== undefined) (t as typeof t & { waiting?: unknown }).waiting = waitingJson(on);
      const gone = listing.gone.get(t.id);
      if (gone !== undefined) (t as typeof t & { gone?: unknown }).gone = goneJson(gone);
    }
    ctx.io.out(renderJson(cost === undefined ? json : json.map((t) => ({ ...t, cost: usageJson(cost.byTask.get(t.id) ?? NO_USAGE) }))));
  } else if (ctx.io.humanLayout)
    showTable(ctx, listing, rows, { quiet: Boolean(opts.quiet), stalledAfter, listArgs: () => ctx.listArgs(choice), cost });
  else showLines(ctx, listing, rows, { quiet: Boolean(opts.quiet), listArgs: () => ctx.listArgs(choice), cost });
}

/**
 * What a note must add to name the list (`-l <short id>`), asked only when a note needs it:
 * a list's short id is worked out against every list on disk, a folder read most runs
 * never need (a config folder holds a list for each session that used the Task tools).
 */
type ListArgs = () => string[];

function summaryOf(listing: TaskListing, rows: ListingRows, style: Style): string {
  return renderSummary(rows.counts, style) + renderLimitNote(listing.tasks.length, listing.matching);
}

/** In a terminal: the table, then the summary and what it leaves to say (stalled, gone, missing blockers). */
function showTable(
  ctx: Context,
  listing: TaskListing,
  rows: ListingRows,
  o: { quiet: boolean; stalledAfter: number; listArgs: ListArgs; cost: ListTaskCosts | undefined },
): void {
  const { tasks } = listing;
  const gone = ownersGone(listing, rows);
  const agentGone = unownedGone(listing);
  // A task whose agent is gone is marked so, not stalled: its agent's end says more, and what to run.
  const stalled = new Map([...rows.stalled].filter(([id]) => !agentGone.has(id)));
  if (tasks.length > 0) {
    ctx.io.out(
      renderTaskTable(tasks, rows.blockers, {
        style: ctx.io.style,
        width: ctx.io.columns,
        updated: rows.updated,
        now: ctx.now(),
        isGone: (t) => gone?.ids.has(t.id) === true,
        stalledFor: (t) => stalled.get(t.id),
        waitingFor: (t) => listing.waiting.get(t.id),
        goneHeld: (t) => agentGone.get(t.id),
        restated: rows.restated,
        extra: o.cost && { head: COST_HEAD, cells: (t) => costCells(o.cost?.byTask.get(t.id)) },
      }),
    );
  }
  if (o.quiet) return;
  ctx.io.out(summaryOf(listing, rows, ctx.io.style));
  const shownStalled = tasks.filter((t) => stalled.has(t.id)).length;
  if (shownStalled > 0) ctx.io.out(ctx.io.style.yellow(renderStalledNote(shownStalled, o.stalledAfter)));
  const shownWaiting = tasks.filter((t) => listing.waiting.has(t.id));
  const on = shownWaiting[0] === undefined ? undefined : listing.waiting.get(shownWaiting[0].id);
  if (on !== undefined) ctx.io.out(ctx.io.style.yellow(renderWaitingNote(shownWaiting.length, on)));
  if (gone !== undefined && gone.ids.size > 0) ctx.io.out(ctx.io.style.red(renderGoneNote(gone.ids.size, gone.why, o.listArgs())));
  const firstGone = agentGone.values().next().value;
  if (firstGone !== undefined) ctx.io.out(ctx.io.style.red(renderAgentGoneNote(agentGone.size, firstGone.why, o.listArgs())));
  if (rows.missing.length > 0) ctx.io.out(renderMissingLegend(ctx.io.style, rows.missing));
}

/** Piped: one task a line on stdout; the summary and what it leaves to say on stderr. */
function showLines(
  ctx: Context,
  listing: TaskListing,
  rows: ListingRows,
  o: { quiet: boolean; listArgs: ListArgs; cost: ListTaskCosts | undefined },
): void {
  const { tasks } = listing;
  const gone = ownersGone(listing, rows);
  const { cost } = o;
  if (tasks.length > 0) ctx.io.out(renderTaskLines(tasks, rows.blockers, cost && ((t) => costFields(cost.byTask.get(t.id)))));
  if (!o.quiet) ctx.io.note(summaryOf(listing, rows, ctx.io.errStyle), 'summary');
  if (gone !== undefined && gone.ids.size > 0)
    ctx.io.warn(renderGoneNote(gone.ids.size, gone.why, o.listArgs()), 'owner_gone', { tasks: gone.ids.size });
  const agentGone = unownedGone(listing);
  for (const t of tasks) {
    const held = agentGone.get(t.id);
    if (held !== undefined)
      ctx.io.warn(renderAgentGoneLine(t.id, held.why, o.listArgs()), 'agent_gone', {
        id: t.id,
        session: held.session?.sessionId ?? null,
        why: held.why,
      });
    const idle = held === undefined ? rows.stalled.get(t.id) : undefined;
    if (idle !== undefined) ctx.io.warn(renderStalledWarning(t.id, idle), 'stalled', { id: t.id, idleMs: Math.round(idle) });
    const on = listing.waiting.get(t.id);
    if (on !== undefined)
      ctx.io.note(renderWaitingLine(t.id, on), 'waiting_for_person', {
        ids: [t.id],
        session: on.session,
        waitingFor: on.waitingFor ?? null,
      });
  }
  for (const m of rows.missing) ctx.io.warn(renderMissingWarning(m), 'missing_blocker');
}

/** What the listing says of a task whose agent is gone (core's GoneHeld, named through the listing). */
type HeldGone = TaskListing['gone'] extends ReadonlyMap<string, infer H> ? H : never;

/**
 * The shown tasks whose owner is gone: as the list's owners are judged (rows.gone), or as
 * its task's holder is (list-owners.ts: an owned task in progress whose session is over,
 * on a named list whose other sessions live). One note or warning says so for both.
 */
function ownersGone(listing: TaskListing, rows: ListingRows): { ids: ReadonlySet<string>; why: string } | undefined {
  const held = [...listing.gone].filter(([, h]) => !h.unowned);
  const whys = new Map([...(rows.gone ?? []), ...held.map(([id, h]): [string, string] => [id, h.why])]);
  if (whys.size === 0) return undefined;
  // Each owner's own end: "session 91709b2e crashed", or "sessions are over (session 91709b2e crashed, session 2775f06e ended)".
  const distinct = [...new Set(whys.values())];
  const why = distinct.length === 1 ? (distinct[0] as string) : `sessions are over (${distinct.join(', ')})`;
  return { ids: new Set(whys.keys()), why };
}

/**
 * The shown tasks in progress with no owner whose agent is gone: marked apart. One whose
 * owner is gone is marked by its owner already (`worker-1 (gone)`); `--json` gives both a
 * `gone` object.
 */
function unownedGone(listing: TaskListing): Map<string, HeldGone> {
  return new Map([...listing.gone].filter(([, h]) => h.unowned));
}
