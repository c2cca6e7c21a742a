import { endOf, type GoneHeld, type GoneOwners, giversOf, goneOwners, overOn } from '../sessions/gone-owners.js';
import { hasKeptEvidence, sessionsOfList } from '../sessions/list-sessions.js';
import { claimedBy, holdersOf, touchedByLive } from '../sessions/session-deaths.js';
import type { SessionIndex } from '../sessions/session-index.js';
import { readList } from '../store/list-read.js';
import type { Task } from '../store/schema.js';
import { journalEntriesWith } from './journal-read.js';

/**
 * Owners given with `tasks`, by who gave them (the journal's actors): an owner a person
 * set is a person, never "gone" with a session; an owner an agent set (`--as`) is an
 * agent, gone like the list's agents when its sessions are over, or, when the agent ran
 * in a Claude Code session of its own (`$CLAUDE_CODE_SESSION_ID`), when that one is. The
 * last change that set an owner says which it is. A restore gives no owner: it writes
 * back the ones its record shows, and they stay what they were. Nor does an undo: it
 * puts back the owners the undone command replaced, who gave them as they were before
 * it (an agent's owner a person's change had replaced stays an agent's); a redo gives
 * them again as the command it applies again gave them.
 */
export interface OwnersSet {
  people: Set<string>;
  /** Agent owners, with the session each was set from (null: none known). */
  agents: Map<string, string | null>;
}

/** Who gave an owner: a person, or an agent with the session it was set from (null: none known). */
type Giver = { kind: 'person' } | { kind: 'agent'; session: string | null };

/** One owner a command gave: who had given that name before it (undefined: no one), and who gave it then. */
interface Given {
  owner: string;
  before: Giver | undefined;
  giver: Giver;
}

export function ownersSetWithTasks(listDir: string): OwnersSet {
  const givers = new Map<string, Giver>();
  const givenBy = new Map<string, Given[]>();
  /** Each undo or redo met, by its txn, with the txns it takes back. */
  const undoesOf = new Map<string, string[]>();
  // Only lines that name an owner are parsed: a long journal costs a search of its bytes.
  for (const entry of journalEntriesWith(listDir, '"owner"')) {
    // A restore puts back the owners its record shows, agents' included: it gives none.
    if (entry.command === 'restore') continue;
    let undoes = entry.undoes === undefined ? [] : typeof entry.undoes === 'string' ? [entry.undoes] : entry.undoes;
    let redoes = entry.redoes ?? [];
    // An older journal's undo of an undo (undo-stack.ts) was a redo of what that one took back.
    const inner = typeof entry.undoes === 'string' ? undoesOf.get(entry.undoes) : undefined;
    if (inner !== undefined) [undoes, redoes] = [[], inner];
    if (undoes.length > 0 || redoes.length > 0) {
      // One undo or redo is many lines (a write each): it is applied once, at its first.
      if (undoesOf.has(entry.txn)) continue;
      undoesOf.set(entry.txn, undoes);
      for (const txn of [...undoes].reverse()) {
        for (const g of [...(givenBy.get(txn) ?? [])].reverse()) {
          if (g.before === undefined) givers.delete(g.owner);
          else givers.set(g.owner, g.before);
        }
      }
      for (const txn of redoes) for (const g of givenBy.get(txn) ?? []) givers.set(g.owner, g.giver);
      continue;
    }
    const giver: Giver = entry.actor.kind === 'person' ? { kind: 'person' } : { kind: 'agent', session: entry.actor.session ?? null };
    for (const change of entry.changes) {
      const owner = change.op === 'update' ? change.fields.owner?.new : change.op === 'create' ? change.task.owner : undefined;
      if (typeof owner !== 'string' || owner === '') continue;
      const given = givenBy.get(entry.txn) ?? [];
      given.push({ owner, before: givers.get(owner), giver });
      givenBy.set(entry.txn, given);
      givers.set(owner, giver);
    }
  }
  const people = new Set<string>();
  const agents = new Map<string, string | null>();
  for (const [owner, giver] of givers) {
    if (giver.kind === 'person') people.add(owner);
    else agents.set(owner, giver.session);
  }
  return { people, agents };
}

/**
 * Owners in a list whose session is over (sessions/gone-owners.ts), as `tasks list` and
 * the board mark them, with what the journal knows: `person` (who runs tasks) and owners
 * people gave with tasks are never gone; an agent given as owner from a session of its
 * own is gone once that session is over (ended or crashed), whatever the list's sessions
 * do, unless a session of the list not over gave that name a task it holds now with its
 * own Task tools (two agents under one name, "main" say: the live one's work is never
 * taken). The journal is read only when it is asked about. `deep`: a named list's sessions
 * are found by their transcripts (sessions/list-sessions.ts).
 */
