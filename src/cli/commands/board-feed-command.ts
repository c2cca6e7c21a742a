import type { Command } from 'commander';
import { serveFeed } from '../../board/board-feed.js';
import { localBoard } from '../../board/board-server.js';
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
      await serveFeed(backend, { input: ctx.io.stdin.stream(), write: (line) => ctx.io.write(line) }, stopping.signal);
    });
}
