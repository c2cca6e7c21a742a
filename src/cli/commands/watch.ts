import type { Command } from 'commander';
import { countTasks } from '../../core/graph/blockers.js';
import type { Clock } from '../../core/base/clock.js';
import { parseDuration } from '../../core/base/duration-flag.js';
import { TasksError } from '../../core/base/errors.js';
import type { TaskFilter } from '../../core/lists/task-filter.js';
import { formatUntil, parseUntil, UNTIL_FORMS } from '../../core/watch/watch-condition.js';
import { readTasks } from '../../core/store/list-read.js';
import { formatDuration } from '../../render/duration.js';
import { STATUS_WORD } from '../../render/status.js';
import { renderSummary } from '../../render/task-table.js';
import { PLAIN } from '../../render/style.js';
import { usage, type App } from '../app.js';
import { collect } from '../parse.js';
import { processTerminal } from '../terminal.js';
import { LiveSink } from '../watch-live.js';
import { WatchSession, type WatchSink } from '../watch-session.js';
import { StreamSink } from '../watch-stream.js';
import { listFilterFrom } from './list.js';

interface WatchOptions {
  status?: string[];
  owner?: string;
  unowned?: boolean;
  ready?: boolean;
  blocked?: boolean;
  all?: boolean;
  until?: string;
  timeout?: string;
}

const HELP = `
In a terminal: a live view that redraws in place (q or Ctrl-C quits, exit 0).
With --json, or when stdout is not a terminal: NDJSON, one event per line:
  {"event":"snapshot","at":"…","list":"…","exists":true,"tasks":[…]}   first, every task
  {"event":"created"|"deleted","at":"…","task":{…}}
  {"event":"updated","at":"…","task":{…},"changes":{"status":{"old":"pending","new":"completed"}}}
  {"event":"list-cleared","at":"…","tasks":[…]}                        every task vanished at once
  {"event":"end","at":"…","reason":"condition-met|timeout|stopped",…}   last, with counts and tasks

--until conditions (checked at once, then after every change; exit 0 when one holds):
  all-completed         there are tasks, and every one is completed
  ready                 some task is ready to claim (pending, unowned, no open blocker)
  empty                 no tasks (or no list): e.g. an agent reset a finished list
  task:<id>:completed   that task is completed (also :in_progress, :pending)
Filters narrow what is shown and what the conditions speak of (--owner amy --until
all-completed waits for amy's tasks). A list that does not exist yet is waited for.

Exit: 0 condition met or stopped, 124 --timeout passed first, 130 stopped (Ctrl-C, SIGTERM)
before the --until condition held.

Examples:
  tasks watch                                           live view of the list
  tasks watch --until all-completed --timeout 30m --json   CI: wait for the agents
  tasks watch --json | jq -c 'select(.event == "updated") | {id: .task.id, changes}'
  tasks watch --owner amy --until all-completed && echo "amy is done"
  tasks watch --blocked --until empty                    until nothing waits on a blocker`;

function filterLabel(filter: TaskFilter): string | undefined {
  const parts: string[] = [];
  if (filter.statuses) parts.push(`status ${filter.statuses.join(',')}`);
  if (filter.owner !== undefined) parts.push(`owner ${filter.owner}`);
  if (filter.unowned) parts.push('unowned');
  if (filter.ready) parts.push('ready');
  if (filter.blocked) parts.push('blocked');
  return parts.length > 0 ? parts.join(', ') : undefined;
}

export function registerWatch(program: Command, app: App): void {
  program
    .command('watch')
    .description('watch a list live; or stream its changes as NDJSON; or wait until a condition holds')
    .option('-s, --status <status>', 'only these statuses (repeatable, or comma-separated)', collect)
    .option('-o, --owner <name>', 'only tasks owned by <name>')
    .option('--unowned', 'only tasks nobody owns')
    .option('--ready', 'only tasks an agent could claim now: pending, unowned, no open blocker')
    .option('--blocked', 'only unfinished tasks waiting for an open blocker')
    .option('-a, --all', 'include internal tasks (metadata._internal), hidden from agents too')
    .option('-u, --until <condition>', `end with exit 0 when it holds: ${UNTIL_FORMS.join(', ')}`)
    .option('-t, --timeout <duration>', 'end with exit 124 when this passes first: 90s, 5m, 1h, 1h30m')
    .addHelpText('after', HELP)
    .action(async (opts: WatchOptions) => {
      const filter = listFilterFrom(opts);
      if (filter.owner !== undefined && filter.unowned) throw usage('--owner and --unowned cannot be used together');
      if (filter.ready && filter.blocked) throw usage('--ready and --blocked cannot be used together');
      const until = opts.until === undefined ? undefined : parseUntil(opts.until);
      const timeoutMs = opts.timeout === undefined ? undefined : parseDuration(opts.timeout, '--timeout');
      const { id, dir } = app.list(false, { mayBeMissing: true });
      const clock: Clock = { now: () => Date.now() };
      const untilText = until ? formatUntil(until) : undefined;
      if (until?.kind === 'task-status' && readTasks(dir, [until.id]).length === 0) {
        // Likely a typo, but an agent may yet create it: say so now, and wait all the same.
        app.warn(`task #${until.id} does not exist (yet); waiting for it to be created and ${STATUS_WORD[until.status]}`);
      }

      let session: WatchSession | undefined;
      let sink: WatchSink;
      if (app.json || !app.isTTY) {
        sink = new StreamSink(app, id, untilText);
      } else {
        sink = new LiveSink(processTerminal(app.env), {
          listId: id,
          dir,
          until: untilText,
          deadline: timeoutMs === undefined ? undefined : clock.now() + timeoutMs,
          filterLabel: filterLabel(filter),
          style: app.style,
          clock,
          onQuit: () => session?.stop(),
          print: (text) => app.out(text),
        });
      }
      session = new WatchSession({ dir, filter, until, timeoutMs, clock }, sink);
      const outcome = await session.run();

      const where = renderSummary(countTasks(outcome.view.shown, outcome.view.index), PLAIN);
      if (outcome.reason === 'timeout') {
        const waited = `timed out after ${formatDuration(timeoutMs ?? 0)}`;
        throw new TasksError('timeout', until ? `${waited} before ${untilText} held; ${where}` : `${waited}; ${where}`, {
          details: { until: untilText, counts: countTasks(outcome.view.shown, outcome.view.index) },
        });
      }
      if (outcome.reason === 'stopped' && until && !outcome.met) {
        throw new TasksError('interrupted', `stopped before ${untilText} held; ${where}`);
      }
      if (outcome.reason === 'condition-met' && !app.json && app.isTTY) app.note(`${app.errStyle.green('✔')} ${untilText} holds`);
    });
}