export function goneOwnersOfList(
  index: SessionIndex,
  listDir: string,
  listId: string,
  /** Or how to find it, asked only when the list's sessions are judged (the name may cost a lookup of the account). */
  person: string | undefined | (() => string | undefined),
  opts: { deep?: boolean; only?: readonly Task[]; kept?: boolean } = {},
): GoneOwners | undefined {
  let owners: OwnersSet | undefined;
  const known = () => (owners ??= ownersSetWithTasks(listDir));
  // The owners held now, by task: of the whole list, or of `only` (the tasks a view judges, not a 10,000-task list read to judge one).
  let holding: ReadonlyMap<string, string> | undefined;
  const owned = () =>
    (holding ??= new Map(
      (opts.only ?? readList(listDir).tasks).flatMap((t) => (t.owner === undefined || t.status === 'completed' ? [] : [[t.id, t.owner]])),
    ));
  const base = goneOwners(
    index,
    listId,
    () => {
      const never = new Set(known().people);
      const who = typeof person === 'function' ? person() : person;
      if (who !== undefined) never.add(who);
      // Agents tied to a session of their own are judged by it, below.
      for (const [agent, session] of known().agents) if (session !== null) never.add(agent);
      return never;
    },
    opts,
    owned,
  );
  const isOver = overOn(index, listId);
  const over = (session: string) => {
    const info = index.session(session);
    return info !== undefined && isOver(info);
  };
  // Owners a session of the list not over gave a task they hold now (its own Task-tool
  // writes): a live agent under that name, whoever gave the name with tasks before.
  let givenByLive: ReadonlyMap<string, unknown> | undefined;
  const liveGave = (owner: string) => {
    givenByLive ??= giversOf(
      index,
      sessionsOfList(index, listId, { deep: opts.deep, kept: opts.kept }).filter((s) => !isOver(s)),
      owned(),
    );
    return givenByLive.has(owner);
  };
  const ownSession = (owner: string | undefined) => (owner === undefined ? undefined : (known().agents.get(owner) ?? undefined));
  const anyOver = () => [...known().agents.values()].some((s) => s !== null && over(s));
  if (base === undefined && !anyOver()) return undefined;
  return {
    why: base?.why ?? 'its session is over',
    sessions: base?.sessions ?? [],
    isGone: (owner) => {
      const session = ownSession(owner);
      if (session !== undefined) return over(session) && !liveGave(owner as string);
      return base?.isGone(owner) ?? false;
    },
    whyOf: (owner) => {
      const session = ownSession(owner);
      if (session !== undefined) {
        const info = index.session(session);
        return info === undefined ? `session ${session.slice(0, 8)} is over` : endOf(index, info, listId).why;
      }
      return base?.whyOf(owner) ?? 'its session is over';
    },
    sessionOf: (owner) => {
      const session = ownSession(owner);
      if (session === undefined) return base?.sessionOf(owner);
      const info = index.session(session);
      return info === undefined ? undefined : endOf(index, info, listId).session;
    },
    byOwner: base?.byOwner ?? base === undefined,
  };
}

/**
 * The unfinished tasks whose agent is gone, for notify's agent-died and `release --gone`:
 * a task whose owner is gone (goneOwnersOfList), and a task in progress with no owner that
 * a session now over holds, the watch's answer (sessions/session-deaths.ts: the session
 * whose writes last claimed it, a solo agent's TaskUpdate to in_progress among them). A
 * task a session not over holds is never one of them, whatever its owner: a live agent's
 * work is never taken. `tasks`: the list as the caller read it (default: read now).
 */
