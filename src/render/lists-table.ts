import type { ListOverview } from '../core/lists/list-summary.js';
import type { SessionInfo } from '../core/sessions/session-index.js';
import { ago } from './elapsed.js';
import { fitStyled } from './fit.js';
import { promptText, stateText, tildePath } from './session-text.js';
import { STATUS_SYMBOL } from './status.js';
import type { Style } from './style.js';
import { oneLine, padEnd, truncate, visibleWidth } from './text.js';

/** A list, with the team it belongs to (if any) and that team's member names. */
export type ListRow = ListOverview & { team?: { name: string; members: string[] } | undefined };

/** "core (3: lead, alice, bob)"; members past the first few are counted, not named. */
function teamCell(team: ListRow['team'], max = 4): string {
  if (team === undefined) return '';
  const names = team.members.slice(0, max).map(oneLine);
  const more = team.members.length > max ? `, +${team.members.length - max}` : '';
  return `${oneLine(team.name)} (${team.members.length}${names.length > 0 ? `: ${names.join(', ')}${more}` : ''})`;
}

/** The session a row shows: the live one, else the latest (sessions come sorted so). */
function shownSession(row: ListOverview): SessionInfo | undefined {
  return row.sessions[0];
}

/** A long path keeps its end, where the project's name is: "…/work/myproj". */
function cutPath(text: string, max: number): string {
  if (visibleWidth(text) <= max) return text;
  return `…${[...text].slice(-(max - 1)).join('')}`;
}

interface Layout {
  style: Style;
  now: number;
  width: number;
  home: string;
}

/**
 * The terminal table: one row per list, newest first. TASKS reads "done/total", with the
 * number in progress after ▶. The prompt takes the room the other columns leave; on a
 * narrow screen BRANCH and TEAM give way first, then PROJECT is cut to its end, the prompt
 * shrinks, PROJECT goes, and only then the prompt: TASKS and CHANGED stay, and no row is
 * wider than the screen.
 */
