import type { Command } from 'commander';
import { serveFeed } from '../../board/board-feed.js';
import { localBoard } from '../../board/board-server.js';
import { TasksError } from '../../core/base/errors.js';
import type { Context } from '../runtime/context.js';
import { nextSignal } from '../runtime/interrupt.js';

/**
 * `tasks board-feed`: what `tasks board -H <host>` runs on the host, over ssh. Not for
 * people (hidden from --help): this machine's board, served as JSON lines on stdin and
 * stdout (board-feed.ts) until stdin ends or a signal comes.
 */
export function registerBoardFeed(program: Command, ctx: Context): void {
  program
    .command('board-feed', { hidden: true })
    .description("the board of this machine's lists over stdin and stdout, for tasks board -H on another machine")
    .action(async () => {
      // Each action is recorded in the journal as one change of its own, not as this run's.
      ctx.stopJournal();
      const backend = localBoard({ ...ctx.boardPlace(), readOnly: false, warn: (message) => ctx.io.warn(message, 'board_warning') });
      const stopping = new AbortController();
      void nextSignal().then(() => stopping.abort());
      await serveFeed(backend, { input: ctx.io.stdin.stream(), write: (line) => ctx.io.write(line) }, stopping.signal, namedList(ctx));
    });
}

/**
 * `tasks -H box -l web board`: the list named, found here as any command here finds it
 * (exact name, unique prefix, --session), for the board there to open on; or why not,
 * which that board says as its own error. The feed serves either way.
 */
function namedList(ctx: Context): { list?: string; listError?: { code: string; message: string; hint?: string } } {
  const g = ctx.globals();
  if (g.list === undefined && g.session === undefined) return {};
  try {
    return { list: ctx.list(false).id };
  } catch (err) {
    if (!(err instanceof TasksError)) throw err;
    return { listError: { code: err.code, message: err.message, ...(err.hint === undefined ? {} : { hint: err.hint }) } };
  }
}
