import { type Command, Option } from 'commander';
import { keptListsView, type ListsView } from '../../core/lists/kept-lists.js';
import { requireConfigDir, unusableListEntries } from '../../core/lists/list-choice.js';
import { DEFAULT_STALLED_MS } from '../../core/progress/stalled-work.js';
import { renderJson } from '../../render/json.js';
import {
  renderAgentGoneNote,
  renderListUnreadable,
  renderStallTimeAhead,
  renderStallTimeNotKept,
  renderUntimedTodos,
  renderWaitingLeftOut,
} from '../../render/list-notes.js';
import {
  listJson,
  renderListAliases,
  renderListsLines,
  renderListsTable,
  renderNoListsYet,
  renderTodoWriteHidden,
  renderUnsureSessions,
} from '../../render/lists-table.js';
import { renderNamedElsewhere } from '../../render/restore-report.js';
import {
  renderNothingStalled,
  renderStalledLines,
  renderStalledMarkdown,
  renderStalledTable,
  stalledJson,
} from '../../render/stalled-report.js';
import { nameInLine } from '../../render/text.js';
import { parseDuration } from '../flags/duration-flags.js';
import { type Context, usage } from '../runtime/context.js';

interface ListsOptions {
  here?: boolean;
  live?: boolean;
  all?: boolean;
  stalled?: string | boolean;
  format?: 'text' | 'markdown';
  fresh?: boolean;
}

/** TodoWrite sessions shown without --all: the most recent. A heavy user has hundreds. */
const TODOWRITE_SHOWN = 20;

