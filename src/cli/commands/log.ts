import type { Command } from 'commander';
import { TasksError } from '../../core/base/errors.js';
import { gapsOf, readTimeline } from '../../core/history/timeline.js';
import { readChosen } from '../../core/lists/chosen-tasks.js';
import { parseTaskId } from '../../core/store/ids.js';
import { readTasks } from '../../core/store/list-read.js';
import { renderJournalDamage, renderLogLines, renderLogNotes } from '../../render/log-lines.js';
import { PLAIN } from '../../render/style.js';
import { parseDuration } from '../flags/duration-flags.js';
import { parsePositiveInt } from '../flags/parse.js';
import type { Context } from '../runtime/context.js';

interface LogOptions {
  since?: string;
  limit?: string;
}

export function registerLog(program: Command, ctx: Context): void {
  program
    .command('log')
    .description('who changed what, and when: the changes made with tasks and by agents, oldest first')
    .argument('[id]', 'only this task')
    .option('--since <duration>', 'only changes in the last <duration> (durations: see tasks --help)')
    .option('--limit <n>', 'only the last <n> changes')
    .addHelpText(
      'after',
      `
Two records are merged: the journal of the changes made with tasks (<list>/.tasks-journal.jsonl:
who, with which command, every field before and after) and the transcripts of the Claude Code
sessions the list belongs to (every TaskCreate and TaskUpdate, with its time; subagents too).
A change seen in neither (a hand edit, a transcript since deleted, a list named by
CLAUDE_CODE_TASK_LIST_ID, whose sessions are not known) cannot be named: the log says where
its record starts. An old value a transcript does not state is shown as "→ new".

--json: one object per line (NDJSON): {at, task, op, who: {kind, name, session}, changes:
{field: {old, new}}, source: "journal" | "transcript", command}.

Examples:
  tasks log
  tasks log 4
  tasks log --since 2h --json | jq -c 'select(.who.kind == "person")'`,
    )
    .action((rawId: string | undefined, opts: LogOptions) => {
      const task = rawId === undefined ? undefined : parseTaskId(rawId);
      const since = opts.since === undefined ? undefined : Date.now() - parseDuration('--since', opts.since);
      const limit = parsePositiveInt('--limit', opts.limit);
      const choice = ctx.list(false);
      const { id: listId, dir } = choice;
      const timeline = readTimeline(dir, { index: ctx.sessions, listId, task, deep: true });
      for (const d of timeline.damaged) ctx.io.warn(renderJournalDamage(d));
      if (task !== undefined && timeline.events.length === 0 && readTasks(dir, [task]).length === 0) {
        throw new TasksError('not_found', `task #${task} not found, and no change to it is recorded`, { details: { id: task } });
      }
      let events = timeline.events;
      if (since !== undefined) events = events.filter((e) => Date.parse(e.at) >= since);
      if (limit !== undefined) events = events.slice(-limit);
      if (ctx.io.json) {
        if (events.length > 0) ctx.io.out(events.map((e) => JSON.stringify(e)).join('\n'));
        return;
      }
      const tasks = readChosen(choice).tasks.filter((t) => task === undefined || t.id === task);
      const gaps = gapsOf(timeline.events, tasks);
      for (const n of renderLogNotes({ task, first: timeline.events[0], transcripts: timeline.transcripts, gaps })) ctx.io.note(n);
      if (events.length > 0) ctx.io.out(renderLogLines(events, ctx.io.humanLayout ? ctx.io.style : PLAIN));
    });
}