export function goneHeldTasks(
  index: SessionIndex,
  listDir: string,
  listId: string,
  /** Or how to find it, asked only when owners are judged (as goneOwnersOfList). */
  person: string | undefined | (() => string | undefined),
  tasks: readonly Task[] = readList(listDir).tasks,
  /**
   * false: only tasks with no owner are judged, and owners not at all. 'given': owners
   * are judged by `tasks` alone, not by the whole list (whose read a view of a few tasks
   * should not pay): an owner is gone when the sessions that gave it these tasks are over.
   */
  /**
   * `quick`: a view's look (list, get): a named list's sessions from the evidence kept, as
   * `get` finds its last change (list-sessions.ts), not from every transcript's again.
   */
  opts: { owners?: boolean | 'given'; quick?: boolean } = {},
): { gone: GoneOwners | undefined; held: GoneHeld[]; spared?: SparedTask[] } {
  const open = tasks.filter((t) => t.status !== 'completed');
  const only = opts.owners === 'given' ? tasks : undefined;
  const kept = opts.quick === true && hasKeptEvidence(index, listId);
  const gone = opts.owners === false ? undefined : goneOwnersOfList(index, listDir, listId, person, { deep: true, only, kept });
  const ownerGone = (t: Task) => t.owner !== undefined && t.owner !== '' && gone?.isGone(t.owner) === true;
  const unowned = (t: Task) => t.status === 'in_progress' && (t.owner === undefined || t.owner === '');
  if (!open.some((t) => ownerGone(t) || unowned(t))) return { gone, held: [] };
  const isOver = overOn(index, listId);
  const sessions = sessionsOfList(index, listId, { deep: true, kept });
  // Nothing to take from a list none of whose sessions is over.
  if (!open.some(ownerGone) && !sessions.some(isOver)) return { gone, held: [] };
  const holders = holdersOf(
    index,
    sessions.map((s) => s.sessionId),
    tasks,
    listDir,
  );
  const overHeld = new Map(
    [...holders].filter(([, id]) => {
      const s = index.session(id);
      return s !== undefined && isOver(s);
    }),
  );
  // A session not over that wrote such a task too (a fork, an agent taking it up) may be at work on it.
  const live = sessions.filter((s) => !isOver(s)).map((s) => s.sessionId);
  const touched = touchedByLive(index, overHeld, live);
  const held: GoneHeld[] = [];
  const spared: SparedTask[] = [];
  for (const t of open) {
    const holderId = holders.get(t.id);
    const holder = holderId === undefined ? undefined : index.session(holderId);
    const goesOn = touched.get(t.id);
    if (holder !== undefined && !isOver(holder)) continue;
    const gives = ownerGone(t) || (unowned(t) && holder !== undefined && claimedBy(index, holder.sessionId, t.id));
    if (!gives) continue;
    // Its agent is gone, but a live session may go on with it: never taken, and said why.
    if (goesOn !== undefined && holder !== undefined) {
      spared.push({ task: t, session: goesOn.session, forkOf: goesOn.fork ? holder.sessionId : undefined });
      continue;
    }
    if (ownerGone(t)) held.push({ task: t, why: gone?.whyOf(t.owner) ?? '', session: gone?.sessionOf(t.owner), unowned: false });
    else if (holder !== undefined) {
      const end = endOf(index, holder, listId);
      held.push({ task: t, why: end.why, session: end.session, unowned: true });
    }
  }
  return { gone, held, ...(spared.length > 0 ? { spared } : {}) };
}

/** An unfinished task whose agent is gone that a live session may go on with: `release --gone` leaves it, and says why. */
export interface SparedTask {
  task: Task;
  /** The live session. */
  session: string;
  /** It is a fork of this session, the one that held the task (it goes on from its parent's work). */
  forkOf?: string | undefined;
}

/**
 * The tasks in progress whose agent is gone, by id: goneHeldTasks' answer, as `list`, `get`
 * and `check` mark them. One with no owner is gone with the session that held it; one with
 * an owner, with the sessions that gave its owner these tasks (its owner judged by `tasks`
 * alone, not by the whole list). Nothing of the sessions is read unless one of `tasks` is
 * in progress: a list with none costs what it did. A live session's task, the one a process
 * goes on with after `/clear` on a shared list among them, is never one.
 */
export function goneHeldInProgress(
  index: SessionIndex,
  listDir: string,
  listId: string,
  person: string | undefined | (() => string | undefined),
  tasks: readonly Task[],
): ReadonlyMap<string, GoneHeld> {
  const judged = tasks.filter((t) => t.status === 'in_progress');
  // No transcript, no session that could have held one: nothing to ask.
  if (judged.length === 0 || index.transcripts().size === 0) return new Map();
  // Owners are judged here on a named list alone: a session's own list (or its team's) has
  // its sessions known without reading transcripts, and its owners judged so (goneOwners),
  // where reading them all again would cost a list of a session's own 40-140 ms more.
  const owned = judged.some((t) => t.owner !== undefined && t.owner !== '') && index.ownersOfList(listId).length === 0;
  const { held } = goneHeldTasks(index, listDir, listId, person, judged, { owners: owned ? 'given' : false, quick: true });
  // Every task judged is in progress: so is every one held.
  return new Map(held.map((h) => [h.task.id, h]));
}
