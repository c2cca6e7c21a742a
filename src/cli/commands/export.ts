import { type Command, Option } from 'commander';
import { type ListTaskCosts, taskCostsOf } from '../../core/cost/task-costs.js';
import { EXPORT_FORMATS, type ExportFormat, type ExportView, exportView } from '../../core/snapshots/export-view.js';
import { outputPath, writeOutput } from '../../core/snapshots/output-file.js';
import { renderExportWritten, renderMarkdownChecklist, renderTodoWriteLeftOut } from '../../render/export-markdown.js';
import { renderJson, renderJsonLine } from '../../render/json.js';
import { renderSkippedFile } from '../../render/list-notes.js';
import { tasksJson } from '../../render/task-json.js';
import { addFilterOptions, type FilterOptions, filterFrom } from '../flags/filter-flags.js';
import { type Context, usage } from '../runtime/context.js';

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
        opts.output === undefined || opts.output === '-' ? undefined : outputPath(opts.output, ctx.home, ctx.cwd, ctx.configDir);
      const filter = filterFrom(opts, ctx);
      const choice = ctx.list(false, { todos: true });
      const view = exportView(choice, filter, format);
      for (const p of view.problems) ctx.io.warn(renderSkippedFile(p), 'file_skipped', { file: p.file, reason: p.reason });
      for (const w of view.todoWrite?.warnings ?? []) ctx.io.warn(w, 'export_warning');
      // Said, not silently dropped: an export read back into a list would come back without them.
      const leftOut = view.todoWrite && renderTodoWriteLeftOut(view.todoWrite.leftOut);
      if (leftOut !== undefined && view.todoWrite) ctx.io.note(leftOut, 'export_left_out', { ...view.todoWrite.leftOut });
      // What each task cost (tasks cost's figures), only when asked: it reads the list's sessions.
      const cost = opts.cost ? taskCostsOf(ctx.sessions, choice, { env: ctx.env, home: ctx.home, now: ctx.now() }) : undefined;
      const text = exportText(view, format, opts.title ?? `Tasks: ${ctx.shortId(choice.id)}`, cost);
      if (output === undefined) {
        if (text !== '') ctx.io.out(text);
        return;
      }
      writeOutput(output, text === '' ? '' : `${text}\n`);
      ctx.io.note(renderExportWritten(view.tasks.length, format, opts.output ?? ''), 'export_written', {
        file: output,
        format,
        tasks: view.tasks.length,
      });
    });
}

function exportText(view: ExportView, format: ExportFormat, title: string, cost: ListTaskCosts | undefined): string {
  if (view.todoWrite !== undefined) return renderJson(view.todoWrite.snapshot);
  if (view.checklist !== undefined)
    return renderMarkdownChecklist(view.tasks, view.checklist, {
      title,
      cost: cost && { of: (id) => cost.byTask.get(id), total: cost.total, unattributed: cost.unattributed },
    });
  if (format === 'jsonl')
    return tasksJson(view.tasks, view.times)
      .map((t) => renderJsonLine(t))
      .join('\n');
  return renderJson(tasksJson(view.tasks, view.times));
}
