import fs from 'node:fs';
import path from 'node:path';
import { TasksError } from '../base/errors.js';
import { readBinding } from '../binding/project-binding.js';
import { evidenceOf, sessionsOfList } from '../sessions/list-sessions.js';
import { isSessionId, type SessionIndex } from '../sessions/session-index.js';
import { bindingCounts } from './binding-then.js';

/**
 * Which transcripts record a list's Task-tool calls (docs/task-store.md section 10: a
 * transcript never names its list):
 * - `own`: the sessions whose own list it is (its UUID, `session-<8 hex>`, its team's lead);
 * - `tasks`: sessions tied to it by the tasks their transcripts show, and live sessions
 *   writing to it (sessions/list-sessions.ts; needs some of its tasks still on disk);
 * - `binding`: sessions started where the settings bind the list (`tasks use`), which
 *   still tie a named list to its sessions once every task file is gone; not those
 *   whose own list exists or whose tasks tie them to another list, nor those that started
 *   a list of their own before the binding's file was written (binding-then.ts): the
 *   binding came later;
 * - `shares`: sessions whose transcripts show the same tasks as the others' (shared-sessions.ts:
 *   a list shared through CLAUDE_CODE_TASK_LIST_ID, its folder gone or made anew);
 * - `named`: given by the person (`--from`): a session id, a unique prefix, or a
 *   transcript file.
 */
export interface RestoreSource {
  sessionId: string;
  transcript: string;
  why: 'own' | 'tasks' | 'binding' | 'shares' | 'named';
}

export function restoreSources(index: SessionIndex, listId: string, from: readonly string[] = []): RestoreSource[] {
  if (from.length > 0) return dedupe(from.map((raw) => namedSource(index, raw)));
  const found: RestoreSource[] = [];
  for (const s of index.ownersOfList(listId))
    if (s.transcript !== undefined) found.push({ sessionId: s.sessionId, transcript: s.transcript, why: 'own' });
  for (const s of sessionsOfList(index, listId, { deep: true }))
    if (s.transcript !== undefined) found.push({ sessionId: s.sessionId, transcript: s.transcript, why: 'tasks' });
  if (index.settings !== undefined) {
    /** The settings file that binds the list where a directory's sessions start (null: none binds it). */
    const boundHere = new Map<string, string | null>();
    // A session whose own list exists, or whose tasks tie it to another list, was not on this one (a binding written since).
    const elsewhere = new Set(
      [...evidenceOf(index).sessionsByList].filter(([list]) => list !== listId).flatMap(([, sessions]) => sessions),
    );
    for (const [sessionId, transcript] of index.transcripts()) {
      if (elsewhere.has(sessionId) || index.listsOfSession(sessionId).some((l) => l !== listId)) continue;
      const cwd = index.facts(transcript).cwd;
      if (cwd === undefined) continue;
      let bound = boundHere.get(cwd);
      if (bound === undefined) {
        const binding = readBinding(cwd, index.settings).binding;
        boundHere.set(cwd, (bound = binding?.listId === listId ? binding.file : null));
      }
      // Bound since it ran (a later `tasks use`), it may have been on a list of its own: not this one's by the binding.
      if (bound !== null && bindingCounts(bound, index.transcriptTasks(transcript).writes ?? []))
        found.push({ sessionId, transcript, why: 'binding' });
    }
  }
  return dedupe(found);
}

/** A source the person named: a transcript file, or a session by its id or a unique prefix of it. */
function namedSource(index: SessionIndex, raw: string): RestoreSource {
  const typed = raw.trim();
  if (typed === '') throw new TasksError('usage', '--from: the session id is empty');
  if (typed.endsWith('.jsonl') || typed.includes(path.sep)) {
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(typed);
    } catch {
      stat = undefined;
    }
    if (stat === undefined) throw new TasksError('not_found', `--from: no transcript ${typed}`, { details: { file: typed } });
    if (!stat.isFile()) throw new TasksError('usage', `--from: ${typed} is not a regular file`, { details: { file: typed } });
    const sessionId = path.basename(typed).replace(/\.jsonl$/, '');
    return { sessionId, transcript: path.resolve(typed), why: 'named' };
  }
  const matches = index.sessionsByPrefix(typed.toLowerCase()).filter((id) => index.transcripts().has(id));
  if (matches.length > 1 && !matches.includes(typed)) {
    throw new TasksError('usage', `--from: session prefix "${typed}" is ambiguous: ${matches.slice(0, 5).join(', ')}`, {
      hint: 'type more of the session id',
      details: { candidates: matches },
    });
  }
  const sessionId = matches.includes(typed) ? typed : matches[0];
  const transcript = sessionId === undefined ? undefined : index.transcripts().get(sessionId);
  if (sessionId === undefined || transcript === undefined) {
    const what = isSessionId(typed) ? `session ${typed}` : `a session "${typed}"`;
    throw new TasksError('not_found', `--from: no transcript of ${what} under ${index.configDir}/projects`, {
      hint: 'tasks lists --all shows the sessions with transcripts',
      details: { sessionId: typed },
    });
  }
  return { sessionId, transcript, why: 'named' };
}

function dedupe(sources: readonly RestoreSource[]): RestoreSource[] {
  const seen = new Set<string>();
  return sources.filter((s) => {
    if (seen.has(s.transcript)) return false;
    seen.add(s.transcript);
    return true;
  });
}
