import type { Command } from 'commander';
import { carryWork } from '../../core/carry/carry-run.js';
import { taskFileTimes } from '../../core/store/task-times.js';
import { carryJson, carryWarnings, renderCarry, renderCarrySummary } from '../../render/carry-report.js';
import { renderJson } from '../../render/json.js';
import { collect, parseIdArguments } from '../flags/parse.js';
import type { Context } from '../runtime/context.js';
import { withInterrupt } from '../runtime/interrupt.js';

interface CarryOptions {
  from?: string[];
  move?: boolean;
  force?: boolean;
  dryRun?: boolean;
}

export function registerCarry(program: Command, ctx: Context): void {
  program
    .command('carry')
    .description('bring the unfinished work of an earlier list (an ended or /clear-ed session) into the list in use')
    .argument('[ids...]', 'only these tasks of the --from list (and the unfinished tasks they wait for)')
    .option(
      '--from <list|session>',
      'carry from this list, or the list of this session (repeat for more); default: the latest earlier list of this project with unfinished work',
      collect,
    )
    .option('--move', 'delete the carried tasks from their list (default: mark them there, metadata.carriedTo)')
    .option('--force', 'carry from a list a live agent works on (its work would be taken from it)')
    .option('-n, --dry-run', 'say what would be carried, with the new ids; write nothing')
    .addHelpText(
      'after',
      `
/clear, a new session, plan mode's "clear context" and --fork-session each start an empty
list and leave the old one on disk, out of the agent's sight. carry brings the unfinished
tasks (pending or in progress; not internal, not carried before) into the list in use:
the live session's (even before its first task), or the one named or bound.

  - new ids from the target list, old -> new printed (and in --json);
  - dependencies follow: edges between carried tasks are kept; an edge to a completed
    task left behind is dropped; an unfinished blocker is carried too (the task still
    waits for it); an edge to a task carried before into the same list follows it;
  - an owner whose session is over is cleared (in_progress goes back to pending);
  - each source task is marked carriedTo {list, id} in its metadata, or deleted (--move);
  - a list a live agent works on is refused (exit 4) without --force.

Default source: the lists of the sessions this one replaced (/clear; "cleared -> <id>" in
tasks lists), then those of the project's ended sessions, newest first: the first with
unfinished work. tasks undo takes a carry back, in both lists.

Examples:
  tasks carry --dry-run
  tasks carry
  tasks carry --from 2d483082 --move
  tasks --session 7baec0ff carry --from 2d483082 3 5
  tasks carry --json | jq '.from[].ids'`,
    )
    .action(async (rawIds: string[], opts: CarryOptions) => {
      const ids = rawIds.length > 0 ? parseIdArguments('carry', rawIds) : undefined;
      const dryRun = Boolean(opts.dryRun);
      const choice = ctx.list(true, { creates: true, dryRun });
      const outcome = await withInterrupt((signal) =>
        carryWork(ctx.sessions, {
          target: { id: choice.id, dir: choice.dir, projectDir: choice.projectDir, replaced: choice.replaced },
          from: opts.from,
          ids,
          move: Boolean(opts.move),
          force: Boolean(opts.force),
          dryRun,
          person: ctx.person,
          cwd: ctx.cwd,
          home: ctx.home,
          now: () => performance.now(),
          signal,
          onLists: (lists) => {
            ctx.journal.marks = { lists };
          },
          listWords: (id) => ctx.listWords(id),
        }),
      );
      const shortId = (id: string) => ctx.shortId(id);
      const words = (id: string) => ctx.listWords(id);
      for (const w of carryWarnings(outcome, shortId, words)) ctx.io.warn(w, 'carry_warning');
      if (ctx.io.json) {
        const times = dryRun
          ? undefined
          : taskFileTimes(
              choice.dir,
              outcome.created.map((t) => t.id),
            );
        ctx.io.out(renderJson(carryJson(outcome, times)));
      } else {
        const body = renderCarry(outcome, ctx.io.style, shortId);
        if (body !== '') ctx.io.out(body);
      }
      for (const n of renderCarrySummary(outcome, shortId, words)) ctx.io.note(n.text, n.code, n.facts);
    });
}
