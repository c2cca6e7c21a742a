import { parseEntry } from '../history/journal-read.js';
import type { LineScan } from '../sessions/transcript-store.js';
import type { MarkStatus } from './cost-rule.js';

/**
 * What a list's journal (history/journal.ts) says for the cost rule, read line by line so
 * that the transcript store can keep it between runs and read a grown journal from where
 * it stopped: each status a change made with `tasks` set, at the time of its record, and
 * the session it was made for (an agent's change, `--as`, from a Claude Code session), and
 * each deleted task as it was (its subject and owner, to name it). A write that a later
 * line of its run says failed (`aborted`) is taken out.
 */
export interface JournalMarksState {
  /** [time, task id, status, session or null, txn]. */
  marks: Array<[number, string, MarkStatus, string | null, string]>;
  /** Task id -> [subject, owner or null] when it was deleted. */
  deleted: Map<string, [string, string | null]>;
}

const STATUSES = new Set<string>(['in_progress', 'pending', 'completed']);

export const JOURNAL_MARKS_SCAN: LineScan<JournalMarksState> = {
  id: 'journal-marks/1',
  needles: ['"status"', '"aborted"'],
  start: () => ({ marks: [], deleted: new Map() }),
  feed(state, line) {
    const parsed = parseEntry(line);
    if (!('entry' in parsed)) return;
    const { entry } = parsed;
    if (entry.aborted !== undefined) {
      for (const id of entry.aborted) {
        for (let at = state.marks.length - 1; at >= 0; at--) {
          const m = state.marks[at] as JournalMarksState['marks'][number];
          if (m[4] !== entry.txn || m[1] !== id) continue;
          state.marks.splice(at, 1);
          break;
        }
      }
    }
    const at = Date.parse(entry.at);
    const session = entry.actor.kind === 'agent' ? (entry.actor.session ?? null) : null;
    for (const change of entry.changes) {
      if (change.op === 'update') {
        const status = change.fields.status?.new;
        if (typeof status === 'string' && STATUSES.has(status)) state.marks.push([at, change.id, status as MarkStatus, session, entry.txn]);
      } else if (change.op === 'delete') {
        state.marks.push([at, change.id, 'deleted', session, entry.txn]);
        const owner = typeof change.task.owner === 'string' && change.task.owner !== '' ? change.task.owner : null;
        state.deleted.set(change.id, [String(change.task.subject ?? ''), owner]);
      } else if (change.op === 'create') state.deleted.delete(change.id);
    }
  },
  copy: (s) => ({ marks: [...s.marks], deleted: new Map(s.deleted) }),
  save: (s) => (s.marks.length === 0 && s.deleted.size === 0 ? 0 : { k: s.marks, d: [...s.deleted] }),
  load(json) {
    if (json === 0) return JOURNAL_MARKS_SCAN.start();
    if (typeof json !== 'object' || json === null) return undefined;
    const { k, d } = json as Record<string, unknown>;
    if (!Array.isArray(k) || !Array.isArray(d)) return undefined;
    const ok = k.every(
      (m) =>
        Array.isArray(m) &&
        typeof m[0] === 'number' &&
        typeof m[1] === 'string' &&
        (STATUSES.has(m[2]) || m[2] === 'deleted') &&
        (m[3] === null || typeof m[3] === 'string') &&
        typeof m[4] === 'string',
    );
    if (!ok) return undefined;
    const deleted = new Map<string, [string, string | null]>();
    for (const x of d as unknown[]) {
      if (!Array.isArray(x) || typeof x[0] !== 'string' || !Array.isArray(x[1]) || typeof x[1][0] !== 'string') return undefined;
      deleted.set(x[0], [x[1][0], typeof x[1][1] === 'string' ? x[1][1] : null]);
    }
    return { marks: k as JournalMarksState['marks'], deleted };
  },
};