export function registerLists(program: Command, ctx: Context): void {
  program
    .command('lists')
    .description('every task list, newest first, with the Claude Code session it belongs to: project, branch, state, prompt, counts')
    .option('--here', 'only lists of sessions that ran in the current directory or below it')
    .option('--live', 'only lists of sessions that are running now')
    .option(
      '--fresh',
      'look at every transcript and task file now; without it, a run within 5 minutes of the last such look sees changes by the folders they change (see the guide: which-list.md)',
    )
    .option(
      '-a, --all',
      `everything: lists whose folder is gone while their sessions' transcripts remain (tasks restore brings them back), and every TodoWrite session, not only the ${TODOWRITE_SHOWN} most recent`,
    )
    .option(
      '--stalled [duration]',
      'only stalled work, across every list and TodoWrite session: tasks in progress unchanged this long (default 30m) while no session of theirs is busy, and those whose agent is gone',
    )
    .addOption(
      new Option('--format <format>', 'with --stalled: markdown, a section for $GITHUB_STEP_SUMMARY').choices(['text', 'markdown']),
    )
    .addHelpText(
      'after',
      `
A list belongs to the session whose UUID names it (or session-<first 8 hex>, for sessions
with agent teams), to a team (<config>/teams/<team>/config.json names the team and its
lead session), or, for a list named by CLAUDE_CODE_TASK_LIST_ID, to the sessions whose
transcripts show its tasks. Session facts come from Claude Code's transcripts
(<config>/projects/) and live-session files (<config>/sessions/): live (busy or idle),
ended, crashed (its process is gone without ending the session), or cleared (/clear
moved its process on to another session; "probably cleared" when only times say so: the
same process was not seen on both, nor do their transcripts name one process, and
another session that ended as the new one began would look the same). A live session
that has made no task yet shows as "no tasks yet"; a session that kept TodoWrite todos
shows them, marked (TodoWrite), read-only: the ${TODOWRITE_SHOWN} most recent, and a
count of the others on stderr (--all: every one). LIST shows a session UUID by its shortest unique prefix of at
least 8 characters (read back as a session's: with a dash, or digits and letters); --list
and --session take any unique prefix of four or more of that kind.

Piped: id, total, completed, in_progress, pending, last change, team (-), members (-),
state, cwd, branch, session id, prompt (- where unknown), kind (tasks, new, todowrite,
gone), replaced by (-), how that is known (process, transcripts, or times: probably;
-), tab-separated.

--all adds lists whose folder is gone (deleted, or a session's list removed) while the
transcripts of the sessions that made their tasks remain, marked (gone), with the
tasks those transcripts end with; tasks restore -l <id> brings one back. A session
whose first Task-tool write was not the TaskCreate of #1 wrote into a list that was there
before it (one named in its environment), so its own never existed: it is named on
stderr with the restore -l <name> --from that reads it; a row whose session may have
been on such a list too is marked (gone?) (unsure in --json), as is one whose
directory's binding (tasks use) was written after its first write while the list it
binds has no folder either. This reads
those transcripts whole. (--json has every TodoWrite session without --all; the lists
whose folder is gone only with it.)

--stalled [<duration>] reports stalled work across lists: a task in progress whose file
has not changed for the duration (30m unless told) while no session of its list is at
work (busy on a turn counts only while its transcript grows or a tool call is in
flight), as list --stalled and watch --fail-if-stalled judge it; for a session that keeps TodoWrite todos, an
item in progress whose TodoWrite call is that old. One row a task: LIST, TASK, OWNER,
UNCHANGED, SESSION; piped: list, id, idle ms, owner, session id, session state, subject,
tab-separated; --json: the lists with stalled work, each task in the shape of its file
with idleMs; --format markdown: a section for a CI job's summary. A task whose session
waits for a person (a permission prompt) is waiting, not stalled: left out of the report,
and said apart on stderr (a waiting_for_person note; in Markdown, a table of its own).
A task in progress with no owner whose agent is gone (the session that held it ended or
crashed) is in whatever its age and its list's other sessions, marked as list --stalled
marks it: "45m, agent gone" in red, a "gone" object in --json, and an agent_gone warning on stderr with what gives it back (tasks
release --gone). A task whose owner is gone is judged by its owner (tasks list).

Examples:
  tasks lists
  tasks lists --stalled 1h --format markdown >> "$GITHUB_STEP_SUMMARY"
  tasks lists --here --live
  tasks lists --all
  tasks lists --json | jq -r '.[] | select(.state == "live") | "\\(.id) \\(.cwd)"'`,
    )
    .action(async (opts: ListsOptions) => {
      requireConfigDir(ctx.configDir);
      if (opts.format !== undefined && opts.stalled === undefined) throw usage('--format goes with --stalled');
      if (opts.format === 'markdown' && ctx.io.json) throw usage('--json and --format markdown cannot be used together');
      const stalledAfter =
        opts.stalled === undefined
          ? undefined
          : typeof opts.stalled === 'string'
            ? parseDuration('--stalled', opts.stalled)
            : DEFAULT_STALLED_MS;
      const here = opts.here ? ctx.cwd : undefined;
      if (opts.here && here === undefined) throw usage('--here: the current directory no longer exists');
      // Loaded for --all only: the read bundle's plain `lists` does without it.
      const gone = opts.all ? await (await import('../../core/restore/gone-lists.js')).goneLists(ctx.sessions) : undefined;
      const view = keptListsView(ctx.configDir, ctx.sessions, {
        here,
        live: Boolean(opts.live),
        fresh: Boolean(opts.fresh),
        gone,
        stalled:
          stalledAfter === undefined
            ? undefined
            : {
                afterMs: stalledAfter,
                now: ctx.now(),
                // Only a task with no owner is judged here (asked of those alone: owners cost a named list's
                // transcripts); one whose owner is gone is judged by its owner (tasks list).
                goneHeld: (listId, tasks) =>
                  ctx.goneHeld(
                    listId,
                    tasks.filter((t) => t.owner === undefined || t.owner === ''),
                  ),
              },
      });
      for (const name of view.foreign) {
        ctx.io.warn(
          `skipped ${nameInLine(`tasks/${name}`)}: not a list agents can use (a list id is sanitized to [a-zA-Z0-9_-], so no list id names this folder)`,
          'folder_skipped',
        );
      }
      for (const u of view.unusable ?? unusableListEntries(ctx.configDir)) {
        ctx.io.warn(`skipped ${nameInLine(`tasks/${u.name}`)}: ${u.what}`, 'list_unusable', { path: u.name });
      }
      for (const p of view.teamProblems) ctx.io.warn(`skipped team config ${p.file}: ${p.reason}`, 'team_config_skipped', { file: p.file });
      if (view.elsewhere.length > 0) {
        ctx.io.note(renderNamedElsewhere(view.elsewhere.map((s) => s.sessionId)), 'sessions_elsewhere', {
          sessions: view.elsewhere.map((s) => s.sessionId),
        });
      }
      if (view.stalled !== undefined && stalledAfter !== undefined) {
        reportStalled(ctx, view.stalled, stalledAfter, opts.format ?? 'text');
        return;
      }
      const { lists } = view;
      if (ctx.io.json) {
        ctx.io.out(renderJson(lists.map((l) => listJson(l, l.team))));
        return;
      }
      if (lists.length === 0) {
        ctx.io.note(opts.here || opts.live ? 'no task lists match' : renderNoListsYet(ctx.configDir), 'no_lists');
        return;
      }
      for (const line of renderUnsureSessions(lists)) ctx.io.note(line, 'sessions_unsure');
      for (const l of lists) {
        const line = renderListAliases(l);
        if (line !== undefined) ctx.io.note(line, 'list_aliases', { list: l.id, aliases: l.aliases });
      }
      // Hundreds of old TodoWrite sessions would bury the lists: the most recent, and a count.
      const todoWrite = lists.filter((l) => l.kind === 'todowrite');
      const hidden = opts.all ? new Set() : new Set(todoWrite.slice(TODOWRITE_SHOWN));
      if (hidden.size > 0) ctx.io.note(renderTodoWriteHidden(hidden.size, todoWrite.length), 'todowrite_hidden', { hidden: hidden.size });
      const rows = lists.filter((l) => !hidden.has(l));
      // Piped, the columns keep their places for scripts: what a terminal's "(2 unreadable)" says goes to stderr.
      if (!ctx.io.humanLayout) {
        for (const l of rows) {
          if (l.problems > 0)
            ctx.io.warn(renderListUnreadable(l.id, l.problems), 'list_unreadable_files', { list: l.id, problems: l.problems });
        }
      }
      ctx.io.out(
        ctx.io.humanLayout
          ? renderListsTable(rows, { style: ctx.io.style, now: ctx.now(), width: ctx.io.columns, home: ctx.home })
          : renderListsLines(rows),
      );
    });
}

