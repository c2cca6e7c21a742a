import { sanitizeListId } from '../store/paths.js';
import { liveSessionLists, namedListOfProcess } from './live-lists.js';
import type { SessionIndex, SessionInfo } from './session-index.js';

/**
 * Is anyone still at work on a list? Nothing is over while any sign of life remains:
 *
 * - a session of the list is live: its process runs, or its transcript was written
 *   within the last LIVE_TRANSCRIPT_MS without recording its end (its live-session file
 *   may have been removed), or its process cannot be looked up here (another machine);
 * - a running Claude Code process names the list, wherever it runs: its settings (its
 *   `--settings` too) or its environment (`/proc/<pid>/environ`: a session sharing the
 *   list through CLAUDE_CODE_TASK_LIST_ID), or `--team-name` (a teammate of the team
 *   whose list it is);
 * - a live session writes to the list now (live-lists.ts);
 * - the team's lead process, which the team config records, runs.
 *
 * `busy`: some sign says work is under way (a session busy on a turn, a transcript being
 * written, a process whose turn state is not known): no task of the list is stalled. A
 * session waiting for a person (a permission prompt) is not at work: nothing moves until
 * someone answers, so a gate waiting on it must not wait for ever.
 */
export interface Life {
  why: string;
  busy: boolean;
}

/** A live session may be at work unless it says it is idle or waiting for a person. */
const atWork = (s: SessionInfo): boolean => s.activity !== 'idle' && s.activity !== 'waiting';

export function signsOfLife(index: SessionIndex, listId: string, sessions: readonly SessionInfo[]): Life | undefined {
  const live = sessions.filter((s) => s.state === 'live' || s.state === 'unknown');
  if (live.length > 0) {
    const busy = live.some(atWork);
    const s = live.find(atWork) ?? (live[0] as SessionInfo);
    const how =
      s.state === 'unknown' ? 'runs where it cannot be checked' : s.liveBy === 'transcript' ? 'is writing its transcript' : 'is live';
    return { why: `session ${s.sessionId.slice(0, 8)} ${how}`, busy };
  }
  for (const { session, list } of liveSessionLists(index)) {
    if (list === listId) return { why: `live session ${session.sessionId.slice(0, 8)} writes to it`, busy: atWork(session) };
  }
  const lead = index.leads().get(listId)?.process;
  if (lead !== undefined) {
    const start = index.probe.startTime(lead.pid);
    if (start !== undefined && (lead.procStart === undefined || lead.procStart === start))
      return { why: `the team's lead (pid ${lead.pid}) runs`, busy: true };
  }
  for (const p of index.claudeProcesses()) {
    if (!index.usesThisConfig(p)) continue;
    if (p.teamName !== undefined && sanitizeListId(p.teamName) === listId)
      return { why: `teammate process ${p.pid} of the team runs`, busy: true };
    if (namedListOfProcess(index, p) === listId)
      return { why: `Claude Code process ${p.pid} uses it (CLAUDE_CODE_TASK_LIST_ID)`, busy: true };
  }
  return undefined;
}