export function renderListsTable(lists: readonly ListRow[], o: Layout): string {
  const { style } = o;
  const cells = lists.map((l) => {
    const s = shownSession(l);
    return {
      list:
        oneLine(l.shortId) +
        (l.kind === 'todowrite' ? ' (TodoWrite)' : l.kind === 'gone' ? (l.mayBeElsewhere ? ' (gone?)' : ' (gone)') : ''),
      project: s?.cwd === undefined ? '' : cutPath(oneLine(tildePath(s.cwd, o.home)), 32),
      branch: s?.branch === undefined ? '' : truncate(oneLine(s.branch), 20),
      state: stateText(s),
      // A fork opens with its parent's prompt: say whose fork it is, and what it was asked since.
      prompt: s?.forkOf !== undefined ? `fork of ${s.forkOf.slice(0, 8)}: ${s.lastPrompt ?? s.prompt ?? ''}`.trimEnd() : (s?.prompt ?? ''),
      tasks:
        l.kind === 'new'
          ? 'no tasks yet'
          : `${l.counts.completed}/${l.total}${l.counts.in_progress > 0 ? ` ${STATUS_SYMBOL.in_progress}${l.counts.in_progress}` : ''}`,
      problems: l.problems > 0 ? ` (${l.problems} unreadable)` : '',
      changed: ago(l.changedAt, o.now),
      team: teamCell(l.team),
      sessionState: s?.state,
      waiting: s?.state === 'live' && s.activity === 'waiting',
    };
  });
  const head = {
    list: 'LIST',
    project: 'PROJECT',
    branch: 'BRANCH',
    state: 'SESSION',
    prompt: 'PROMPT',
    tasks: 'TASKS',
    changed: 'CHANGED',
    team: 'TEAM',
  };
  type Key = keyof typeof head;
  const text = (c: (typeof cells)[number], k: Key) => (k === 'tasks' ? c.tasks + c.problems : c[k]);
  const widthOf = (k: Key) => Math.max(visibleWidth(head[k]), ...cells.map((c) => visibleWidth(text(c, k))));
  const gap = 2;
  // Session columns nobody has (lists made by hand, no transcripts) take no room.
  let shown = (Object.keys(head) as Key[]).filter(
    (k) => !['project', 'branch', 'state', 'prompt', 'team'].includes(k) || cells.some((c) => c[k] !== ''),
  );
  // PROJECT may be cut to its end (…/work/myproj), down to PROJECT_MIN columns.
  let projectWidth = widthOf('project');
  // LIST may be cut too (a list named at length), down to LIST_MIN columns: only when nothing else can give way.
  let listWidth = widthOf('list');
  const widthIn = (k: Key) => (k === 'project' ? projectWidth : k === 'list' ? listWidth : widthOf(k));
  const promptRoom = () => o.width - shown.filter((k) => k !== 'prompt').reduce((sum, k) => sum + widthIn(k) + gap, 0);
  // Room for the prompt first, then for the rest: BRANCH and TEAM give way, PROJECT is cut,
  // the prompt shrinks, PROJECT goes, then the prompt; LIST, SESSION, TASKS and CHANGED always stay
  // (a LIST too long for the screen is cut, last).
  const PROJECT_MIN = 16;
  const steps: Array<() => boolean> = [
    () => drop('branch'),
    () => drop('team'),
    () => {
      if (!shown.includes('project') || projectWidth <= PROJECT_MIN) return false;
      projectWidth = Math.max(PROJECT_MIN, projectWidth - (20 - promptRoom()));
      return true;
    },
  ];
  function drop(k: Key): boolean {
    if (!shown.includes(k)) return false;
    shown = shown.filter((x) => x !== k);
    return true;
  }
  for (const step of steps) {
    if (!shown.includes('prompt') || promptRoom() >= 20) break;
    step();
  }
  // Still too narrow for a 12-column prompt: no project, then (only then) no prompt; the
  // prompt is what tells a person's lists apart.
  if (shown.includes('prompt') && promptRoom() < 12) drop('project');
  if (shown.includes('prompt') && promptRoom() < 12) drop('prompt');
  if (o.width - shown.filter((k) => k !== 'prompt').reduce((sum, k) => sum + widthIn(k) + gap, 0) < 0) drop('project');
  const over = shown.filter((k) => k !== 'prompt').reduce((sum, k) => sum + widthIn(k) + gap, 0) - gap - o.width;
  const LIST_MIN = 12;
  if (over > 0) listWidth = Math.max(LIST_MIN, listWidth - over);
  const promptWidth = Math.max(12, Math.min(60, promptRoom()));
  const widths = Object.fromEntries(shown.map((k) => [k, k === 'prompt' ? promptWidth : widthIn(k)])) as Record<Key, number>;
  const line = (values: Record<Key, string>) =>
    shown
      .map((k, i) => (i === shown.length - 1 ? values[k] : padEnd(values[k], widths[k])))
      .join(' '.repeat(gap))
      .trimEnd();
  const rows = [fitStyled(style.bold(line(head)), o.width)];
  for (const c of cells) {
    // Waiting for a person (a permission prompt): yellow, as it needs someone.
    const state = c.waiting
      ? style.yellow(c.state)
      : c.sessionState === 'live'
        ? style.green(c.state)
        : c.sessionState === 'crashed'
          ? style.red(c.state)
          : style.dim(c.state);
    const row = line({
      list: style.bold(visibleWidth(c.list) > listWidth ? truncate(c.list, listWidth) : c.list),
      project: style.cyan(cutPath(c.project, projectWidth)),
      branch: c.branch,
      state,
      prompt: promptText(c.prompt === '' ? undefined : c.prompt, promptWidth),
      tasks: c.tasks + (c.problems === '' ? '' : style.red(c.problems)),
      changed: style.dim(c.changed),
      team: style.magenta(c.team),
    });
    rows.push(fitStyled(row, o.width));
  }
  return rows.join('\n');
}

/**
 * Piped: id, total, completed, in_progress, pending, last change (ISO), team (`-`),
 * members (comma-separated, `-`), then the session: state, working directory, branch,
 * session id, prompt (`-` where unknown), then the kind (`tasks`, `new`: a live session's
 * list before its first task, `todowrite`: a session's TodoWrite todos, `gone`: a folder
 * gone while its transcripts remain) and the session
 * that replaced it (`/clear`; `-`). Tab-separated; new columns go at the end.
 */
