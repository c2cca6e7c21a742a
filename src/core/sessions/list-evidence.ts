import type { SeenTask, TaskWrite } from './transcript-tasks.js';

/**
 * Which lists sessions worked on, from what their transcripts show of their tasks
 * (transcript-tasks.ts) against what each list holds now. Pure.
 *
 * Each thing a session did to a task is an item: a TaskCreate and the TaskUpdates that
 * followed it (a second create of the same id is another list's task: a session can move
 * to another list while it runs), a TaskUpdate of a task it did not make (a worker), or a
 * task its TaskList and TaskGet showed it. An item is held against each list's file of
 * that id:
 *
 * - another subject: it is not this file (-1);
 * - an item with writes, whose file was last written before the session's last write to
 *   it: not this file either (-1); written by that very write (between its call and its
 *   result): the surest agreement (3); written since (someone changed it after): 2;
 * - a task it only saw, under that subject: 1 (a created one whose file is older than the
 *   session, when no time of its own is known: a copy made before it, -1);
 * - the later writes of an item cut in two (splitItem), with no subject of their own: only a
 *   file their very write made agrees (3); one written since tells nothing (0);
 * - no such file: nothing (lists are reset, emptied and garbage-collected,
 *   docs/task-store.md section 17).
 *
 * An item goes to the list that agrees best. Where lists tie (two builds running one plan
 * at the same moment), what else is known decides: a task file is made by one create
 * only, so a create already placed by another session's surer item is not this one's;
 * and a list the session is known to work on (its own, its team's, the one its running
 * process names) or that its other items went to wins. A tie that nothing decides is
 * reported as unsure, never attributed.
 */
export interface ListFile {
  subject: string;
  /** The task file's mtime (ms). */
  mtimeMs: number;
}

/** What one session's transcripts show, and the lists it is known to work on. */
export interface SessionTasks {
  sessionId: string;
  /** Tasks its tools showed it, each with the subject it last saw. */
  seen: readonly SeenTask[];
  writes: readonly TaskWrite[];
  /** Its first entry (ms): for shown tasks it made, where no write time is known. */
  start?: number | undefined;
  /** Lists it is known to work on: a tie among them goes to them. */
  known?: readonly string[] | undefined;
}

export interface Attribution {
  /** List id -> the sessions its tasks show worked on it. */
  byList: Map<string, string[]>;
  /** List id -> sessions that worked on it or on another list that holds the same tasks, which their transcripts cannot tell. */
  unsure: Map<string, string[]>;
}

/**
 * Slack on file times against transcript times. A file's mtime comes from the kernel's
 * coarse clock, a few ms behind the clock Claude Code stamps its entries with (seen with
 * 2.1.328: a TaskUpdate's file stamped 1.4 ms before its call's entry, the next one's
 * between its call and its result). A quarter second keeps two CI builds started one
 * after the other (0.7 s apart, seen) apart. Where the folder's clock is further off (a
 * disk on another host), writes match less: sessions are tied to fewer lists, never
 * taken for over on a list they did not write.
 */
const SLACK_MS = 250;

export interface Item {
  id: string;
  subject?: string | undefined;
  created: boolean;
  /** The last write's call and result times; undefined for a task only seen. */
  lastAt?: number | undefined;
  lastEnd?: number | undefined;
  deleted?: boolean | undefined;
  /** Its writes, in order (none for a task only seen). */
  writes?: TaskWrite[] | undefined;
  /** The later writes of an item cut in two (splitItem): they may be of another list's task. */
  cut?: boolean | undefined;
}

