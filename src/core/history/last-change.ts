import fs from 'node:fs';
import path from 'node:path';
import { pushAll } from '../base/many-items.js';
import type { SessionInfo } from '../sessions/session-index.js';
import { onListAt, readMoves } from '../sessions/session-moves.js';
import { sessionTranscripts } from '../sessions/transcript-lines.js';
import { taskPath } from '../store/paths.js';
import { lastJournalChange, SLACK_MS } from './journal-read.js';
import { fromJournal, fromTranscript, type TimelineEvent, type UnrecordedCause } from './timeline.js';
import { type AgentChange, lastAgentChange } from './transcript-events.js';

/**
 * `get`'s last change of one task, read from the ends of the records: the journal's and
 * each session transcript's last change to it up to the time its file last changed
 * (journal-read.ts, transcript-events.ts), never a whole file. When the file changed
 * later than any record of it, that change is unrecorded, with its likely cause.
 */
export interface LastChange {
  event: TimelineEvent | undefined;
  /** The file changed after `event`: when, and the likely cause. */
  unrecorded: { at: string; cause: UnrecordedCause } | undefined;
}

export function lastChangeOf(listDir: string, id: string, opts: { listId: string; sessions: readonly SessionInfo[] }): LastChange {
  const mtime = fs.statSync(taskPath(listDir, id), { throwIfNoEntry: false })?.mtimeMs;
  const before = (mtime ?? Date.now()) + SLACK_MS;
  const candidates: TimelineEvent[] = [];
  const entry = lastJournalChange(listDir, id, before);
  if (entry !== undefined) pushAll(candidates, fromJournal([entry], opts.listId));
  let transcripts = 0;
  const notBefore = (mtime ?? 0) - SLACK_MS;
  const moves = readMoves(path.dirname(path.dirname(listDir)));
  for (const session of opts.sessions) {
    if (session.transcript === undefined) continue;
    transcripts++;
    // A transcript last written before the file changed cannot hold its last change.
    if (mtime !== undefined && (session.lastActivity ?? Number.POSITIVE_INFINITY) < notBefore) continue;
    for (const { file, agent } of sessionTranscripts(session.transcript, session.sessionId)) {
      const change: AgentChange | undefined = lastAgentChange(file, session.sessionId, agent, id, { before, notBefore });
      if (change !== undefined && onListAt(moves.get(session.sessionId), opts.listId, change.at))
        pushAll(candidates, fromTranscript([change], opts.listId));
    }
  }
  const event = candidates.sort((a, b) => Date.parse(a.at) - Date.parse(b.at)).at(-1);
  // With no record of it at all, nothing is said: the task may predate the record.
  const late = mtime !== undefined && event !== undefined && mtime > Date.parse(event.at) + SLACK_MS;
  return {
    event,
    unrecorded: late ? { at: new Date(mtime).toISOString(), cause: transcripts > 0 ? 'hand-edit' : 'unknown-agent' } : undefined,
  };
}
