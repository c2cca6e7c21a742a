import os from 'node:os';
import type { Command } from 'commander';
import { requireConfigDir } from '../../core/lists/list-choice.js';
import { type Delivery, type NotifyLists, runNotify } from '../../core/notify/notifier.js';
import { NOTIFY_EVENTS, parseEvents, parseTarget, shownTarget } from '../../core/notify/notify-plan.js';
import { deliveryJson, renderDelivery, renderFailed, renderRetry, renderStarted, terminalBell } from '../../render/notify-lines.js';
import { parseDuration } from '../flags/duration-flags.js';
import { collect } from '../flags/parse.js';
import { type Context, usage } from '../runtime/context.js';
import { EXIT } from '../runtime/exit-codes.js';
import { INTERRUPTS, withInterrupt } from '../runtime/interrupt.js';
import { ownSessionTest } from '../runtime/own-session.js';

interface NotifyOptions {
  /** Not given: undefined (a default of [] would show in the help as "(default: [])"). */
  to?: string[];
  on?: string[];
  stalled: string;
  once?: boolean;
  all?: boolean;
  here?: boolean;
  retries: string;
}

const HELP = `
Runs in the foreground until stopped (Ctrl-C, SIGTERM, SIGHUP: exit 0), and tells each
event once, to every target:
  list-completed     every task of a list is completed and no session of the list is
                     at work (busy on a turn, or just started): it may yet add tasks
  needs-you          a session of a list waits for a person (a permission prompt,
                     a dialog); once per waiting spell
  ready-for-person   a task owned by a person (you, or an owner a person gave with
                     tasks) is open with no open blocker: it waits on them
  stalled            a task in progress, unchanged for --stalled, no session at work
                     or waiting for a person
                     (a busy session whose transcript is as quiet is not at work)
  agent-died         an agent holds work in progress, but its session ended or crashed
  work-left          the last session of a list ended or crashed (not /clear) with
                     tasks still open, none held by an agent gone (told as agent-died);
                     the last 30 minutes
  hook-refused       a TaskCreated or TaskCompleted hook refused an agent's change
                     (read from the session's transcript; the last 30 minutes)
  blocked-cycle      tasks block each other: none can ever start (tasks check)
  damage             a task file agents cannot read, and other check errors

Targets (--to, repeatable):
  desktop            notify-send (Linux, D-Bus), osascript (macOS), else the
                     terminal's bell and OSC 9; the start note says which
  ntfy:<url>         an ntfy topic (ntfy.sh or your own): Title, Priority, Tags
                     headers, and Click with --click
  webhook:<url>      a POST of one JSON document per event (docs/schemas/
                     notify-message.schema.json); Slack incoming webhooks get
                     {"text": ...}, Discord's {"content": ...}
  exec:<command>     run by /bin/sh with the same JSON document on stdin
A URL's path, query and credentials are never printed: logs show the host only.

Once per event: what was sent is kept in $XDG_STATE_HOME/tasks (~/.local/state/tasks),
claimed under a lock before it is sent, so a restart does not repeat it and two notify
processes never both send it; an event that clears and comes back is told again.
A state file that cannot be read is kept aside as <file>.bad (.bad-<ms> beside an
earlier one) and started anew, with a warning: events told before may be told again.
Where that folder cannot be written, notify exits 1 at the start, having sent nothing.
A target that fails is tried again (--retries, waits doubling from 1 s), on its own:
a slow or dead webhook never holds up the others. Failures go to stderr, and what
could not be sent is told again by the next run (the next --once, a restart).

Output: a line per notification sent on stdout; with --json one object per line
(docs/schemas/notify.schema.json).

Examples:
  tasks notify --to desktop
  tasks notify --all --to ntfy:https://ntfy.sh/my-secret-topic --on agent-died,stalled --stalled 20m
  tasks notify --here --to webhook:https://hooks.slack.com/services/T000/B000/XXXX
  tasks notify -l app --to 'exec:jq -r .text >> ~/agents.log' --once`;

