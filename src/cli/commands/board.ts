import os from 'node:os';
import type { Command } from 'commander';
import { startHostsBoard } from '../../board/board-hosts.js';
import { type OpenFile, writeOpenFile } from '../../board/board-open-file.js';
import { type RunningBoard, startBoard } from '../../board/board-server.js';
import { TasksError } from '../../core/base/errors.js';
import { requireTasksRootFolder } from '../../core/lists/list-choice.js';
import { renderJson } from '../../render/json.js';
import { parseListenAddress, parsePort } from '../flags/parse.js';
import type { Context, GlobalOptions } from '../runtime/context.js';
import { EXIT } from '../runtime/exit-codes.js';
import { nextSignal } from '../runtime/interrupt.js';
import { openBrowser } from '../runtime/open-browser.js';

interface BoardOptions {
  port?: string;
  listen?: string;
  open?: boolean;
  readOnly?: boolean;
  newToken?: boolean;
}

export function registerBoard(program: Command, ctx: Context): void {
  program
    .command('board')
    .description("every list in the browser, live: sessions, columns, the dependency graph, history; changes made under the agents' locks")
    .option('--port <n>', "the port to listen on (default: the last start's when free, else any free one)")
    .option(
      '--listen <address>',
      'listen on this address instead of 127.0.0.1 (anyone who can reach it and learns the URL can use the board); it was --host, which is now -H, the host a command runs on',
    )
    .option('--open', 'open the board in the default browser (through a private file: the token is on no command line)')
    .option('--read-only', 'show only: no action is served')
    .option('--new-token', 'a new token in the URL: the old URL (a bookmark, one that leaked) stops working')
    .addHelpText(
      'after',
      `
Prints the board's URL on stdout (--json: {url, port, host, readOnly, pid}) and serves it
until Ctrl-C (exit 130) or SIGTERM (exit 0). The URL holds a random token that every
request needs, kept (with the port) in a file only you can read in
$XDG_STATE_HOME/tasks (~/.local/state/tasks), so that the URL stays the same across
restarts; --new-token replaces it. The board answers only to 127.0.0.1, localhost and
[::1] as Host, and to actions from its own page. It opens on the Now view (every list at
once: what needs a person, the work in progress, what just happened), and shows what tasks lists, list and log show; every change
(start, done, reopen, reassign, release, release of gone owners, block, unblock, create,
delete, undo, redo) goes through the same core as the commands, recorded as yours (your
login name), with the hooks of the folder it was started in, and with the state the card
showed as its precondition: a change an agent made meanwhile is shown as a conflict, and
nothing is written.

With -H (several times), --hosts or $TASKS_HOST, it shows those machines' boards, not
this one's: each host's board runs there (tasks board-feed, over your ssh; nothing
listens there), this one merges them (a group per host, the Now view across them),
and each action is run by the host that has the list. A host not reached is a banner on
the page, tried again by itself; when none can be reached at the start: exit 8.

Examples:
  tasks board --open
  tasks board --read-only --port 8080
  tasks board --new-token            the old URL stops working
  tasks -l refactor-auth board       opens on that list
  tasks board -H devbox -H ci-7      the boards of two machines, as one
  tasks -H devbox -l web board       devbox's board, open on its list web`,
    )
    .action(async (opts: BoardOptions) => {
      const port = parsePort('--port', opts.port);
      const host = parseListenAddress('--listen', opts.listen, '127.0.0.1');
      const readOnly = Boolean(opts.readOnly);
      // -H, --hosts: the boards of those hosts (run there over ssh), and not this machine's, as every -H command.
      const hosts = ctx.hostFeeds ?? [];
      const globals = ctx.globals();
      const naming = globals.list !== undefined || globals.session !== undefined;
      // A list named with several hosts: each may have one of that name; which to open on is not ours to guess.
      if (naming && hosts.length > 1)
        throw new TasksError(
          'usage',
          'board: -l and --session name a list on one host; with several hosts, open the board and pick it there',
          {
            hint: `tasks -H ${hosts[0]?.label} ${globals.list !== undefined ? `-l ${globals.list}` : `--session ${globals.session}`} board`,
          },
        );
      if (hosts.length === 0) requireTasksRootFolder(ctx.configDir);
      const named = hosts.length === 0 && naming ? ctx.list(false).id : undefined;
      // Each action is recorded in the journal as one change of its own, not as this run's.
      ctx.stopJournal();
      const stateHome = { xdgStateHome: ctx.env.XDG_STATE_HOME, home: ctx.env.HOME || undefined, uid: ctx.settingsPlaces.uid };
      const warn = (message: string) => ctx.io.warn(message, 'board_warning');
      const board: RunningBoard & { opensOn?: string } =
        hosts.length > 0
          ? await startHostsBoard(
              hosts.map((h) => ({ label: h.label, connect: () => h.connect(feedArgs(globals)), deadlineMs: h.deadlineMs })),
              { host, port, readOnly, stateHome, newToken: Boolean(opts.newToken), warn, named: naming },
            )
          : await startBoard({ ...ctx.boardPlace(), host, port, readOnly, stateHome, newToken: Boolean(opts.newToken), warn });
      const stopped = nextSignal();
      if (!board.loopbackOnly) {
        ctx.io.warn(
          `listening on ${host}, not only on this machine: anyone who can reach ${host}:${board.port} and learns the URL (its token) can read and change every list`,
          'board_exposed',
          { host },
        );
      }
      const opensOn = named ?? board.opensOn;
      const url = opensOn === undefined ? board.url : `${board.url}#list=${encodeURIComponent(opensOn)}`;
      if (ctx.io.json) ctx.io.out(renderJson({ url, port: board.port, host, readOnly, pid: process.pid }));
      else ctx.io.out(url);
      if (ctx.io.stderrIsTTY && !ctx.io.json) ctx.io.note(`tasks board${readOnly ? ' (read-only)' : ''}: Ctrl-C stops it`, 'board');
      let openFile: OpenFile | undefined;
      if (opts.open) {
        const warn = (message: string) => ctx.io.warn(message, 'browser_not_opened');
        try {
          // The browser is given a private file that redirects to the URL: a command line is no place for its token.
          openFile = writeOpenFile(url, { runtimeDir: ctx.env.XDG_RUNTIME_DIR, tmpDir: os.tmpdir(), uid: ctx.settingsPlaces.uid });
          openBrowser(openFile.file, process.platform, warn);
        } catch (err) {
          warn(`could not open a browser (the file that opens the board: ${(err as Error).message}); open the URL yourself`);
        }
      }
      const received = await stopped;
      // Hooks of an action under way are stopped; its locked writes finish; then no lock is left.
      await board.stop();
      openFile?.remove();
      ctx.io.setExit(received === 'SIGINT' ? EXIT.interrupted : EXIT.ok);
    });
}

/** The global options a host's board takes as its own (the list to open on, the Claude folder there). */
function feedArgs(g: GlobalOptions): string[] {
  return [
    ...(g.list === undefined ? [] : ['-l', g.list]),
    ...(g.session === undefined ? [] : ['--session', g.session]),
    ...(g.configDir === undefined ? [] : ['--config-dir', g.configDir]),
  ];
}
