import { TasksError } from '../base/errors.js';
import { isDirectory } from '../base/is-directory.js';
import type { SettingsPlaces } from '../binding/settings-files.js';
import { chooseList, sessionListsByPrefix } from '../lists/list-choice.js';
import { somethingAt } from '../lists/list-folders.js';
import { missingListError } from '../lists/missing-list.js';
import { restoreSources } from '../restore/restore-sources.js';
import type { SessionIndex } from '../sessions/session-index.js';
import { listDirOf, sanitizeListId } from '../store/paths.js';
import type { DoctorInput } from './diagnose.js';

/**
 * What `tasks doctor` looks at: one session (`--session`, by a unique prefix of its id),
 * one list (`-l`, by its exact name, else the one session UUID list it is a prefix of; a
 * list that is gone is still diagnosed while a session's transcript records it; one that
 * nothing records is not found, as for every other command), or else the project of the
 * working directory.
 */
export function doctorScope(
  index: SessionIndex,
  configDir: string,
  asked: { session?: string | undefined; list?: string | undefined },
): DoctorInput['scope'] {
  if (asked.list !== undefined && asked.session !== undefined) throw new TasksError('usage', 'give -l or --session, not both');
  if (asked.session !== undefined) return sessionScope(index, configDir, asked.session);
  if (asked.list !== undefined) return listScope(index, configDir, asked.list);
  return { kind: 'project' };
}

function sessionScope(index: SessionIndex, configDir: string, raw: string): DoctorInput['scope'] {
  const typed = raw.trim().toLowerCase();
  if (typed === '') throw new TasksError('usage', 'the session id is empty');
  const matches = index.sessionsByPrefix(typed);
  if (matches.length > 1 && !matches.includes(typed)) {
    throw new TasksError('usage', `session prefix "${raw}" is ambiguous: ${matches.slice(0, 5).join(', ')}`, {
      hint: 'type more of the session id',
      details: { candidates: matches },
    });
  }
  const id = matches.includes(typed) ? typed : matches[0];
  const session = id === undefined ? undefined : index.session(id);
  if (session === undefined) {
    throw new TasksError('not_found', `no session "${raw}" under ${configDir}`, { hint: 'tasks lists --all shows the sessions' });
  }
  return { kind: 'session' as const, session };
}

function listScope(index: SessionIndex, configDir: string, raw: string): DoctorInput['scope'] {
  if (raw.trim() === '') throw new TasksError('usage', 'the list id is empty');
  const id = sanitizeListId(raw.trim());
  const dir = listDirOf(configDir, id);
  if (!isDirectory(dir)) {
    const matches = sessionListsByPrefix(configDir, raw);
    if (matches.length > 1)
      throw new TasksError('usage', `list prefix "${raw}" is ambiguous: ${matches.join(', ')}`, { details: { candidates: matches } });
    if (matches.length === 1) return { kind: 'list' as const, list: matches[0] as string };
    // Nothing at its path and no transcript that knows it: a typo, not a list to diagnose.
    if (!somethingAt(dir) && restoreSources(index, id).length === 0)
      throw missingListError(configDir, { id, dir, how: 'flag', exists: false, typed: raw, warnings: [] }, index);
  }
  return { kind: 'list' as const, list: id };
}

/** The list tasks uses here, as a read chooses it; undefined when there is none. */
export function listUsedHere(
  configDir: string,
  o: { env: string | undefined; cwd: string | undefined; home: string; settings: Omit<SettingsPlaces, 'configDir'>; index: SessionIndex },
): string | undefined {
  try {
    return chooseList(configDir, { env: o.env, forWrite: false, cwd: o.cwd, home: o.home, settings: o.settings, index: o.index }).id;
  } catch {
    return undefined;
  }
}
