import fs from 'node:fs';
import { pushAll } from '../base/many-items.js';
import type { SessionInfo } from '../sessions/session-index.js';
import { onListAt, type SessionMove } from '../sessions/session-moves.js';
import { sessionTranscripts } from '../sessions/transcript-lines.js';
import { taskPath } from '../store/paths.js';
import { type CrashedRun, crashedAuthor } from './crashed-author.js';
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
  /** The file changed after `event`: when, the likely cause, and (crashed-agent) the session that likely made it. */
  unrecorded: { at: string; cause: UnrecordedCause; session?: string | undefined } | undefined;
}

interface LastChangeOptions {
  listId: string;
  sessions: readonly SessionInfo[];
  /** A session's moves between lists, as `log` reads them (session-segments.ts sessionMovesOf). */
  movesOf: (session: SessionInfo) => readonly SessionMove[] | undefined;
  /** false: the agents' changes alone (its `unrecorded` then means nothing). */
  journal?: boolean;
  /** The crashed runs of the list's sessions, for a change no record explains (crashed-author.ts crashedRunsOf). */
  crashedRuns?: readonly CrashedRun[] | undefined;
}

export function lastChangeOf(listDir: string, id: string, opts: LastChangeOptions): LastChange {
  const mtime = fs.statSync(taskPath(listDir, id), { throwIfNoEntry: false })?.mtimeMs;
  const before = (mtime ?? Date.now()) + SLACK_MS;
  const candidates: TimelineEvent[] = [];
  const entry = opts.journal === false ? undefined : lastJournalChange(listDir, id, before);
  if (entry !== undefined) pushAll(candidates, fromJournal([entry], opts.listId));
  let transcripts = 0;
  const notBefore = (mtime ?? 0) - SLACK_MS;
  for (const session of opts.sessions) {
    if (session.transcript === undefined) continue;
    transcripts++;
    // A transcript last written before the file changed cannot hold its last change.
    if (mtime !== undefined && (session.lastActivity ?? Number.POSITIVE_INFINITY) < notBefore) continue;
    for (const { file, agent } of sessionTranscripts(session.transcript, session.sessionId)) {
      // A session that moved between lists changed this one on its side of each move only.
      const onList = (c: AgentChange) => onListAt(opts.movesOf(session), opts.listId, c.at);
      const change = lastAgentChange(file, session.sessionId, agent, id, { before, notBefore }, onList);
      if (change !== undefined) pushAll(candidates, fromTranscript([change], opts.listId));
    }
  }
  const event = candidates.sort((a, b) => Date.parse(a.at) - Date.parse(b.at)).at(-1);
  if (mtime === undefined) return { event, unrecorded: undefined };
  const late = event !== undefined && mtime > Date.parse(event.at) + SLACK_MS;
  const at = new Date(mtime).toISOString();
  // A session of the list killed shortly after the file changed, its transcript ending
  // before: its change, unrecorded (even where no record of the task is read: its
  // transcript ends before the file's change, and is not read for it).
  const crashed = late || event === undefined ? crashedAuthor(opts.crashedRuns ?? [], mtime) : undefined;
  if (crashed !== undefined) return { event, unrecorded: { at, cause: 'crashed-agent', session: crashed } };
  // With no record of it at all, nothing is said: the task may predate the record.
  if (!late) return { event, unrecorded: undefined };
  return { event, unrecorded: { at, cause: transcripts > 0 ? 'hand-edit' : 'unknown-agent' } };
}

/**
 * What moved a task on, for an undo's or redo's refusal where no journal line after the
 * commands it applies explains it: an agent's change, or one no record shows. The task's
 * last change may be one of those very commands (`undo --since` takes back several, and an
 * agent worked between them): then it is the agent's last change to it, if made `since`
 * the first of them.
 */
export function movedOnBy(listDir: string, id: string, opts: LastChangeOptions & { since?: string | undefined }): LastChange {
  const last = lastChangeOf(listDir, id, opts);
  if (last.unrecorded !== undefined || last.event?.source === 'transcript') return last;
  const agent = lastChangeOf(listDir, id, { ...opts, journal: false }).event;
  const since = opts.since === undefined ? Number.NEGATIVE_INFINITY : Date.parse(opts.since);
  return { event: agent !== undefined && Date.parse(agent.at) >= since ? agent : undefined, unrecorded: undefined };
}