export function renderListsLines(lists: readonly ListRow[]): string {
  return lists
    .map((l) => {
      const s = shownSession(l);
      return listsLine({
        id: l.id,
        total: l.total,
        completed: l.counts.completed,
        inProgress: l.counts.in_progress,
        pending: l.counts.pending,
        changedAt: new Date(l.changedAt).toISOString(),
        team: l.team?.name,
        members: l.team?.members ?? [],
        state: s?.state,
        cwd: s?.cwd,
        branch: s?.branch,
        sessionId: s?.sessionId,
        prompt: s?.prompt,
        kind: l.kind,
        replacedBy: s?.replacedBy,
        replacedHow: s?.clearProof,
      });
    })
    .join('\n');
}

/**
 * The line `tasks lists` prints for a row of its `--json` (a host's answer to
 * `tasks lists -H a -H b`, which adds the host in front): the same fields, in the same
 * places, as the line printed where the lists are.
 */
export function renderListsJsonLine(row: Readonly<Record<string, unknown>>): string {
  const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const counts = (row.counts ?? {}) as Record<string, unknown>;
  const count = (v: unknown): number | string => (typeof v === 'number' ? v : '-');
  return listsLine({
    id: text(row.id) ?? '-',
    total: count(counts.total),
    completed: count(counts.completed),
    inProgress: count(counts.inProgress),
    pending: count(counts.pending),
    changedAt: text(row.changedAt) ?? '-',
    team: text(row.team),
    members: Array.isArray(row.members) ? row.members.filter((m): m is string => typeof m === 'string') : [],
    state: text(row.state),
    cwd: text(row.cwd),
    branch: text(row.branch),
    sessionId: text(row.sessionId),
    prompt: text(row.prompt),
    kind: text(row.kind) ?? '-',
    replacedBy: text(row.replacedBy),
    replacedHow: text(row.replacedHow),
  });
}

interface ListsLineFields {
  id: string;
  total: number | string;
  completed: number | string;
  inProgress: number | string;
  pending: number | string;
  changedAt: string;
  team: string | undefined;
  members: readonly string[];
  state: string | undefined;
  cwd: string | undefined;
  branch: string | undefined;
  sessionId: string | undefined;
  prompt: string | undefined;
  kind: string;
  replacedBy: string | undefined;
  replacedHow: string | undefined;
}

/** One place for the order of a line's fields, so the local and the hosts' lines cannot drift apart. */
function listsLine(f: ListsLineFields): string {
  const field = (v: string | undefined) => (v === undefined || v === '' ? '-' : oneLine(v).replace(/\t/g, ' '));
  return [
    oneLine(f.id),
    f.total,
    f.completed,
    f.inProgress,
    f.pending,
    f.changedAt,
    f.team ? oneLine(f.team) : '-',
    f.members.length > 0 ? f.members.map(oneLine).join(',') : '-',
    field(f.state),
    field(f.cwd),
    field(f.branch),
    field(f.sessionId),
    field(f.prompt?.replace(/\s+/g, ' ')),
    f.kind,
    field(f.replacedBy),
    field(f.replacedHow),
  ].join('\t');
}

/** `lists --json`: every field in full; the shown session's fields at the top level, every session in `sessions`. */
export function listJson(l: ListOverview, team: { name: string; members: string[] } | undefined) {
  const s = shownSession(l);
  return {
    id: l.id,
    shortId: l.shortId,
    kind: l.kind,
    path: l.kind === 'todowrite' ? null : l.dir,
    // The keys of every `counts` (watch's has the blocked counts besides).
    counts: { total: l.total, completed: l.counts.completed, inProgress: l.counts.in_progress, pending: l.counts.pending },
    problems: l.problems,
    changedAt: new Date(l.changedAt).toISOString(),
    team: team?.name ?? null,
    members: team?.members ?? [],
    aliases: l.aliases ?? [],
    ...sessionJson(s),
    sessions: l.sessions.map(sessionJson),
    ...(l.todos !== undefined ? { todos: l.todos } : {}),
    ...(l.unsure !== undefined ? { unsureSessions: l.unsure.map((s) => s.sessionId) } : {}),
    ...(l.mayBeElsewhere ? { unsure: true } : {}),
  };
}

/**
 * Lists reached under other names too (symlinks under `tasks/` to their folder), shown
 * once: `also, shared: other names of list real (symbolic links to its
 * folder), shown once, as real`.
 */
