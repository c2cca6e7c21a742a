/**
 * Doctor: why agents do not see or keep a list, each cause with its exact fix (a command,
 * or a settings change). For a project (the sessions of the current directory, or of its
 * nearest parent that has any), one session, or one list:
 * - sessions (session-checks.ts): the task tools off for the session's model, TodoWrite
 *   instead of the Task tools (docs/task-store.md section 12), `/clear` having moved an
 *   agent on past its unfinished tasks (section 15);
 * - the directory's settings (setting-checks.ts): the list variable set for `tasks` and
 *   not for the agents or the reverse, a binding another settings file overrides
 *   (section 11), task hooks skipped for trust (section 7);
 * - lists (list-checks.ts): files agents skip, locks in the way, ids past the limit, a
 *   mark behind (sections 2 to 5), tasks the transcripts show that are gone (a reset,
 *   garbage collection, a removed folder: section 6.7, 17).
 * Reads only; never writes.
 */

import { pushAll } from '../base/many-items.js';
import { readBinding } from '../binding/project-binding.js';
import type { SettingsPlaces } from '../binding/settings-files.js';
import type { TrustSources } from '../hooks/folder-trust.js';
import { projectDirs } from '../lists/list-choice.js';
import { restoreSources } from '../restore/restore-sources.js';
import { evidenceOf } from '../sessions/list-sessions.js';
import { listOfLiveSession } from '../sessions/live-lists.js';
import type { SessionIndex, SessionInfo } from '../sessions/session-index.js';
import { cachedTranscriptTasks, memoryCache } from '../sessions/transcript-cache.js';
import { listDirOf } from '../store/paths.js';
import type { DoctorFinding, DoctorReport, DoctorScope } from './doctor-findings.js';
import { listFindings } from './list-checks.js';
import { networkFilesystemOf, type StatfsType } from './list-filesystem.js';
import { sessionFindings } from './session-checks.js';
import { settingFindings } from './setting-checks.js';

export interface DoctorInput {
  index: SessionIndex;
  places: SettingsPlaces;
  trust: TrustSources;
  /** The environment `tasks` runs in. */
  env: Readonly<Record<string, string | undefined>>;
  cwd: string | undefined;
  home: string;
  scope: { kind: 'project' } | { kind: 'session'; session: SessionInfo } | { kind: 'list'; list: string };
  /** The list `tasks` uses here, when it can choose one (project scope). */
  chosenList?: string | undefined;
  /** How a list is named in messages and commands (its short id). */
  shortId: (id: string) => string;
  now: number;
  /** How a folder's filesystem type is read (statfs(2) by default). */
  statfs?: StatfsType | undefined;
}

/** Sessions of a project looked at: the live ones and this many of the latest others. */
const RECENT = 5;

export async function diagnose(input: DoctorInput): Promise<DoctorReport> {
  const { index } = input;
  const findings: DoctorFinding[] = [];
  let scope: DoctorScope;
  let sessions: SessionInfo[];
  const lists = new Set<string>();
  if (input.scope.kind === 'session') {
    // With the sessions its process ran before `/clear`: their lists are its agent's left work.
    const before = index.replacedSessions(input.scope.session.sessionId).flatMap((id) => index.session(id) ?? []);
    sessions = [input.scope.session, ...before];
    scope = { kind: 'session', session: input.scope.session.sessionId };
    if (input.scope.session.cwd !== undefined) pushAll(findings, settingFindings(settingCtx(input), input.scope.session.cwd, sessions));
  } else if (input.scope.kind === 'list') {
    const list = input.scope.list;
    scope = { kind: 'list', list };
    sessions = recent(restoreSources(index, list).flatMap((s) => index.session(s.sessionId, s.transcript) ?? []));
    lists.add(list);
  } else {
    const dir = projectDir(input);
    scope = { kind: 'project', dir };
    sessions = dir === undefined ? [] : recent(index.sessionsIn(dir));
    if (dir !== undefined)
      findings.push(
        ...settingFindings(
          settingCtx(input),
          dir,
          sessions.filter((s) => madeTasks(s)),
        ),
      );
    if (input.chosenList !== undefined) lists.add(input.chosenList);
  }
  for (const session of sessions) {
    pushAll(findings, sessionFindings({ index, places: input.places, env: input.env }, session));
    const list = listOfSession(input, session);
    if (list !== undefined) lists.add(list);
  }
  for (const list of lists) pushAll(findings, await listFindings(index, list, input.shortId(list), input.now));
  const networkLists = [...lists].flatMap((list) => {
    const filesystem = networkFilesystemOf(listDirOf(index.configDir, list), input.statfs);
    return filesystem === undefined ? [] : [{ list, filesystem }];
  });
  return { scope, sessions: sessions.map((s) => s.sessionId), lists: [...lists], findings: dedupe(findings), networkLists };
}

function settingCtx(input: DoctorInput) {
  return { index: input.index, places: input.places, trust: input.trust, listVariable: input.env.CLAUDE_CODE_TASK_LIST_ID };
}

/** The current directory, or its nearest parent with sessions (as the list choice looks: never above home). */
function projectDir(input: DoctorInput): string | undefined {
  if (input.cwd === undefined) return undefined;
  return projectDirs(input.cwd, input.home).find((d) => input.index.sessionsIn(d).length > 0) ?? input.cwd;
}

/** Live sessions, then the latest others. */
function recent(sessions: readonly SessionInfo[]): SessionInfo[] {
  const sorted = [...sessions].sort((a, b) => (b.lastActivity ?? 0) - (a.lastActivity ?? 0));
  return [...sorted.filter((s) => s.state === 'live'), ...sorted.filter((s) => s.state !== 'live').slice(0, RECENT)];
}

function madeTasks(session: SessionInfo): boolean {
  return session.transcript !== undefined && cachedTranscriptTasks(session.transcript, memoryCache()).tasks.some((t) => t.created);
}

/**
 * The list a session works on: the one a live session writes to; else its own list on
 * disk; else the named list its tasks tie it to; else the list settings bind where it
 * ran; else, if it made tasks, its own (gone) list.
 */
function listOfSession(input: DoctorInput, session: SessionInfo): string | undefined {
  const { index } = input;
  if (session.state === 'live') return listOfLiveSession(index, session);
  const own = index.listsOfSession(session.sessionId)[0];
  if (own !== undefined) return own;
  for (const [list, tied] of evidenceOf(index).sessionsByList) if (tied.includes(session.sessionId)) return list;
  if (!madeTasks(session)) return undefined;
  const bound = session.cwd === undefined ? undefined : readBinding(session.cwd, input.places).binding?.listId;
  return bound ?? session.sessionId;
}

function dedupe(findings: readonly DoctorFinding[]): DoctorFinding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = [f.code, f.session, f.list, f.file, f.message].join('\0');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