/** A session's items, in the order of its writes, then the tasks it only saw. */
export function itemsOf(seen: readonly SeenTask[], writes: readonly TaskWrite[]): Item[] {
  const items: Item[] = [];
  const current = new Map<string, Item>();
  const count = new Map<string, number>();
  for (const w of writes) {
    let item = w.created ? undefined : current.get(w.id);
    if (item === undefined) {
      item = { id: w.id, created: w.created, writes: [] };
      items.push(item);
      current.set(w.id, item);
      count.set(w.id, (count.get(w.id) ?? 0) + 1);
    }
    item.writes?.push(w);
    item.lastAt = w.at;
    item.lastEnd = w.end;
    if (w.subject !== undefined) item.subject = w.subject;
    if (w.deleted) item.deleted = true;
  }
  for (const t of seen) {
    const item = current.get(t.id);
    if (item === undefined) items.push({ id: t.id, subject: t.subject, created: t.created });
    // What it saw last is the newest word on the subject, where one item has the id.
    else if (count.get(t.id) === 1) item.subject = t.subject;
  }
  return items.filter((i) => !i.deleted);
}

/** The item these writes make, in order (the first a create or not); `cut`: the later part of an item cut in two. */
function itemOfWrites(writes: readonly TaskWrite[], cut = false): Item {
  const first = writes[0] as TaskWrite;
  const last = writes[writes.length - 1] as TaskWrite;
  const item: Item = { id: first.id, created: first.created, writes: [...writes], lastAt: last.at, lastEnd: last.end };
  if (cut) item.cut = true;
  for (const w of writes) if (w.subject !== undefined) item.subject = w.subject;
  if (writes.some((w) => w.deleted)) item.deleted = true;
  return item;
}

/**
 * An item no list agrees with, cut where its writes went to two lists: a session resumed
 * under another list (CLAUDE_CODE_TASK_LIST_ID) creates its `#1` there, and an update of
 * `#1` made back on the first list joins that create, which neither list's file matches.
 * The longest run of its first writes that some list agrees with is one item, the rest
 * another (cut again as needed; found by bisection: a shorter run ends earlier, and a
 * file written since agrees with it). `agrees`: some list's file agrees with it;
 * undefined where no list has a file of its id (a task gone: nothing to cut by).
 */
export function splitItem(item: Item, agrees: (item: Item) => boolean | undefined): Item[] {
  const writes = item.writes ?? [];
  if (writes.length < 2 || agrees(item) !== false) return [item];
  let lo = 1;
  let hi = writes.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (agrees(itemOfWrites(writes.slice(0, mid)))) lo = mid;
    else hi = mid - 1;
  }
  return [itemOfWrites(writes.slice(0, lo), item.cut), ...splitItem(itemOfWrites(writes.slice(lo), true), agrees)];
}

/** How well one item agrees with a list's file of its id (undefined: the list has none). */
export function scoreItem(item: Item, file: ListFile | undefined, start: number | undefined): number | undefined {
  if (file === undefined) return undefined;
  if (item.subject !== undefined && file.subject !== item.subject) return -1;
  if (item.lastAt !== undefined) {
    if (file.mtimeMs < item.lastAt - SLACK_MS) return -1;
    if (file.mtimeMs <= (item.lastEnd ?? item.lastAt) + SLACK_MS) return 3;
    // The later writes of an item cut in two, with no subject of their own: a file written by
    // them is theirs, but one changed since may be any list's task of that id (a session's own
    // #1, made and completed in a list now gone, is no evidence for another project's #1 made
    // hours later). Nothing either way.
    return item.cut && item.subject === undefined ? 0 : 2;
  }
  if (item.created && start !== undefined && file.mtimeMs < start - SLACK_MS) return -1;
  return 1;
}

/** The best score an item can get (a tie at it cannot be beaten elsewhere). */
function bestPossible(item: Item): number {
  return item.lastAt !== undefined ? 3 : 1;
}

/**
 * Which lists each session worked on. `filesOf(list, ids)`: that list's files of those
 * ids; `listsWith(ids)`: the lists that have a file of any of them.
 */