/** `--stalled`: the stalled work of these rows, as a table, lines, JSON or Markdown. */
function reportStalled(ctx: Context, rows: NonNullable<ListsView['stalled']>, afterMs: number, format: 'text' | 'markdown'): void {
  const now = ctx.now();
  for (const { row, untimed } of rows) {
    if (untimed.length > 0) ctx.io.warn(`${row.id}: ${renderUntimedTodos(untimed)}`, 'stalled_unknown', { list: row.id, ids: untimed });
  }
  for (const { row, ahead } of rows) {
    if (ahead === undefined || ahead.size === 0) continue;
    const ids = [...ahead.keys()];
    const aheadMs = Math.round(Math.max(...ahead.values()));
    ctx.io.warn(`${row.id}: ${renderStallTimeAhead(ids, aheadMs)}`, 'stall_time_ahead', { list: row.id, ids, aheadMs });
  }
  for (const { row, undated } of rows) {
    if (undated === undefined || undated.length === 0) continue;
    ctx.io.warn(`${row.id}: ${renderStallTimeNotKept(undated)}`, 'stall_time_not_kept', { list: row.id, ids: undated });
  }
  const withWork = rows.filter((r) => r.stalled.length > 0);
  // Work that waits for a person is not stalled: said apart, on stderr, so that stdout keeps to stalled work.
  for (const { row, waiting } of rows) {
    const on = waiting[0]?.on;
    if (on === undefined || format === 'markdown') continue;
    const ids = waiting.map((w) => w.task.id);
    ctx.io.note(`${row.id}: ${renderWaitingLeftOut(ids, on)}`, 'waiting_for_person', {
      list: row.id,
      ids,
      session: on.session,
      waitingFor: on.waitingFor ?? null,
    });
  }
  // Stalled work whose agent is gone stays in, marked (as list --stalled marks it); what gives it back is said on stderr.
  for (const { row, stalled } of rows) {
    const held = stalled.flatMap((s) => (s.gone === undefined ? [] : [s.gone]));
    const first = held[0];
    if (first === undefined || format === 'markdown') continue;
    ctx.io.warn(`${row.id}: ${renderAgentGoneNote(held.length, first.why, ['-l', row.id])}`, 'agent_gone', {
      list: row.id,
      ids: held.map((h) => h.task.id),
      session: first.session?.sessionId ?? null,
      why: first.why,
    });
  }
  if (ctx.io.json) {
    ctx.io.out(renderJson(stalledJson(withWork, now)));
    return;
  }
  if (format === 'markdown') {
    ctx.io.out(renderStalledMarkdown(rows, afterMs));
    return;
  }
  if (withWork.length === 0) {
    const waitingTasks = rows.reduce((n, r) => n + r.waiting.length, 0);
    ctx.io.note(renderNothingStalled(afterMs, waitingTasks), 'no_stalled_work');
    return;
  }
  ctx.io.out(
    ctx.io.humanLayout ? renderStalledTable(withWork, { style: ctx.io.style, width: ctx.io.columns }) : renderStalledLines(withWork),
  );
}
