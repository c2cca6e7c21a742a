import fs from 'node:fs';
import { sanitizeListId, tasksRoot } from '../store/paths.js';
import { buildEvidence, type Evidence } from './evidence-index.js';
import { liveSessionLists } from './live-lists.js';
import type { SessionIndex, SessionInfo } from './session-index.js';
import type { TranscriptTasksCache } from './transcript-cache.js';

/**
 * The sessions a list belongs to, for `tasks lists`, `log`, gone owners and stalled work:
 * the sessions whose own list it is (its UUID, `session-<8 hex>`, its team's lead), the
 * live sessions writing to it now (their settings or environment name it), and with
 * `deep` the sessions tied to it by their transcripts (a list named by
 * CLAUDE_CODE_TASK_LIST_ID: evidence-index.ts). Live first, then the most recently active.
 */
export function sessionsOfList(index: SessionIndex, listId: string, opts: { deep?: boolean } = {}): SessionInfo[] {
  const found = new Map<string, SessionInfo>();
  for (const s of index.ownersOfList(listId)) found.set(s.sessionId, s);
  for (const { session, list } of liveSessionLists(index)) if (list === listId) found.set(session.sessionId, session);
  if (opts.deep) {
    for (const id of evidenceOf(index).sessionsByList.get(listId) ?? []) {
      const s = index.session(id);
      if (s !== undefined) found.set(id, s);
    }
  }
  return [...found.values()].sort(
    (a, b) => Number(b.state === 'live') - Number(a.state === 'live') || (b.lastActivity ?? 0) - (a.lastActivity ?? 0),
  );
}

const evidences = new WeakMap<SessionIndex, Evidence>();
const caches = new WeakMap<SessionIndex, TranscriptTasksCache>();

/** Use `cache` for what transcripts say of their tasks (default: the index's own store). */
export function useTranscriptCache(index: SessionIndex, cache: TranscriptTasksCache): void {
  caches.set(index, cache);
}

/** The transcript evidence of this index, read once. */
export function evidenceOf(index: SessionIndex): Evidence {
  let evidence = evidences.get(index);
  if (evidence === undefined) {
    evidence = buildEvidence(index, listNames(index.configDir), caches.get(index));
    evidences.set(index, evidence);
  }
  return evidence;
}

/** The list folders' names (those a list id can name). */
function listNames(configDir: string): string[] {
  try {
    return fs
      .readdirSync(tasksRoot(configDir), { withFileTypes: true })
      .filter((e) => (e.isDirectory() || e.isSymbolicLink()) && sanitizeListId(e.name) === e.name)
      .map((e) => e.name);
  } catch {
    return [];
  }
}
