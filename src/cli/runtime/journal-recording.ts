import type { Command } from 'commander';
import { TasksError } from '../../core/base/errors.js';
import type { Actor } from '../../core/history/journal.js';
import { newTxn, startRecording } from '../../core/history/recorder.js';
import { renderJournalCut, renderJournalNotWritten } from '../../render/log-lines.js';
import type { Context } from './context.js';

/**
 * Every run records what it changes in each list's journal (history/journal.ts), each
 * change with its write: who (the `--as` agent where the command has one, with the Claude
 * Code session it runs in when `$CLAUDE_CODE_SESSION_ID` says; else the person by login
 * name), which command, and every task write. Runs that change nothing record nothing. A
 * journal that cannot be written is a warning; the change stands.
 */
export function recordChanges(ctx: Context, command: Pick<Command, 'name' | 'opts'>): { stop: () => void } {
  const ownTxn = newTxn(ctx.now(), process.pid);
  const as = asOf(command);
  let actor: Actor | undefined;
  const recording = startRecording({
    // Who, worked out at the first write: a run that writes nothing (a read) never looks
    // up the person's login name (os.userInfo where $USER is not set, which loads node:os).
    get actor() {
      actor ??= actorOf(ctx, as);
      return actor;
    },
    command: command.name(),
    txn: () => ctx.journal.txn ?? ownTxn,
    marks: () => ctx.journal.marks,
    now: () => new Date(ctx.now()),
    onCut: (_listDir, ids) => ctx.io.warn(renderJournalCut([...new Set(ids)]), 'journal_cut', { ids: [...new Set(ids)] }),
    onError: (listDir, err) =>
      ctx.io.warn(renderJournalNotWritten(listDir, err), 'journal_not_written', {
        file: `${listDir}/.tasks-journal.jsonl`,
        reason: (err as Error).message,
      }),
  });
  ctx.journal = { marks: {}, end: (listDir) => recording.mark(listDir, { end: true }), txnInUse: () => ctx.journal.txn ?? ownTxn };
  return { stop: recording.stop };
}

/**
 * `--as <name>` makes the change an agent's, unless the name is the person's own login
 * name (`--as @me`): owners people set stay people's. An agent running `tasks` from a
 * Claude Code session (its Bash tool) is tied to that session.
 */
/** The command's `--as`, checked before the command runs. */
function asOf(command: Pick<Command, 'opts'>): unknown {
  const raw = (command.opts() as { as?: unknown }).as;
  if (typeof raw === 'string' && raw.trim() === '') throw new TasksError('usage', '--as cannot be empty');
  return raw;
}

function actorOf(ctx: Context, raw: unknown): Actor {
  const as = raw === '@me' ? ctx.person : raw;
  if (typeof as !== 'string' || as === '' || as === ctx.person) return { kind: 'person' as const, name: ctx.person ?? 'unknown' };
  const session = ctx.env.CLAUDE_CODE_SESSION_ID;
  return { kind: 'agent' as const, name: as, ...(session ? { session } : {}) };
}
