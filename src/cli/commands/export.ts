import { type Command, Option } from 'commander';
import { costOfLists } from '../../core/cost/cost-report.js';
import { loadPrices, priceFilePath } from '../../core/cost/price-file.js';
import { indexTasks } from '../../core/graph/blockers.js';
import { readChosen } from '../../core/lists/chosen-tasks.js';
import { filterTasks } from '../../core/lists/task-filter.js';
import { toTodoWrite } from '../../core/snapshots/export-todowrite.js';
import { checkOutputPath } from '../../core/snapshots/output-file.js';
import { expandHome } from '../../core/store/paths.js';
import { writeFileAtomic } from '../../core/store/task-file.js';
import { renderExportWritten, renderMarkdownChecklist } from '../../render/export-markdown.js';
import { renderJson, renderJsonLine } from '../../render/json.js';
import { renderSkippedFile } from '../../render/list-notes.js';
import { tasksJson } from '../../render/task-json.js';
import { addFilterOptions, type FilterOptions, filterFrom } from '../flags/filter-flags.js';
import { type Context, usage } from '../runtime/context.js';

const EXPORT_FORMATS = ['todowrite', 'json', 'jsonl', 'markdown'] as const;
type ExportFormat = (typeof EXPORT_FORMATS)[number];

interface ExportOptions extends FilterOptions {
  format?: ExportFormat;
  output?: string;
  title?: string;
  cost?: boolean;
}

export function registerExport(program: Command, ctx: Context): void {
  const command = program
    .command('export')
    .description('print a list as a TodoWrite snapshot, JSON, JSON Lines or a Markdown checklist')
    .addOption(new Option('-f, --format <format>', 'output format (default: todowrite; json with --json)').choices([...EXPORT_FORMATS]))
    .option('--output <file>', 'write to <file> (replaced atomically) instead of stdout; - for stdout');
  addFilterOptions(command, ['status', 'owner', 'unowned', 'all'])
    .option('--title <text>', 'markdown: the heading (default: "Tasks: <list>")')
    .option('--cost', "markdown: each task's time in progress, tokens and estimated cost, and the agents' total (see tasks cost)")
    .addHelpText(
      'after',
      `
Formats:
  todowrite  {"todos": [{content, status, activeForm}]} in id order: valid TodoWrite input.
             content is the subject; a missing activeForm is derived from it ("Fix auth bug"
             -> "Fixing auth bug"; a subject that does not start with a known verb ->
             "Working on <subject>"). Statuses are kept; several in_progress are reported.
  json       the tasks as stored, an array (as \`tasks list --json\`)
  jsonl      the tasks as stored, one per line
  markdown   a checklist with statuses, owners and dependencies (ids as code spans, so
             GitHub does not link them to issues); --cost adds what each task cost

Examples:
  tasks export > todos.json
  tasks export --format markdown >> "$GITHUB_STEP_SUMMARY"
  tasks export --format markdown --cost >> "$GITHUB_STEP_SUMMARY"
  tasks export --format json --output backup.json && tasks -l other import backup.json
  tasks export --status pending,in_progress --format jsonl | jq -r .subject`,
    )
    .action((opts: ExportOptions) => {
      if (ctx.io.json && opts.format !== undefined && opts.format !== 'json') {
        throw usage(`--json prints JSON; it cannot be combined with --format ${opts.format}`);
      }
      const format: ExportFormat = opts.format ?? (ctx.io.json ? 'json' : 'todowrite');
      if (opts.cost && format !== 'markdown') throw usage('--cost goes with --format markdown');
      const output =
        opts.output === undefined || opts.output === '-' ? undefined : checkOutputPath(expandHome(opts.output, ctx.home), ctx.cwd);
      const filter = filterFrom(opts, ctx);
      const choice = ctx.list(false, { todos: true });
      const id = ctx.shortId(choice.id);
      const snapshot = readChosen(choice, { times: format === 'json' || format === 'jsonl' });
      for (const p of snapshot.problems) ctx.io.warn(renderSkippedFile(p), 'file_skipped', { file: p.file, reason: p.reason });
      const index = indexTasks(snapshot.tasks);
      const tasks = filterTasks(snapshot.tasks, filter, index);

      let text: string;
      if (format === 'todowrite') {
        const { snapshot: todos, warnings } = toTodoWrite(tasks);
        for (const w of warnings) ctx.io.warn(w, 'export_warning');
        text = renderJson(todos);
      } else if (format === 'json') {
        text = renderJson(tasksJson(tasks, snapshot.times));
      } else if (format === 'jsonl') {
        text = tasksJson(tasks, snapshot.times)
          .map((t) => renderJsonLine(t))
          .join('\n');
      } else {
        const report = opts.cost
          ? costOfLists(ctx.sessions, [choice], { prices: loadPrices(priceFilePath(ctx.env, ctx.home)), now: ctx.now() })
          : undefined;
        const byId = new Map(report?.tasks.map((t) => [t.id, t]));
        text = renderMarkdownChecklist(tasks, index, {
          title: opts.title ?? `Tasks: ${id}`,
          cost: report && { of: (taskId) => byId.get(taskId), total: report.total, unattributed: report.unattributed },
        });
      }

      if (output === undefined) {
        if (text !== '') ctx.io.out(text);
        return;
      }
      writeFileAtomic(output, text === '' ? '' : `${text}\n`);
      ctx.io.note(renderExportWritten(tasks.length, format, opts.output ?? ''), 'export_written', {
        file: output,
        format,
        tasks: tasks.length,
      });
    });
}
