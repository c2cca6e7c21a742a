import type { Command } from 'commander';
import { newTxn, startRecording } from '../../core/history/recorder.js';
import type { Context } from './context.js';

/**
 * Every run records what it changed in each list's journal (history/journal.ts): who
 * (the `--as` agent where the command has one, else the person by login name), which
 * command, and every task write. Runs that change nothing record nothing. A journal that
 * cannot be written is a warning; the change stands.
 */
export function recordChanges(ctx: Context, command: Command): { stop: () => void; flush: () => void } {
  const as = (command.opts() as { as?: unknown }).as;
  const actor =
    typeof as === 'string' && as !== '' ? { kind: 'agent' as const, name: as } : { kind: 'person' as const, name: ctx.person ?? 'unknown' };
  return startRecording({
    actor,
    command: command.name(),
    txn: newTxn(Date.now(), process.pid),
    undoes: () => ctx.undoing,
    now: () => new Date(),
    onCut: (_listDir, ids) =>
      ctx.io.warn(
        `the journal keeps only part of ${[...new Set(ids)].map((id) => `#${id}`).join(', ')} (a value over 16,384 characters): undo cannot restore it in full`,
      ),
    onError: (listDir, err) =>
      ctx.io.warn(`could not record this change in ${listDir}/.tasks-journal.jsonl: ${(err as Error).message}; the change itself is made`),
  });
}
