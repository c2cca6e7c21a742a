import type { Command } from 'commander';
import { type LogView, readLog } from '../../core/history/log-view.js';
import type { Timeline } from '../../core/history/timeline.js';
import { parseTaskId } from '../../core/store/ids.js';
import { logJson } from '../../render/history-json.js';
import { renderJson } from '../../render/json.js';
import {
  renderJournalDamage,
  renderJournalProblem,
  renderLogLines,
  renderLogNotes,
  renderLogTsv,
  renderUnrecordedCreations,
} from '../../render/log-lines.js';
import { parsePositiveInt } from '../flags/parse.js';
import { parseTimeFlag, TIME_HELP } from '../flags/time-flags.js';
import { type Context, usage } from '../runtime/context.js';
import { withInterrupt } from '../runtime/interrupt.js';

interface LogOptions {
  since?: string;
  until?: string;
  limit?: string;
  all?: boolean;
}

export function registerLog(program: Command, ctx: Context): void {
  program
    .command('log')
    .alias('history')
    .description('who changed what, and when: the changes made with tasks and by agents, oldest first')
    .argument('[id]', 'only this task')
    .option('--since <time>', `only changes since <time>: ${TIME_HELP}`)
    .option('--until <time>', 'only changes up to <time> (the same forms)')
    .option('--limit <n>', 'only the last <n> changes')
    .option('-a, --all', 'every list under the config folder, with a list column')
    .addHelpText(
      'after',
      `
Two records are merged: the journal of the changes made with tasks (<list>/.tasks-journal.jsonl:
who, with which command, every field before and after) and the transcripts of the Claude Code
sessions the list belongs to (every TaskCreate and TaskUpdate, with its time; subagents too).
Each change is counted once, in the list it happened in: a forked session's copies of its
parent's entries count in the parent's list. What no record explains (a hand edit, an agent
whose transcript is not known, Claude Code keeping a status itself) is a line of its own,
with its likely cause. An old value a transcript does not state is shown as "→ new".

Piped: one change a line, tab-separated, nothing cut: time, [list,] task, who, what.
--json: one array, [] when nothing is recorded, of {at, list, task, op, who: {kind, name,
session}, changes: {field: {old, new}}, source: "journal" | "transcript" | "files",
command, txn[, cause]}; an absent field is a missing old or new, an old no record tells
is "oldUnknown": true.

Examples:
  tasks log
  tasks log 4
  tasks log --since 2026-12-01T09:00 --until 2h
  tasks log --all | grep 'alice (person)'
  tasks log --since 2h --json | jq -c '.[] | select(.who.kind == "person")'`,
    )
    .action(async (rawId: string | undefined, opts: LogOptions) => {
      const task = rawId === undefined ? undefined : parseTaskId(rawId);
      if (task !== undefined && opts.all) throw usage('give a task id or --all, not both');
      const now = ctx.now();
      const since = opts.since === undefined ? undefined : parseTimeFlag('--since', opts.since, now);
      const until = opts.until === undefined ? undefined : parseTimeFlag('--until', opts.until, now);
      const limit = parsePositiveInt('--limit', opts.limit);
      const lists = opts.all ? { all: ctx.configDir } : ctx.list(false);
      const log = await withInterrupt((signal) =>
        readLog({ lists, task, since, until, limit, sessions: ctx.sessions, json: ctx.io.json, signal }),
      );
      if (opts.all && log.listCount === 0) ctx.io.note(`no task lists under ${ctx.configDir}`, 'no_lists');
      tellRecordProblems(ctx, log.timelines);
      if (log.notFound !== undefined) throw log.notFound;
      if (ctx.io.json) ctx.io.out(renderJson(logJson(log.events)));
      else showLog(ctx, log, { task, lists: Boolean(opts.all) });
    });
}

/** Journals that cannot be read, and their lines skipped as damaged: warnings, each list's. */
function tellRecordProblems(ctx: Context, timelines: readonly Timeline[]): void {
  for (const timeline of timelines) {
    for (const p of timeline.problems) ctx.io.warn(renderJournalProblem(p), 'journal_not_read', { list: timeline.list, reason: p });
    for (const d of timeline.damaged)
      ctx.io.warn(renderJournalDamage(d), 'journal_line_skipped', {
        list: timeline.list,
        file: d.file,
        line: d.line ?? null,
        reason: d.reason,
      });
  }
}

/** For a person: what the record of one list leaves out (on stderr), then the changes. */
function showLog(ctx: Context, log: LogView, o: { task: string | undefined; lists: boolean }): void {
  if (log.single !== undefined) {
    for (const n of renderLogNotes(log.single.timeline, o.task)) ctx.io.note(n, 'log_record');
    const outside = renderUnrecordedCreations(log.single.createdOutside);
    if (outside !== undefined) ctx.io.note(outside, 'log_record');
  }
  if (log.events.length === 0) return;
  ctx.io.out(
    ctx.io.humanLayout
      ? renderLogLines(log.events, ctx.io.style, { lists: o.lists, listName: (id) => ctx.shortId(id) })
      : renderLogTsv(log.events, { lists: o.lists }),
  );
}
