import { itemKey } from '../sessions/evidence-index.js';
import { evidenceOfSessions } from '../sessions/list-sessions.js';
import { liveSessionLists } from '../sessions/live-lists.js';
import type { SessionIndex, SessionInfo } from '../sessions/session-index.js';
import { readList } from '../store/list-read.js';
import { isMissing } from '../store/not-a-folder.js';
import { listDirOf } from '../store/paths.js';
import { teamMembers, teamsByList } from '../teams/teams.js';
import { emptySummary, type ListOverview, listIds, sessionRowTime, sessionsInShowOrder, summarizeList } from './list-summary.js';
import type { ListsRow, ListsView } from './lists-view.js';
import { shortIds } from './short-ids.js';

/**
 * The running sessions of a `tasks lists` run, and the rows of the answer they can
 * change: what kept-lists.ts works out again while the rest comes from the answer kept.
 *
 * A session's process changes only its own sessions' rows (their state, activity, name,
 * the list they write to) when: every Claude Code process of the config folder has a
 * live-session file (else any quiet session in its folder may be its: isolated()); each
 * running session writes to a list named by its own id, and leads no team; its
 * transcripts tie it to no list but the running sessions' own (a fork holds its parent's
 * tasks), nor leave it unsure between lists; no row kept
 * for another list holds it; and its list's task files match no task another session
 * worked on (else that session may now be tied to its list, or unsure: list-evidence.ts).
 * Where any of this fails, the caller works the whole answer out.
 */
export interface Running {
  /** The sessions processes are on, and those they ran before (`/clear`). */
  sessions: Set<string>;
  /** Their processes' pids (their live-session files' names). */
  pids: Set<number>;
}

/**
 * The sessions running now; undefined when a process may be on any session (no
 * live-session file, or one not judged here). `noneOnFile`: the live-session files are
 * known to be crashed sessions' only (those of a kept answer, unchanged since, each
 * looked up again): they are not read.
 */
export function runningNow(index: SessionIndex, noneOnFile = false): Running | undefined {
  const pids = new Set<number>();
  for (const f of noneOnFile ? [] : index.liveSessionFiles()) {
    const verdict = index.verdict(f);
    if (verdict === 'unknown') return undefined;
    if (verdict === 'running') pids.add(f.pid);
  }
  const claude = index.claudeProcesses();
  const claudePids = new Set(claude.map((p) => p.pid));
  for (const p of claude) {
    // A helper another Claude Code process started is on no session of its own (session-index.ts).
    if (index.usesThisConfig(p) && !pids.has(p.pid) && (p.parentPid === undefined || !claudePids.has(p.parentPid))) return undefined;
  }
  const sessions = new Set<string>();
  if (pids.size > 0) {
    for (const p of index.processes().values()) {
      sessions.add(p.sessionId);
      sessions.add(p.fileSessionId);
      for (const r of p.replaced) sessions.add(r);
    }
  }
  return { sessions, pids };
}

/**
 * May a part that differs from the kept answer's (lists-inputs.ts: its path, and how) be
 * left to the running sessions' rows? Their transcripts, their own lists' files, their
 * live-session files; a folder's stamp whose entries are all named in the parts (what was
 * made or removed in it differs there). Anything else (another session's transcript, another
 * list, a team config) is not.
 */
export function partOfRunning(path: string, running: Running): boolean {
  const at = path.split('/');
  const [top] = at;
  if (top === 'projects') {
    if (at.length === 2 || (at.length === 3 && path.endsWith('/'))) return true; // projects/, projects/<P>/
    const own = at[2] ?? '';
    const session = own.endsWith('.jsonl') ? own.slice(0, -6) : own;
    return running.sessions.has(session);
  }
  if (top === 'tasks') {
    if (path === 'tasks/') return true;
    return running.sessions.has(at[1] ?? '');
  }
  if (top === 'sessions') {
    if (path === 'sessions/') return true;
    const name = at[1] ?? '';
    return name.endsWith('.json') && running.pids.has(Number(name.slice(0, -5)));
  }
  return false; // teams: a config made, changed or removed
}

/**
 * The same for a part of a look at the folders alone (listsInputs with `folders`): a
 * running session's own list folder (a task it wrote: the lock folder made beside the
 * file changes it), `tasks/` (a list folder made or removed, each named in the parts), a
 * running session's live-session file. Not `sessions/` itself: a live-session file made
 * and removed since (a session that started and ended between two runs, a resumed one
 * among them) is named nowhere else; not a project folder (a transcript made: a new
 * session, or `/clear`); not a team config. Each of those calls for a look at every file.
 */
export function folderOfRunning(path: string, running: Running): boolean {
  if (path === 'sessions/' || path.startsWith('projects/')) return false;
  return partOfRunning(path, running);
}

/**
 * The kept answer with the running sessions' rows worked out again; undefined when their
 * processes or transcripts may change another row (see above). `listsChanged`: the
 * running sessions' own lists whose files differ from the kept answer's. `holders`: the
 * tasks other sessions worked on (itemHolders), asked for only when a list changed.
 */
