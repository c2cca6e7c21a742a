import { Option, type Command } from 'commander';
import { SORT_KEYS, sortTasks, type SortKey } from '../../core/lists/task-sort.js';
import { taskFileTimes } from '../../core/store/task-times.js';
import { indexTasks } from '../../core/graph/blockers.js';
import { readList } from '../../core/store/list-read.js';
import type { Task } from '../../core/store/schema.js';
import { filterTasks, type TaskFilter } from '../../core/lists/task-filter.js';
import { teamForList, unknownOwnerWarning } from '../../core/teams/teams.js';
import { renderJson } from '../../render/json.js';
import {
  missingBlockers,
  renderMissingLegend,
  renderMissingWarning,
  renderSummary,
  renderTaskLines,
  renderTaskTable,
  summaryCounts,
} from '../../render/task-table.js';
import { usage, type App } from '../app.js';
import { collect, parseMetaFilter, parsePositiveInt, parseStatusList, requireOwner } from '../parse.js';

interface ListOptions {
  status?: string[];
  owner?: string;
  unowned?: boolean;
  all?: boolean;
  ready?: boolean;
  blocked?: boolean;
  search?: string;
  meta?: string[];
  sort?: SortKey;
  limit?: string;
  quiet?: boolean;
}

export function listFilterFrom(opts: ListOptions): TaskFilter {
  return {
    statuses: parseStatusList(opts.status),
    owner: requireOwner('--owner', opts.owner),
    unowned: Boolean(opts.unowned),
    includeInternal: Boolean(opts.all),
    ready: Boolean(opts.ready),
    blocked: Boolean(opts.blocked),
    search: opts.search,
    meta: parseMetaFilter(opts.meta),
  };
}

export function registerList(program: Command, app: App): void {
  program
    .command('list')
    .alias('ls')
    .description('list the tasks of a list, in id order, with a summary')
    .option('-s, --status <status>', 'only these statuses (repeatable, or comma-separated)', collect)
    .option('-o, --owner <name>', "only tasks owned by <name> (an agent, a team member's name, a person)")
    .option('--unowned', 'only tasks nobody owns')
    .option('--ready', 'only tasks an agent could claim now: pending, unowned, no open blocker')
    .option('--blocked', 'only unfinished tasks waiting for an open blocker')
    .option('-a, --all', 'include internal tasks (metadata._internal), hidden from agents too')
    .option('--search <text>', 'only tasks whose subject or description holds <text> (any case)')
    .option('--meta <key=value>', 'only tasks with this metadata value; key:=<json> for a JSON value (repeatable)', collect)
    .addOption(new Option('--sort <key>', 'order: id (default), status (in progress first), owner, updated (newest first)').choices([...SORT_KEYS]))
    .option('--limit <n>', 'show the first <n> tasks (the summary still counts every match)')
    .option('-q, --quiet', 'no summary line')
    .addHelpText(
      'after',
      '\nIn a terminal: a table with colour. Piped: one task per line, tab-separated:\n  id, status, owner (-), open blockers (-), subject\nBlockers that name missing tasks do not block: the table shows them as #n?, piped\noutput warns on stderr.\n\nExamples:\n  tasks list --status pending,in_progress\n  tasks list --ready\n  tasks list --blocked\n  tasks list --sort updated --limit 10\n  tasks list --search auth --meta priority=high\n  tasks list --json | jq -r \'.[] | select(.owner == null) | .id\'',
    )
    .action((opts: ListOptions) => {
      const filter = listFilterFrom(opts);
      const limit = parsePositiveInt('--limit', opts.limit);
      if (filter.owner !== undefined && filter.unowned) throw usage('--owner and --unowned cannot be used together');
      if (filter.ready && filter.blocked) throw usage('--ready and --blocked cannot be used together');
      const { id: listId, dir } = app.list(false);
      const snapshot = readList(dir);
      for (const p of snapshot.problems) app.warn(`skipped ${p.file}: ${p.reason}`);
      if (filter.owner !== undefined) {
        // A typo in a name shows as an empty list; say so rather than leave it to guessing.
        const warning = unknownOwnerWarning(filter.owner, snapshot.tasks, teamForList(app.configDir, listId));
        if (warning !== undefined) app.warn(warning);
      }
      // Blockers are judged against every task, shown or not.
      const index = indexTasks(snapshot.tasks);
      const matching = filterTasks(snapshot.tasks, filter, index);
      // File times are read only when shown (the table) or sorted by: one stat a task.
      const sort = opts.sort ?? 'id';
      const needTimes = sort === 'updated' || (app.humanLayout && !app.json);
      const times = needTimes ? taskFileTimes(dir, matching.map((t) => t.id)) : new Map<string, number>();
      const sorted = sort === 'id' ? matching : sortTasks(matching, sort, times);
      const tasks = limit === undefined ? sorted : sorted.slice(0, limit);
      if (app.json) {
        app.out(renderJson(tasks));
        return;
      }
      const gone = app.goneOwners(listId);
      const isGone = (t: Task) => t.status !== 'completed' && gone?.isGone(t.owner) === true;
      const goneCount = matching.filter(isGone).length;
      const shownOf = tasks.length < matching.length ? ` (showing ${tasks.length}; --limit)` : '';
      const summary = renderSummary(summaryCounts(matching, index), app.humanLayout ? app.style : app.errStyle) + shownOf;
      const missing = missingBlockers(tasks, index);
      if (app.humanLayout) {
        if (tasks.length > 0) app.out(renderTaskTable(tasks, index, { style: app.style, width: app.columns, updated: times, now: Date.now(), isGone }));
        if (!opts.quiet) app.out(summary);
        if (goneCount > 0 && !opts.quiet) app.out(app.style.red(goneNote(goneCount, gone!.why)));
        if (missing.length > 0 && !opts.quiet) app.out(renderMissingLegend(app.style));
      } else {
        if (tasks.length > 0) app.out(renderTaskLines(tasks, index));
        if (!opts.quiet) app.note(summary);
        if (goneCount > 0) app.warn(goneNote(goneCount, gone!.why));
        for (const m of missing) app.warn(renderMissingWarning(m));
      }
    });
}

/** "2 unfinished tasks are owned by agents of session 2d483082, which ended: tasks release --gone" */
function goneNote(count: number, why: string): string {
  return `${count} unfinished task${count === 1 ? ' is' : 's are'} owned by agents whose ${why}: tasks release --gone gives them back`;
}
