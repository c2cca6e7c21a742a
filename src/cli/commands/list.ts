import { type Command, Option } from 'commander';
import { costOfLists } from '../../core/cost/cost-report.js';
import { loadPrices, priceFilePath } from '../../core/cost/price-file.js';
import { countTasks, indexTasks, missingBlockers } from '../../core/graph/blockers.js';
import { readChosen } from '../../core/lists/chosen-tasks.js';
import { filterTasks } from '../../core/lists/task-filter.js';
import { SORT_KEYS, type SortKey, sortTasks } from '../../core/lists/task-sort.js';
import { DEFAULT_STALLED_MS, stalledInList } from '../../core/progress/stalled-work.js';
import type { Task } from '../../core/store/schema.js';
import { taskFileTimes } from '../../core/store/task-times.js';
import { teamForList, unknownOwnerWarning } from '../../core/teams/teams.js';
import { COST_HEAD, costCells, costFields } from '../../render/cost-cells.js';
import { NO_USAGE, usageJson } from '../../render/cost-json.js';
import { renderJson } from '../../render/json.js';
import { renderGoneNote, renderLimitNote, renderSkippedFile, renderStalledNote, renderStalledWarning } from '../../render/list-notes.js';
import { tasksJson } from '../../render/task-json.js';
import { renderMissingLegend, renderMissingWarning, renderSummary, renderTaskLines, renderTaskTable } from '../../render/task-table.js';
import { parseDuration } from '../flags/duration-flags.js';
import { addFilterOptions, type FilterOptions, filterFrom } from '../flags/filter-flags.js';
import { parsePositiveInt } from '../flags/parse.js';
import type { Context } from '../runtime/context.js';