export function withRunningRows(
  configDir: string,
  index: SessionIndex,
  kept: ListsView,
  running: Running,
  listsChanged: ReadonlySet<string>,
  holders: () => Map<string, string>,
): ListsView | undefined {
  const ours = running.sessions;
  const rows: ListsRow[] = [];
  for (const row of kept.lists) {
    const own = ours.has(row.id);
    if (row.unsure?.some((s) => ours.has(s.sessionId))) return undefined;
    // A running session's list that is another name of this folder: the row is this one, worked out whole.
    if (row.aliases?.some((a) => ours.has(a))) return undefined;
    if (
      own ? row.unsure !== undefined || row.sessions.some((s) => !ours.has(s.sessionId)) : row.sessions.some((s) => ours.has(s.sessionId))
    )
      return undefined;
    if (!own) rows.push(row);
  }
  for (const { session, list } of liveSessionLists(index)) if (list !== session.sessionId) return undefined;
  const leads = index.leads();
  for (const lead of leads.values()) if (ours.has(lead.sessionId)) return undefined;
  for (const id of ours) if (index.listsOfSession(id).some((l) => l !== id)) return undefined;
  const evidence = evidenceOfSessions(index, ours);
  if (evidence.unsureByList.size > 0) return undefined;
  // Tied among themselves only (a fork holds its parent's tasks): their rows, worked out together.
  for (const [list, ids] of evidence.sessionsByList) if (!ours.has(list) || ids.some((id) => !ours.has(id))) return undefined;
  if (listsChanged.size > 0 && !onlyTheirs(configDir, listsChanged, ours, holders())) return undefined;

  const existing = new Set(listIds(configDir));
  const { byList } = teamsByList(configDir);
  const teamOf = (id: string) => {
    const team = byList.get(id);
    return team === undefined ? undefined : { name: team.name, members: teamMembers(team) };
  };
  const fresh: Array<Omit<ListOverview, 'shortId'>> = [];
  const live = liveSessionLists(index);
  for (const id of ours) {
    if (existing.has(id)) {
      // As sessionsOfList finds them: the owners, the live sessions writing to it, those its transcripts tie to it.
      const found = new Map<string, SessionInfo>();
      for (const s of index.ownersOfList(id)) found.set(s.sessionId, s);
      for (const { session, list } of live) if (list === id) found.set(session.sessionId, session);
      for (const tied of evidence.sessionsByList.get(id) ?? []) {
        const s = index.session(tied);
        if (s !== undefined) found.set(tied, s);
      }
      // Read now: as a rule a running session's list holds fewer files than the counts kept of every list (a shard to load).
      fresh.push({
        ...summarizeList(configDir, id),
        kind: 'tasks',
        sessions: sessionsInShowOrder(sessionsInShowOrder([...found.values()])),
      });
      continue;
    }
    const writer = live.find(({ list }) => list === id)?.session;
    if (writer !== undefined) {
      fresh.push({ ...emptySummary(id, listDirOf(configDir, id), sessionRowTime(writer)), kind: 'new', sessions: [writer] });
      continue;
    }
    const todos = evidence.todos.get(id);
    const session = todos === undefined ? undefined : index.session(id);
    if (todos !== undefined && session !== undefined) {
      const summary = emptySummary(id, '', sessionRowTime(session));
      for (const t of todos) summary.counts[t.status]++;
      fresh.push({ ...summary, total: todos.length, kind: 'todowrite', sessions: [session], todos });
    }
  }
  const all = [...rows, ...fresh.map((r): ListsRow => ({ ...r, shortId: r.id, team: teamOf(r.id) }))].sort(
    (a, b) => b.changedAt - a.changedAt || a.id.localeCompare(b.id),
  );
  const short = sameIds(kept.lists, all) ? new Map(kept.lists.map((l) => [l.id, l.shortId])) : shortIds(all.map((l) => l.id));
  return { ...kept, lists: all.map((l) => ({ ...l, shortId: short.get(l.id) ?? l.id })) };
}

/** Do these rows name the same lists? Then each keeps its short id (shortIds gives one set of ids the same prefixes). */
function sameIds(a: readonly ListsRow[], b: readonly ListsRow[]): boolean {
  if (a.length !== b.length) return false;
  const ids = new Set(a.map((l) => l.id));
  return b.every((l) => ids.has(l.id));
}

/** Do these lists' task files match no task that a session other than `ours` worked on? */
function onlyTheirs(configDir: string, lists: ReadonlySet<string>, ours: ReadonlySet<string>, holders: Map<string, string>): boolean {
  const other = (key: string) => {
    const holder = holders.get(key);
    return holder !== undefined && !ours.has(holder);
  };
  for (const id of lists) {
    let tasks: ReturnType<typeof readList>['tasks'];
    try {
      tasks = readList(listDirOf(configDir, id)).tasks;
    } catch (err) {
      if (isMissing(err)) continue; // removed: no file to match
      return false;
    }
    for (const t of tasks) if (other(itemKey(t.id, t.subject)) || other(itemKey(t.id, undefined))) return false;
  }
  return true;
}
