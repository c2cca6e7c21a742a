import type { Command } from 'commander';
import { TasksError } from '../../core/base/errors.js';
import { nothingRestored, refuseAmbiguousPrefix } from '../../core/restore/gone-lists.js';
import { restoreList } from '../../core/restore/restore-list.js';
import { taskFileTimes } from '../../core/store/task-times.js';
import { renderJson } from '../../render/json.js';
import {
  type RestoreReport,
  renderNothingRecorded,
  renderRestoreReport,
  renderRestoreSummary,
  restoreFromCommand,
  restoreJson,
} from '../../render/restore-report.js';
import { collect } from '../flags/parse.js';
import type { Context } from '../runtime/context.js';
import { withInterrupt } from '../runtime/interrupt.js';

interface RestoreOptions {
  from?: string[];
  dryRun?: boolean;
}

export function registerRestore(program: Command, ctx: Context): void {
  program
    .command('restore')
    .description("rebuild a list Claude Code deleted or reset, from its sessions' transcripts")
    .option('--from <session>', 'read only this session (an id, a unique prefix, or a transcript file); repeat for more', collect)
    .option('-n, --dry-run', 'say what would be restored; write nothing')
    .addHelpText(
      'after',
      `
Claude Code deletes a list's task files once every task is completed (interactive
sessions), empties and garbage-collects lists, and a removed folder starts again from #1;
its transcripts keep every TaskCreate and TaskUpdate with its result. restore replays
them in order (ids from the creates' results, updates merged as agents merge them,
deletes applied) and writes what the list ended with:

  - each task under its own id wherever no file has it; nothing that exists is written
    over: a task already there with the same subject is left as it is, and one whose id
    another task holds now comes back under a new id (old -> new on stderr);
  - .highwatermark raised to the highest id the transcripts show, so no id an agent
    used or saw is handed out again;
  - tasks from before the folder was made anew come back under new ids.

The transcripts read: the sessions whose own list it is, those whose transcripts show its
tasks, those started where settings bind the list (tasks use), and those that show the
same tasks (ids and subjects) as the others (sharing it through CLAUDE_CODE_TASK_LIST_ID);
--from names them.
tasks lists --all shows lists whose folder is gone. A restore is undone by tasks undo.

A short id (-l 2d48) names the list folder there that begins with it, else the gone list
(tasks lists --all) of the session it begins; one that begins both is refused as
ambiguous: type more of it, or name the session (--session 2d48a1).

Examples:
  tasks restore --session 2d483082 --dry-run
  tasks -l 2d483082-5eaa-461a-bfdf-3e104fbfeff7 restore
  tasks restore -l refactor --from 7c1e2f30 --from 9a0b1c2d
  tasks restore -l refactor --json | jq .ids`,
    )
    .action(async (opts: RestoreOptions) => {
      const dryRun = Boolean(opts.dryRun);
      const choice = ctx.list(true, { creates: true, dryRun });
      refuseAmbiguousPrefix(ctx.sessions, choice);
      const outcome = await withInterrupt((signal) =>
        restoreList(ctx.sessions, choice.dir, choice.id, { from: opts.from, dryRun, now: () => performance.now(), signal }),
      );
      const { created, updated, deleted } = outcome.replay;
      if (created + updated + deleted === 0) {
        const read = outcome.sources.length;
        const { meant, candidates } = nothingRestored(ctx.sessions, {
          listId: choice.id,
          transcriptsRead: read,
          from: opts.from ?? [],
          cwd: ctx.cwd,
        });
        // `-l <short id>` where no list folder begins with it is a list's name, not a prefix:
        // the session it begins, whose folder is gone, is restored by --session.
        if (meant !== undefined) {
          const command = `tasks restore --session ${meant}`;
          throw new TasksError(
            'not_found',
            `nothing records list "${choice.id}": no list folder begins with it, so it names a list of its own; session ${ctx.shortId(meant)} begins with it: ${command}`,
            {
              hint: 'a list whose folder is gone is restored by its session (--session) or its full id',
              details: { list: choice.id, command },
            },
          );
        }
        // A list named only in its sessions' environment leaves nothing that names it: `candidates`, the sessions that may hold it.
        throw new TasksError(
          'not_found',
          renderNothingRecorded(ctx.listWords(choice.id), read) +
            // In the one line, so that a script's log has it too.
            (candidates.length > 0
              ? `; sessions here that used the task tools with no list of their own may hold it: ${restoreFromCommand(choice.id, candidates)}`
              : ''),
          {
            hint:
              candidates.length > 0
                ? 'keep the --from of the sessions that worked on it (tasks lists --all shows them)'
                : 'name the sessions that worked on it: tasks restore --from <session> (tasks lists --all shows them)',
            details: { list: choice.id, transcripts: outcome.sources.map((s) => s.transcript), candidates },
          },
        );
      }
      for (const w of outcome.warnings) ctx.io.warn(w, 'restore_warning');
      const report: RestoreReport = { list: choice.id, dryRun, ...outcome };
      if (ctx.io.json) {
        const times = dryRun
          ? undefined
          : taskFileTimes(
              choice.dir,
              report.created.map((t) => t.id),
            );
        ctx.io.out(renderJson(restoreJson(report, times)));
      } else {
        const body = renderRestoreReport(report, ctx.io.style);
        if (body !== '') ctx.io.out(body);
      }
      ctx.io.note(renderRestoreSummary(report, ctx.listWords(report.list)), 'restore_summary', {
        restored: report.created.length,
        skipped: report.skipped.length,
        mark: report.mark,
      });
    });
}
