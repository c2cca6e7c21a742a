import type { Command } from 'commander';
import { TasksError } from '../../core/base/errors.js';
import { createdOutsideRecord, mergeTimelines, readTimeline, type Timeline } from '../../core/history/timeline.js';
import { readChosen } from '../../core/lists/chosen-tasks.js';
import type { ListChoice } from '../../core/lists/list-choice.js';
import { listIds } from '../../core/lists/list-summary.js';
import { sessionsOfList } from '../../core/sessions/list-sessions.js';
import { parseTaskId } from '../../core/store/ids.js';
import { listDirOf } from '../../core/store/paths.js';
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
      const targets = opts.all ? listIds(ctx.configDir).map((id) => ({ id, dir: listDirOf(ctx.configDir, id) })) : [ctx.list(false)];
      if (opts.all && targets.length === 0) ctx.io.note(`no task lists under ${ctx.configDir}`, 'no_lists');
      const timelines: Timeline[] = await withInterrupt(async (signal) => {
        const read: Timeline[] = [];
        for (const { id, dir } of targets) {
          // A named list's sessions are found by their transcripts (the Task tools' results name its tasks).
          const sessions = sessionsOfList(ctx.sessions, id, { deep: true });
          read.push(await readTimeline(dir, { listId: id, sessions, signal, unrecorded: true }));
        }
        return read;
      }).catch((err: unknown) => {
        if ((err as Error)?.name === 'AbortError') throw new TasksError('interrupted', 'log stopped');
        throw err;
      });
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
      const single = timelines[0];
      // The list's tasks now (none yet for a live session's list before its first task).
      const chosen = opts.all ? undefined : (targets[0] as ListChoice | undefined);
      const onDisk = () => (chosen === undefined ? [] : readChosen(chosen).tasks.map((t) => t.id));
      if (task !== undefined && single !== undefined) {
        const known = single.events.some((e) => e.task === task) || onDisk().some((id) => id === task);
        if (!known)
          throw new TasksError('not_found', `task #${task} not found, and no change to it is recorded`, { details: { id: task } });
      }
      let events = mergeTimelines(timelines).filter((e) => task === undefined || e.task === task);
      if (since !== undefined) events = events.filter((e) => Date.parse(e.at) >= since);
      if (until !== undefined) events = events.filter((e) => Date.parse(e.at) <= until);
      if (limit !== undefined) events = events.slice(-limit);
      if (ctx.io.json) {
        ctx.io.out(renderJson(logJson(events)));
        return;
      }
      if (!opts.all && single !== undefined) {
        for (const n of renderLogNotes(single, task)) ctx.io.note(n, 'log_record');
        const ids = onDisk();
        const outside = renderUnrecordedCreations(
          createdOutsideRecord(single.events, task === undefined ? ids : ids.filter((id) => id === task)),
        );
        if (outside !== undefined) ctx.io.note(outside, 'log_record');
      }
      if (events.length === 0) return;
      const lists = Boolean(opts.all);
      ctx.io.out(ctx.io.humanLayout ? renderLogLines(events, ctx.io.style, { lists }) : renderLogTsv(events, { lists }));
    });
}