export function attributeSessions(
  sessions: readonly SessionTasks[],
  listsWith: (ids: readonly string[]) => readonly string[],
  fileOf: (list: string, id: string) => ListFile | undefined,
): Attribution {
  interface Placed {
    session: SessionTasks;
    item: Item;
    candidates: string[];
    /** How well it agrees with its candidates (scoreItem). */
    score: number;
    list?: string | undefined;
  }
  const placed: Placed[] = [];
  for (const session of sessions) {
    const whole = itemsOf(session.seen, session.writes);
    if (whole.length === 0) continue;
    const known = session.known ?? [];
    let others: readonly string[] | undefined;
    const agrees = (item: Item) => {
      others ??= listsWith(whole.map((i) => i.id));
      const scores = [...known, ...others].map((list) => scoreItem(item, fileOf(list, item.id), session.start));
      return scores.every((x) => x === undefined) ? undefined : scores.some((x) => x !== undefined && x > 0);
    };
    const items = whole.flatMap((item) => splitItem(item, agrees)).filter((i) => !i.deleted);
    for (const item of items) {
      const candidatesIn = (lists: readonly string[]) => {
        let best = 0;
        let found: string[] = [];
        for (const list of lists) {
          const score = scoreItem(item, fileOf(list, item.id), session.start);
          if (score === undefined || score <= 0 || score < best) continue;
          if (score > best) found = [];
          best = score;
          found.push(list);
        }
        return { best, found };
      };
      // A list it is known to work on that agrees as well as any list can: nothing else to look at.
      const mine = candidatesIn(known);
      if (mine.found.length > 0 && mine.best === bestPossible(item)) {
        placed.push({ session, item, candidates: mine.found, score: mine.best });
        continue;
      }
      others ??= listsWith(items.map((i) => i.id));
      const elsewhere = candidatesIn(others);
      placed.push({ session, item, candidates: elsewhere.found, score: elsewhere.best });
    }
  }
  // The surest items first: a file made by one create goes to the create that made it (its
  // write's time), never to an earlier session's create of the same task that a later write
  // only touched, whichever transcript was read first.
  placed.sort((a, b) => b.score - a.score);
  // Place what is certain, then what the creates already placed and the sessions' lists decide.
  const slotOwner = new Map<string, string>();
  const slot = (list: string, id: string) => `${list}\0${id}`;
  const listsOf = new Map<string, Set<string>>();
  const place = (p: Placed, list: string) => {
    p.list = list;
    if (p.item.created && !slotOwner.has(slot(list, p.item.id))) slotOwner.set(slot(list, p.item.id), p.session.sessionId);
    let lists = listsOf.get(p.session.sessionId);
    if (lists === undefined) listsOf.set(p.session.sessionId, (lists = new Set()));
    lists.add(list);
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (const p of placed) {
      if (p.list !== undefined || p.candidates.length === 0) continue;
      const open = p.candidates.filter((list) => {
        const owner = p.item.created ? slotOwner.get(slot(list, p.item.id)) : undefined;
        return owner === undefined || owner === p.session.sessionId;
      });
      if (open.length < p.candidates.length) {
        p.candidates = open;
        changed = true;
      }
      const mine = new Set([...(p.session.known ?? []), ...(listsOf.get(p.session.sessionId) ?? [])]);
      const preferred = open.length > 1 ? open.filter((l) => mine.has(l)) : open;
      if (preferred.length === 1) {
        place(p, preferred[0] as string);
        changed = true;
      }
    }
  }
  // Sets while gathering: a list can have hundreds of sessions (ordered as first placed).
  const byList = new Map<string, Set<string>>();
  const unsure = new Map<string, Set<string>>();
  const add = (map: Map<string, Set<string>>, list: string, id: string) => {
    const ids = map.get(list);
    if (ids === undefined) map.set(list, new Set([id]));
    else ids.add(id);
  };
  for (const p of placed) if (p.list !== undefined) add(byList, p.list, p.session.sessionId);
  for (const p of placed) {
    if (p.list !== undefined || p.candidates.length < 2) continue;
    for (const list of p.candidates) if (!byList.get(list)?.has(p.session.sessionId)) add(unsure, list, p.session.sessionId);
  }
  const arrays = (map: Map<string, Set<string>>) => new Map([...map].map(([list, ids]) => [list, [...ids]]));
  return { byList: arrays(byList), unsure: arrays(unsure) };
}
