import { type Command, Option } from 'commander';
import { parseNamedImport } from '../../core/snapshots/import-parse.js';
import { createdTimes, importSnapshot } from '../../core/snapshots/import-run.js';
import { IMPORT_FORMATS, type ImportFormatChoice } from '../../core/snapshots/import-snapshot.js';
import { readBoundedStream, readInputDescriptor, readInputFile } from '../../core/snapshots/input-file.js';
import { type ImportReport, importJson, renderImportReport, renderImportSummary } from '../../render/import-report.js';
import { renderJson } from '../../render/json.js';
import { AS_HELP } from '../flags/actor-flags.js';
import type { Context } from '../runtime/context.js';
import { withInterrupt } from '../runtime/interrupt.js';

interface ImportOptions {
  format: ImportFormatChoice;
  chain?: boolean;
  dryRun?: boolean;
  newList?: boolean;
  renumber?: boolean;
}

export function registerImport(program: Command, ctx: Context): void {
  program
    .command('import')
    .description('create tasks from a TodoWrite snapshot, a Claude Code stream or transcript, or exported tasks')
    .option('--as <agent>', AS_HELP)
    .argument('<file>', 'the input file, or - for stdin')
    .addOption(new Option('-f, --format <format>', 'what the input is').choices([...IMPORT_FORMATS]).default('auto'))
    .option('--chain', 'make each created task blocked by the one created before it (existing tasks are left out)')
    .option('-n, --dry-run', 'print the plan (predicted ids); write nothing')
    .option('--renumber', 'give every task a new id, even where the id it comes with is free in the list')
    .option('--new-list', 'kept for scripts written for earlier versions: a list whose name is new is always made')
    .addHelpText(
      'after',
      `
Formats (auto detects them and says on stderr what it found):
  todowrite     [{content, status, activeForm}, ...], {"todos": [...]} (a TodoWrite input),
                an old ~/.claude/todos/*.json file (also {id, content, status, priority} items),
                or todos one a line (JSON Lines, as \`jq -c '.[]'\` prints them)
  stream-json   claude -p --output-format stream-json / Agent SDK output (JSON Lines)
  transcript    a session transcript, ~/.claude/projects/<project>/<session>.jsonl
                (both: the last TodoWrite snapshot of the main agent; or, if the run used
                the Task tools, the task list those calls ended with, dependencies included)
  tasks         tasks as \`tasks list --json\` or \`export --format json|jsonl\` print them

Tasks that come with ids (exported tasks, the list a Task-tools run left) keep them where
they are free in the list: no task there has the id, and it was not used before (above
the high-water mark). The others get new ids, blocks/blockedBy follow them, and stderr
names each old -> new (--json: "ids", every old id -> its id here). --renumber gives every
task a new id.

A todo becomes a task: content -> subject, activeForm and status kept. Items whose subject
is already a task's subject in the list are skipped, so importing twice creates nothing new.
Bad input: one error naming the line or item, exit 2, nothing written.

Examples:
  tasks import ~/.claude/todos/1f0c...-agent-1f0c....json --list refactor
  claude -p "..." --output-format stream-json --verbose | tasks import - --list ci --chain
  tasks -l old export --format json | tasks -l new import - --dry-run
  tasks import session.jsonl --list refactor --json | jq '.created[].id'`,
    )
    .action(async (file: string, opts: ImportOptions) => {
      const name = file === '-' ? 'stdin' : file;
      const text = file === '-' ? await readStdin(ctx) : await readInputFile(file, { cwd: ctx.cwd });
      const snapshot = parseNamedImport(text, opts.format, name);
      const choice = ctx.list(true, { creates: true, dryRun: opts.dryRun });
      // Ctrl-C while writing: stop between two batches (nothing half-written), exit 130.
      const outcome = await withInterrupt((signal) =>
        importSnapshot(choice.dir, snapshot, {
          chain: Boolean(opts.chain),
          dryRun: Boolean(opts.dryRun),
          renumber: Boolean(opts.renumber),
          now: () => performance.now(),
          signal,
        }),
      );
      ctx.io.note(`${opts.format === 'auto' ? 'detected' : 'read'} ${snapshot.format}: ${snapshot.found}`, 'import_detected', {
        format: snapshot.format,
        found: snapshot.found,
      });
      for (const w of outcome.warnings) ctx.io.warn(w, 'import_warning');
      const report: ImportReport = {
        list: choice.id,
        format: snapshot.format,
        found: snapshot.found,
        dryRun: Boolean(opts.dryRun),
        ...outcome,
      };
      if (ctx.io.json) {
        const times = opts.dryRun ? undefined : createdTimes(choice.dir, report.created);
        ctx.io.out(renderJson(importJson(report, times)));
      } else {
        const body = renderImportReport(report, ctx.io.style);
        if (body !== '') ctx.io.out(body);
      }
      ctx.io.note(renderImportSummary(report, ctx.listWords(report.list)), 'import_summary', {
        created: report.created.length,
        skipped: report.skipped.length,
        updated: report.updated.length,
      });
    });
}

/** All of stdin, as text, up to the import limit. A terminal gets a word on how to end the input. */
async function readStdin(ctx: Context): Promise<string> {
  const stdin = ctx.io.stdin;
  if (!stdin.isTTY && stdin.fd !== undefined) return readInputDescriptor(stdin.fd, 'stdin');
  if (stdin.isTTY) ctx.io.note('reading from stdin; end with Ctrl-D', 'reading_stdin');
  return readBoundedStream(stdin.stream() as AsyncIterable<Buffer | string>, 'stdin');
}