interface ListOptions extends FilterOptions {
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
      new Option('--sort <key>', 'order: id (default), status (in progress first), owner, updated (newest first)').choices([...SORT_KEYS]),
    )
    .option('--limit <n>', 'show the first <n> tasks (the summary still counts every match)')
    .option('-q, --quiet', 'no summary line')
    .option(
      '--stalled [duration]',
      'only tasks in progress whose file has not changed for this long (default 30m; durations: see tasks --help) while their session is not busy',
    )
    .option('--cost', "add each task's time in progress, tokens and estimated cost (see tasks cost)")
    .addHelpText(
      'after',
      '\nIn a terminal: a table with colour. Piped: one task per line, tab-separated:\n  id, status, owner (-), open blockers (-), subject\nBlockers that name missing tasks do not block: the table shows them as #n?, piped\noutput warns on stderr.\n\nStalled: a task in progress whose file has not changed for 30m (or --stalled <duration>),\nwhile no session of the list is busy on a turn (where the session index knows them).\nThe table marks it "stalled 45m"; piped output warns on stderr.\n\nExamples:\n  tasks list --status pending,in_progress\n  tasks list --ready\n  tasks list --blocked\n  tasks list --stalled 1h\n  tasks list --sort updated --limit 10\n  tasks list --search auth --meta priority=high\n  tasks list --json | jq -r \'.[] | select(.owner == null) | .id\'',
    )
    .action((opts: ListOptions) => {
      const filter = filterFrom(opts, ctx);
      const limit = parsePositiveInt('--limit', opts.limit);
      const stalledAfter = typeof opts.stalled === 'string' ? parseDuration('--stalled', opts.stalled) : DEFAULT_STALLED_MS;
      const choice = ctx.list(false, { todos: true });
      const { id: listId, dir } = choice;
      const real = choice.exists && choice.todos === undefined;
      const snapshot = readChosen(choice, { times: ctx.io.json });
      for (const p of snapshot.problems) ctx.io.warn(renderSkippedFile(p), 'file_skipped', { file: p.file, reason: p.reason });
      if (filter.owner !== undefined) {
        // A typo in a name shows as an empty list; say so rather than leave it to guessing.
        const warning = unknownOwnerWarning(filter.owner, snapshot.tasks, teamForList(ctx.configDir, listId));
        if (warning !== undefined) ctx.io.warn(warning, 'unknown_owner', { owner: filter.owner });
      }
      // Blockers are judged against every task, shown or not.
      const index = indexTasks(snapshot.tasks);
      const stalled = real
        ? stalledInList(dir, listId, snapshot.tasks, {
            afterMs: stalledAfter,
            now: ctx.now(),
            sessions: ctx.sessions,
            times: snapshot.times,
          })
        : new Map<string, number>();
      const matching = filterTasks(snapshot.tasks, filter, index).filter((t) => !opts.stalled || stalled.has(t.id));
      // File times are read only when shown (the table) or sorted by: one stat a task.
      const sort = opts.sort ?? 'id';
      const needTimes = real && (sort === 'updated' || (ctx.io.humanLayout && !ctx.io.json));
      const times = needTimes
        ? taskFileTimes(
            dir,
            matching.map((t) => t.id),
          )
        : new Map<string, number>();
      const sorted = sort === 'id' ? matching : sortTasks(matching, sort, times);
      const tasks = limit === undefined ? sorted : sorted.slice(0, limit);
      // What each task cost (tasks cost's figures), only when asked: it reads the list's sessions.
      const cost = opts.cost
        ? new Map(
            costOfLists(ctx.sessions, [choice], { prices: loadPrices(priceFilePath(ctx.env, ctx.home)), now: ctx.now() }).tasks.map((t) => [
              t.id,
              t,
            ]),
          )
        : undefined;
      if (ctx.io.json) {
        const json = tasksJson(tasks, snapshot.times);
        ctx.io.out(renderJson(cost === undefined ? json : json.map((t) => ({ ...t, cost: usageJson(cost.get(t.id) ?? NO_USAGE) }))));
        return;
      }
      // Owners are asked about only when some shown task has one unfinished.
      const gone = real && matching.some((t) => t.status !== 'completed' && t.owner) ? ctx.goneOwners(listId) : undefined;
      const isGone = (t: Task) => t.status !== 'completed' && gone?.isGone(t.owner) === true;
      const goneCount = matching.filter(isGone).length;
      const summary =
        renderSummary(countTasks(matching, index), ctx.io.humanLayout ? ctx.io.style : ctx.io.errStyle) +
        renderLimitNote(tasks.length, matching.length);
      const missing = missingBlockers(tasks, index);
      if (ctx.io.humanLayout) {
        if (tasks.length > 0) {
          ctx.io.out(
            renderTaskTable(tasks, index, {
              style: ctx.io.style,
              width: ctx.io.columns,
              updated: times,
              now: ctx.now(),
              isGone,
              stalledFor: (t) => stalled.get(t.id),
              extra: cost === undefined ? undefined : { head: COST_HEAD, cells: (t) => costCells(cost.get(t.id)) },
            }),
          );
        }
        if (!opts.quiet) ctx.io.out(summary);
        const shownStalled = tasks.filter((t) => stalled.has(t.id)).length;
        if (shownStalled > 0 && !opts.quiet) ctx.io.out(ctx.io.style.yellow(renderStalledNote(shownStalled, stalledAfter)));
        if (goneCount > 0 && !opts.quiet) ctx.io.out(ctx.io.style.red(renderGoneNote(goneCount, gone!.why, ctx.listArgs(choice))));
        if (missing.length > 0 && !opts.quiet) ctx.io.out(renderMissingLegend(ctx.io.style));
      } else {
        if (tasks.length > 0) ctx.io.out(renderTaskLines(tasks, index, cost && ((t) => costFields(cost.get(t.id)))));
        if (!opts.quiet) ctx.io.note(summary, 'summary');
        if (goneCount > 0) ctx.io.warn(renderGoneNote(goneCount, gone!.why, ctx.listArgs(choice)), 'owner_gone', { tasks: goneCount });
        for (const t of tasks) {
          const idle = stalled.get(t.id);
          if (idle !== undefined) ctx.io.warn(renderStalledWarning(t.id, idle), 'stalled', { id: t.id, idleMs: Math.round(idle) });
        }
        for (const m of missing) ctx.io.warn(renderMissingWarning(m), 'missing_blocker');
      }
    });
}
