import { pushAll } from '../base/many-items.js';
import type { Actor, JournalEntry } from './journal.js';

/**
 * The undo stack, as Taskwarrior keeps one, read from the journal alone (a pure function
 * of its entries): every command that changed the list is a step on it, newest on top.
 * `undo` takes back the top step and leaves it for `redo`; another `undo` takes back the
 * one below; `redo` applies again what the last undo took back; a new command clears
 * what is left to redo. `undo --txn` and `undo --since` take steps from anywhere in the
 * stack, and what they took back is one group for `redo`. An undo or redo is never a
 * step itself: undo never takes back an undo (redo does).
 *
 * An undo or redo records its writes like any command, each line naming the txns it
 * takes back (`undoes`) or applies again (`redoes`), and a last line with `end` once every
 * write is made. One without that line was stopped half-way (a kill, a power cut): the
 * next undo or redo finishes it first (undo-run.ts). A journal written before undo had a
 * stack names one txn in `undoes` and no `end`: such an undo was whole, and one that takes
 * back an undo was a redo.
 */
export interface Command {
  txn: string;
  command: string;
  actor: Actor;
  at: string;
  /** Its journal entries, in order. */
  entries: JournalEntry[];
}

export interface Interrupted {
  /** The undo's or redo's own txn. */
  txn: string;
  action: 'undo' | 'redo';
  /** The commands it takes back or applies again. */
  targets: Command[];
  actor: Actor;
  at: string;
}

export interface UndoStack {
  /** Commands that stand, oldest first: the last is what `undo` takes back. */
  done: Command[];
  /** Groups taken back, oldest first: the last is what `redo` applies again. */
  redoable: Command[][];
  /** An undo or redo that did not finish. */
  interrupted: Interrupted | undefined;
  /** Every command by txn. */
  byTxn: Map<string, Command>;
}

function commandsOf(entries: readonly JournalEntry[]): Command[] {
  const byTxn = new Map<string, Command>();
  for (const entry of entries) {
    let cmd = byTxn.get(entry.txn);
    if (cmd === undefined) {
      cmd = { txn: entry.txn, command: entry.command, actor: entry.actor, at: entry.at, entries: [] };
      byTxn.set(entry.txn, cmd);
    }
    cmd.entries.push(entry);
  }
  return [...byTxn.values()];
}

const targetsOf = (cmd: Command, key: 'undoes' | 'redoes'): string[] | undefined => {
  for (const e of cmd.entries) {
    const v = e[key];
    if (v !== undefined) return typeof v === 'string' ? [v] : v;
  }
  return undefined;
};

export function undoStack(entries: readonly JournalEntry[]): UndoStack {
  const commands = commandsOf(entries);
  const byTxn = new Map(commands.map((c) => [c.txn, c]));
  let done: Command[] = [];
  let redoable: Command[][] = [];
  let interrupted: Interrupted | undefined;
  const known = (txns: readonly string[]) => txns.map((t) => byTxn.get(t)).filter((c): c is Command => c !== undefined);
  const isAction = (cmd: Command) => targetsOf(cmd, 'undoes') !== undefined || targetsOf(cmd, 'redoes') !== undefined;
  for (const cmd of commands) {
    let undoes = targetsOf(cmd, 'undoes');
    let redoes = targetsOf(cmd, 'redoes');
    const legacy = cmd.entries.some((e) => typeof e.undoes === 'string');
    if (legacy && undoes !== undefined) {
      // An older undo of an undo was a redo of what that one took back.
      const target = byTxn.get(undoes[0] as string);
      const inner = target === undefined ? undefined : targetsOf(target, 'undoes');
      if (inner !== undefined) {
        redoes = inner;
        undoes = undefined;
      }
    }
    if (undoes === undefined && redoes === undefined) {
      done.push(cmd);
      redoable = [];
      continue;
    }
    const finished = legacy || cmd.entries.some((e) => e.end === true);
    if (undoes !== undefined) {
      const taken = new Set(undoes);
      done = done.filter((c) => !taken.has(c.txn));
      redoable.push(known(undoes));
      interrupted = finished ? undefined : { txn: cmd.txn, action: 'undo', targets: known(undoes), actor: cmd.actor, at: cmd.at };
    } else if (redoes !== undefined) {
      const again = new Set(redoes);
      redoable = redoable.filter((group) => !group.some((c) => again.has(c.txn)));
      pushAll(
        done,
        known(redoes).filter((c) => !isAction(c)),
      );
      interrupted = finished ? undefined : { txn: cmd.txn, action: 'redo', targets: known(redoes), actor: cmd.actor, at: cmd.at };
    }
  }
  return { done, redoable, interrupted, byTxn };
}
