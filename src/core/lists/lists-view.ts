import type { SessionIndex, SessionInfo } from '../sessions/session-index.js';
import type { TeamProblem } from '../teams/team-config.js';
import { teamMembers, teamsByList } from '../teams/teams.js';
import { listFolders, tasksEntries, unusableListEntries } from './list-folders.js';
import { isWithin, type ListOverview, overviewLists } from './list-summary.js';
import { shortIds } from './short-ids.js';
import { type StalledAsk, type StalledRow, stalledAcrossLists } from './stalled-lists.js';

/** A list whose folder is gone while its sessions' transcripts remain (restore/gone-lists.ts finds them, for `lists --all`). */
export type GoneRow = Omit<ListOverview, 'problems' | 'kind' | 'shortId'>;

/** A row of `tasks lists`: a list, and the team it is the list of. */
export type ListsRow = ListOverview & { team?: { name: string; members: string[] } | undefined };

/** What `tasks lists` shows. */
export interface ListsView {
  /** The lists that match, newest change first. */
  lists: ListsRow[];
  /** Folders under tasks/ that no list id can name: skipped. */
  foreign: string[];
  /**
   * Entries under tasks/ no list can be read from (list-folders.ts), from the listing the
   * lists came from; undefined in an answer kept from an earlier run (kept-lists.ts), which
   * cannot know what a link leads to now: looked at by whoever shows it.
   */
  unusable?: Array<{ name: string; what: string }> | undefined;
  /** Team configs that could not be read: skipped. */
  teamProblems: TeamProblem[];
  /** Sessions whose tasks went to a list named only in their environment, its folder gone (where `here` asks, under it). */
  elsewhere: SessionInfo[];
  /** Asked for (`--stalled`): the stalled work of the lists that match, a row a list with any. */
  stalled?: StalledRow[] | undefined;
}

/**
 * Every list with its sessions and team, the gone ones among them when given (newest
 * first, short ids over all of them); `here`: only lists of sessions that ran in that
 * folder or below it; `live`: only lists of sessions running now.
 */
export function listsView(
  configDir: string,
  sessions: SessionIndex,
  o: {
    here?: string | undefined;
    live: boolean;
    gone?: { lists: readonly GoneRow[]; elsewhere: readonly SessionInfo[] } | undefined;
    stalled?: StalledAsk | undefined;
  },
): ListsView {
  const { here } = o;
  // tasks/ read once, for the lists, their other names and the folders skipped alike.
  const entries = tasksEntries(configDir);
  const lists = withGone(overviewLists(configDir, sessions, { entries }), o.gone?.lists ?? []).filter(
    (l) =>
      (here === undefined || l.sessions.some((s) => s.cwd !== undefined && isWithin(s.cwd, here))) &&
      (!o.live || l.sessions.some((s) => s.state === 'live')),
  );
  const foreign = listFolders(configDir, entries).foreign;
  const { byList, problems } = teamsByList(configDir);
  const teamOf = (id: string) => {
    const team = byList.get(id);
    return team === undefined ? undefined : { name: team.name, members: teamMembers(team) };
  };
  const elsewhere = (o.gone?.elsewhere ?? []).filter((s) => here === undefined || (s.cwd !== undefined && isWithin(s.cwd, here)));
  const stalled = o.stalled === undefined ? undefined : stalledAcrossLists(sessions, lists, o.stalled);
  const unusable = unusableListEntries(configDir, entries);
  return { lists: lists.map((l) => ({ ...l, team: teamOf(l.id) })), foreign, unusable, teamProblems: problems, elsewhere, stalled };
}

/** The rows of `lists`, with the gone lists among them (newest first, short ids over all of them). */
function withGone(rows: ListOverview[], gone: readonly GoneRow[]): ListOverview[] {
  if (gone.length === 0) return rows;
  const present = new Set(rows.map((r) => r.id));
  const all = [
    ...rows,
    ...gone.filter((g) => !present.has(g.id)).map((g): ListOverview => ({ ...g, problems: 0, kind: 'gone', shortId: g.id })),
  ].sort((a, b) => b.changedAt - a.changedAt || a.id.localeCompare(b.id));
  const short = shortIds(all.map((l) => l.id));
  return all.map((l) => ({ ...l, shortId: short.get(l.id) ?? l.id }));
}