export function renderListAliases(l: ListOverview): string | undefined {
  const names = l.aliases ?? [];
  if (names.length === 0) return undefined;
  const one = names.length === 1;
  const id = oneLine(l.shortId);
  return `${names.map(oneLine).join(', ')}: ${one ? 'another name' : 'other names'} of list ${id} (${one ? 'a symbolic link' : 'symbolic links'} to its folder), shown once, as ${id}`;
}

/**
 * Lists whose sessions cannot be told apart (the same tasks, written at the same moments):
 * one line for each such set of sessions, `build-201, build-202: sessions 1a2b3c4d,
 * 5e6f7a8b may have worked on them (they hold the same tasks, written at the same
 * moments); which on which, the transcripts cannot tell: not shown as their sessions`.
 */
export function renderUnsureSessions(lists: readonly ListOverview[]): string[] {
  const groups = new Map<string, { lists: string[]; sessions: string[] }>();
  // Rows often share one array of sessions (one plan on many lists): its key is made once.
  const keys = new Map<readonly SessionInfo[], { key: string; sessions: string[] }>();
  for (const l of lists) {
    if (l.unsure === undefined) continue;
    let keyed = keys.get(l.unsure);
    if (keyed === undefined) {
      const sorted = l.unsure.map((s) => s.sessionId.slice(0, 8)).sort();
      keys.set(l.unsure, (keyed = { key: sorted.join(' '), sessions: sorted }));
    }
    const { key, sessions } = keyed;
    const group = groups.get(key) ?? { lists: [], sessions };
    group.lists.push(oneLine(l.shortId));
    groups.set(key, group);
  }
  return [...groups.values()].map((g) => {
    const one = g.lists.length === 1;
    const who = `session${g.sessions.length === 1 ? '' : 's'} ${firstFew(g.sessions, SESSIONS_NAMED)}`;
    const more =
      g.lists.length > LISTS_NAMED || g.sessions.length > SESSIONS_NAMED ? '; tasks lists --json names them all (unsureSessions)' : '';
    return `${firstFew(g.lists, LISTS_NAMED)}: ${who} may have worked on ${one ? 'it' : 'them'} (${one ? 'another list holds' : 'they hold'} the same tasks, written at the same moments); which on which, the transcripts cannot tell: not shown as ${one ? 'its' : 'their'} sessions${more}`;
  });
}

// A heavy user's world can hold hundreds of such sessions on dozens of lists: the note
// stays one readable line, and --json carries every one.
const LISTS_NAMED = 5;
const SESSIONS_NAMED = 6;

/** `a, b, c and 12 more`. */
function firstFew(names: readonly string[], max: number): string {
  if (names.length <= max) return names.join(', ');
  return `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
}

function sessionJson(s: SessionInfo | undefined) {
  const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
  return {
    sessionId: s?.sessionId ?? null,
    state: s?.state ?? null,
    activity: s?.activity ?? null,
    waitingFor: s?.activity === 'waiting' ? (s.waitingFor ?? null) : null,
    pid: s?.pid ?? null,
    sessionName: s?.name ?? null,
    cwd: s?.cwd ?? null,
    branch: s?.branch ?? null,
    prompt: s?.prompt ?? null,
    lastPrompt: s?.lastPrompt ?? null,
    firstActivity: iso(s?.firstActivity),
    lastActivity: iso(s?.lastActivity),
    transcript: s?.transcript ?? null,
    replacedBy: s?.replacedBy ?? null,
    replacedHow: s?.replacedBy === undefined ? null : (s.clearProof ?? 'times'),
    forkOf: s?.forkOf ?? null,
  };
}

/** `tasks lists` in a config folder with no list yet: how to start one. */
export function renderNoListsYet(configDir: string): string {
  return `no task lists under ${configDir} yet; start one with tasks -l <name> create "<subject>", or tasks use <name> to give a project a list its Claude Code sessions share`;
}

/** `940 older TodoWrite sessions not shown (960 in all): tasks lists --all shows them`. */
export function renderTodoWriteHidden(hidden: number, all: number): string {
  return `${hidden} older TodoWrite session${hidden === 1 ? '' : 's'} not shown (${all} in all): tasks lists --all shows them`;
}