export function registerNotify(program: Command, ctx: Context): void {
  program
    .command('notify')
    .description('tell a person when the agents need them: on the desktop, a phone (ntfy), a webhook or a command')
    .option('--to <target>', 'where to send: desktop, ntfy:<url>, webhook:<url>, exec:<command> (repeatable)', collect)
    .option('--on <events>', `which events (comma-separated, repeatable; default all): ${NOTIFY_EVENTS.join(', ')}`, collect)
    .option('--stalled <duration>', 'how long a task in progress may go unchanged before it is stalled', '30m')
    .option('-a, --all', 'follow every list under the config folder, and new ones as they appear')
    .option('--here', 'follow the lists of sessions that ran in the current directory or below it')
    .option('--once', 'look once, send what is new, and exit (for cron and CI)')
    .option('--click <url>', "the link a notification opens (ntfy's Click header), such as your board's address")
    .option('--retries <n>', 'how many times a failed send is tried in all', '5')
    .addHelpText('after', HELP)
    .action(async (opts: NotifyOptions & { click?: string }) => {
      const to = opts.to ?? [];
      if (to.length === 0) throw usage('--to: name where to send (desktop, ntfy:<url>, webhook:<url>, exec:<command>)');
      const targets = to.map(parseTarget);
      const events = parseEvents(opts.on);
      const stalledMs = parseDuration('--stalled', opts.stalled);
      if (stalledMs <= 0) throw usage('--stalled must be longer than 0');
      const tries = Number(opts.retries);
      if (!Number.isInteger(tries) || tries < 1 || tries > 20) throw usage(`--retries ${opts.retries}: a whole number from 1 to 20`);
      if (opts.all && opts.here) throw usage('--all and --here cannot be used together');
      if ((opts.all || opts.here) && ctx.globals().list !== undefined) throw usage('-l names one list: it goes without --all and --here');
      if (opts.click !== undefined && !/^https?:\/\//.test(opts.click)) throw usage(`--click ${opts.click}: an http or https URL`);
      requireConfigDir(ctx.configDir);
      let lists: NotifyLists;
      if (opts.all) lists = { all: true };
      else if (opts.here) {
        if (ctx.cwd === undefined) throw usage('--here: the current directory no longer exists');
        lists = { here: ctx.cwd };
      }
      // Following, a list may be named before its first task makes its folder (it is waited for,
      // as watch waits); looking once at a list that does not exist is a mistake: not_found.
      else lists = { one: ctx.list(false, { mayBeMissing: !opts.once }) };
      await notify(ctx, { lists, targets, events, stalledMs, tries, once: Boolean(opts.once), click: opts.click });
    });
}

async function notify(
  ctx: Context,
  o: {
    lists: NotifyLists;
    targets: ReturnType<typeof parseTarget>[];
    events: ReturnType<typeof parseEvents>;
    stalledMs: number;
    tries: number;
    once: boolean;
    click: string | undefined;
  },
): Promise<void> {
  const { io, env } = ctx;
  const number = (name: string, fallback: number) => {
    const n = Number(env[name]);
    return env[name] !== undefined && Number.isFinite(n) && n >= 0 ? n : fallback;
  };
  const told = (d: Delivery) => {
    if (io.json) io.out(deliveryJson(d, Date.now()));
    else if (d.ok) io.out(renderDelivery(d, io.style));
    if (!d.ok) io.warn(renderFailed(d), 'notify_failed', { target: d.target, event: d.message.event, list: d.message.list });
  };
  const result = await withInterrupt(
    (interrupted) => {
      // stdout's reader gone (`tasks notify ... | head -1`) stops notify as a signal does, not
      // the process at once: what it claimed is sent first, or no run would ever send it.
      const stopping = new AbortController();
      const stop = stopping.signal;
      interrupted.addEventListener('abort', () => stopping.abort(), { once: true });
      const offReaderGone = io.onReaderGone(() => stopping.abort());
      return runNotify(
        {
          configDir: ctx.configDir,
          lists: o.lists,
          events: o.events,
          targets: o.targets,
          stalledMs: o.stalledMs,
          once: o.once,
          person: ctx.person,
          home: ctx.home,
          host: os.hostname(),
          sessions: () => ctx.newSessionIndex(),
          ownSession: ownSessionTest(env),
          shortId: (id) => ctx.shortId(id),
          stateHome: { xdgStateHome: env.XDG_STATE_HOME, home: env.HOME || undefined },
          deliver: {
            env,
            platform: process.platform,
            timeoutMs: number('TASKS_NOTIFY_TIMEOUT_MS', 10_000),
            click: o.click,
            bell: (title, text) => {
              if (!io.stderrIsTTY) return false;
              io.writeErr(terminalBell(title, text));
              return true;
            },
          },
          retry: {
            tries: o.tries,
            baseMs: number('TASKS_NOTIFY_BACKOFF_MS', 1000),
            againMs: number('TASKS_NOTIFY_RESEND_MS', 60_000) || 60_000,
          },
          clock: { now: () => Date.now() },
          stop,
          tickMs: number('TASKS_NOTIFY_TICK_MS', 2000) || 2000,
        },
        {
          started: (s) =>
            io.note(
              renderStarted({ ...s, shown: (id) => ctx.shortId(id), events: o.events, targets: o.targets.map(shownTarget), once: o.once }),
              'notify_following',
              { lists: s.lists, events: o.events, targets: o.targets.map(shownTarget), desktop: s.desktop ?? null },
            ),
          delivered: told,
          retrying: (r) => io.warn(renderRetry(r), 'notify_retry', r),
          warn: (message) => io.warn(message, 'notify_warning'),
        },
      ).finally(offReaderGone);
    },
    [...INTERRUPTS, 'SIGHUP'],
  );
  if (o.once && result.failed > 0) io.setExit(EXIT.failure);
}
