import type { Finding } from '../check/findings.js';
import { isBlocked, type TaskIndex } from '../graph/blockers.js';
import type { WaitingSession } from '../progress/stalled-work.js';
import type { BusyOnList } from '../sessions/busy-on-list.js';
import { compareIds } from '../store/ids.js';
import { isInternal, type Task } from '../store/schema.js';
import type { HookRefusal } from './hook-refusals.js';
import type { NotifyEventType } from './notify-plan.js';

/** The live sessions of a list with open work, by process, or true where one lives by its transcript alone. */
export type LiveOpen = true | ReadonlyArray<{ pid: number; named: string | undefined }>;

/**
 * What needs a person on one list, now: a pure function of what is known of the list.
 * Each event has a key that names the condition (the list, the tasks, the owner): while
 * the condition lasts its key stays the same, so it is told once; when it clears and
 * comes back, it is told again.
 */

/** What is known of one list at one moment (list-facts.ts gathers it). */
export interface ListFacts {
  listId: string;
  /** How people name the list (its short id). */
  shortId: string;
  /** The project folder its sessions ran in, when known. */
  project: string | undefined;
  /** Its latest session, when known. */
  session: string | undefined;
  /** That session's last run crashed (SIGKILL, out of memory, a machine switched off): a plan may be cut short. */
  sessionCrashed?: boolean | undefined;
  tasks: readonly Task[];
  index: TaskIndex;
  /** People: the person running notify, and owners people gave with tasks. */
  people: ReadonlySet<string>;
  /** Live sessions of the list waiting for a person (a permission prompt, a dialog). */
  waiting?: readonly WaitingSession[] | undefined;
  /**
   * Sessions at work on the list now (busy on a turn, or just started), asked only when
   * every task is completed: its agent may yet add or reopen tasks, so the list is not
   * finished while one works (the gate of `watch --until all-completed`, busy-on-list.ts).
   */
  busy?: readonly BusyOnList[] | undefined;
  /** In progress, unchanged for the stall time, no session busy: id -> idle ms. */
  stalled: ReadonlyMap<string, number>;
  /** Its work in progress waits for a person now (then nothing of it stalls): asked only where stalls are. */
  waitingWork?: boolean | undefined;
  /** When each task last changed (its file's time): names a stall's spell, which lasts while the task does not change. */
  times?: ReadonlyMap<string, number> | undefined;
  /**
   * Agents gone while they hold work in progress, with why and the session: an owner whose
   * session is over, or (`owner` undefined) a session over that held tasks with no owner.
   * `tasks`: the ids they hold (absent: the owner's tasks in progress).
   */
  gone: ReadonlyArray<{
    owner: string | undefined;
    why: string;
    session: string | undefined;
    endedAt?: number | undefined;
    tasks?: readonly string[] | undefined;
  }>;
  /**
   * Every session of the list is over, the last one ended or crashed (not by `/clear`: a
   * person's doing) lately or while watched, and tasks are still open: no agent is left to do them.
   */
  left?: { session: string; why: string; endedAt: number | undefined } | undefined;
  /**
   * Tasks are open and a session of the list may still be at work: its end is looked for
   * (notifier.ts). The processes of its live sessions, each with the session its
   * live-session file named then, looked at each round (the list is looked at again once
   * one has gone, or its file names another session: a `/clear`); true where life is not a
   * process's (a transcript still written): looked at each round.
   */
  liveOpen?: LiveOpen | undefined;
  /** `check`'s errors. */
  errors: readonly Finding[];
  /** Some `check` error is seen but still waits out its grace: whether it is damage is not known yet. */
  errorsPending?: boolean | undefined;
  /** Changes a TaskCreated/TaskCompleted hook refused lately, oldest first (absent: not asked). */
  refused?: readonly HookRefusal[] | undefined;
}

export interface NotifyTask {
  id: string;
  subject: string;
  status: string;
  owner: string | null;
}

export interface NotifyEvent {
  type: NotifyEventType;
  /** Names the condition; unchanged while it lasts. */
  key: string;
  list: string;
  shortId: string;
  project: string | undefined;
  session: string | undefined;
  tasks: NotifyTask[];
  title: string;
  text: string;
  /** The command that acts on it. */
  action: string;
  /** ntfy's 1..5. */
  priority: 1 | 2 | 3 | 4 | 5;
  /** When it happened (ms), where the records say: a session's end, a hook's refusal. Not sent in a message. */
  happenedAt?: number | undefined;
}

const brief = (t: Task): NotifyTask => ({ id: t.id, subject: t.subject, status: t.status, owner: t.owner ?? null });
const ids = (tasks: readonly Task[]) => tasks.map((t) => `#${t.id}`).join(', ');
/** Claude Code says what a session waits for in a few words ("permission prompt"): a longer text is damage, cut for a person to read. */
const clipped = (words: string) => (words.length > 100 ? `${words.slice(0, 99)}…` : words);
const quoted = (t: Task) => `#${t.id} "${t.subject.length > 60 ? `${t.subject.slice(0, 59)}…` : t.subject}"`;

function duration(ms: number): string {
  const m = Math.round(ms / 60_000);
  if (m < 1) return `${Math.round(ms / 1000)}s`;
  if (m < 120) return `${m}m`;
  return `${Math.round(m / 60)}h`;
}

/** A task file written this soon after a session's last entry is still its work (the file's time and the entry's differ by a little). */
const LEFT_SLACK_MS = 5000;

const stallSpell = (id: string, changedAt: number | undefined) => `${id}|${changedAt === undefined ? '' : Math.round(changedAt)}`;

/**
 * A stall's key: the task and when it last changed. While the task stays in progress and
 * unchanged, its spell lasts, whether a stall shows now or another session's work hides
 * it for a while: told once (notifier.ts keeps its claim); a change starts a new spell.
 */
export function stallKey(listId: string, id: string, changedAt: number | undefined): string {
  return `stalled|${listId}|${stallSpell(id, changedAt)}`;
}

export function listEvents(facts: ListFacts, wanted: ReadonlySet<NotifyEventType>): NotifyEvent[] {
  const l = `-l ${facts.shortId}`;
  const where = facts.project === undefined ? `list ${facts.shortId}` : `list ${facts.shortId} (${facts.project})`;
  const base = { list: facts.listId, shortId: facts.shortId, project: facts.project, session: facts.session };
  const out: NotifyEvent[] = [];
  const add = (type: NotifyEventType, detail: string, rest: Omit<NotifyEvent, 'type' | 'key' | keyof typeof base>) => {
    if (wanted.has(type)) out.push({ type, key: `${type}|${facts.listId}|${detail}`, ...base, ...rest });
  };
  const { tasks } = facts;
  const byId = new Map(tasks.map((t) => [t.id, t]));

  if (tasks.length > 0 && tasks.every((t) => t.status === 'completed') && (facts.busy?.length ?? 0) === 0) {
    // Named by how many tasks and the highest id: ids are never used again, so a list finished
    // anew (a task added and completed since, even between two looks) is told anew, while the
    // same finished list is never told twice.
    const highest = tasks.reduce((top, t) => (compareIds(t.id, top) > 0 ? t.id : top), tasks[0]?.id ?? '');
    add('list-completed', `${tasks.length}:${highest}`, {
      tasks: tasks.map(brief),
      title: `Done: ${where}`,
      // Completed as far as its agent got: one killed between two steps of its plan never made the next.
      text: `every task of ${where} is completed (${tasks.length})${facts.sessionCrashed === true && facts.session !== undefined ? `; but session ${facts.session.slice(0, 8)} crashed, and may not have made every step of its plan` : ''}`,
      action: `tasks ${l} list`,
      priority: 3,
    });
  }

  // One waiting spell, one key: the status's time, when the file gives it, tells a new
  // spell from the last even if the busy turn between them was too short to be seen.
  for (const w of facts.waiting ?? []) {
    const who = w.name === undefined ? `session ${w.session.slice(0, 8)}` : `session ${w.name} (${w.session.slice(0, 8)})`;
    const open = tasks.filter((t) => t.status !== 'completed');
    add('needs-you', `${w.session}|${w.since ?? ''}`, {
      ...{ session: w.session },
      // Its own work: on a shared list, the tasks it holds (stalled-work.ts), not the other agents'.
      tasks: open.filter((t) => t.status === 'in_progress' && (w.holds === undefined || w.holds.includes(t.id))).map(brief),
      title: `Waiting for you: ${facts.shortId}`,
      text: `${who} of ${where} is waiting for you${w.waitingFor === undefined ? '' : ` (${clipped(w.waitingFor)})`}`,
      action: `tasks -l ${facts.shortId} list`,
      priority: 4,
    });
  }

  for (const t of tasks) {
    if (t.status === 'completed' || t.owner === undefined || !facts.people.has(t.owner)) continue;
    if (isBlocked(t, facts.index)) continue;
    const waiting = tasks.filter((o) => o.status !== 'completed' && o.blockedBy.includes(t.id));
    add('ready-for-person', `${t.id}|${t.owner}`, {
      tasks: [brief(t), ...waiting.map(brief)],
      title: `Ready for ${t.owner}: #${t.id}`,
      text:
        `${quoted(t)} in ${where} is ${t.owner}'s and ready` +
        (waiting.length > 0 ? `; ${waiting.length === 1 ? '1 task waits' : `${waiting.length} tasks wait`} on it (${ids(waiting)})` : ''),
      action: `tasks ${l} get ${t.id}`,
      priority: 4,
    });
  }

  // A task held by a gone agent is told once, as the agent's death (the more specific: it says why, and what to run).
  const heldBy = (g: ListFacts['gone'][number]) =>
    tasks.filter((t) => t.status === 'in_progress' && (g.tasks === undefined ? t.owner === g.owner : g.tasks.includes(t.id)));
  const heldByGone = new Set(wanted.has('agent-died') ? facts.gone.flatMap((g) => heldBy(g).map((t) => t.id)) : []);
  for (const [id, idleMs] of facts.stalled) {
    const t = byId.get(id);
    if (t === undefined || heldByGone.has(id)) continue;
    add('stalled', stallSpell(id, facts.times?.get(id)), {
      tasks: [brief(t)],
      title: `Stalled: #${id} in ${facts.shortId}`,
      text: `${quoted(t)} in ${where} has been in progress for ${duration(idleMs)} without a change${t.owner ? ` (${t.owner})` : ''}, and no session is at work`,
      action: `tasks ${l} get ${id}`,
      priority: 4,
    });
  }

  for (const g of facts.gone) {
    const held = heldBy(g);
    if (held.length === 0) continue;
    // Tasks with no owner: the session that held them is the agent gone.
    const who = g.owner ?? `session ${g.session?.slice(0, 8) ?? '?'}`;
    // One key a death: a session resumed and gone again, still holding the work, is told again
    // (by --once runs that never saw it at work in between), one death never twice.
    const end = g.endedAt === undefined ? '' : Math.round(g.endedAt);
    add('agent-died', `${g.owner ?? `session ${g.session ?? ''}`}|${held.map((t) => t.id).join(',')}|${end}`, {
      ...(g.session === undefined ? {} : { session: g.session }),
      tasks: held.map(brief),
      title: `Agent gone: ${who} in ${facts.shortId}`,
      text: g.owner === undefined ? `${g.why} holding ${ids(held)} in ${where}` : `${g.owner} holds ${ids(held)} in ${where}, but ${g.why}`,
      action: `tasks ${l} release --gone`,
      priority: 4,
      happenedAt: g.endedAt,
    });
  }

  // Open work the list's last agent left: what agent-died tells is not told again here.
  // Not a task hidden from agents (metadata._internal: a sentinel that keeps a finished list
  // from being reset), nor one made or reopened after the session ended (a person's, for later).
  const endedAt = facts.left?.endedAt;
  const leftByIt = (t: Task) => endedAt === undefined || (facts.times?.get(t.id) ?? 0) <= endedAt + LEFT_SLACK_MS;
  const leftOpen =
    facts.left === undefined
      ? []
      : tasks.filter(
          (t) =>
            t.status !== 'completed' &&
            !isInternal(t) &&
            leftByIt(t) &&
            !heldByGone.has(t.id) &&
            (t.owner === undefined || !facts.people.has(t.owner)),
        );
  if (facts.left !== undefined && leftOpen.length > 0) {
    const n = leftOpen.length;
    // One key an end: a session resumed and ended again with work open is told again, even
    // by runs that never saw it at work in between (--once from cron).
    const end = facts.left.endedAt === undefined ? '' : Math.round(facts.left.endedAt);
    add('work-left', `${facts.left.session}|${end}`, {
      ...{ session: facts.left.session },
      tasks: leftOpen.map(brief),
      title: `Work left: ${facts.shortId}`,
      text: `${facts.left.why} with ${n === 1 ? '1 task' : `${n} tasks`} not done in ${where}: ${ids(leftOpen.slice(0, 10))}${n > 10 ? ', …' : ''}`,
      action: `tasks ${l} list`,
      priority: 4,
      happenedAt: facts.left.endedAt,
    });
  }

  for (const r of facts.refused ?? []) {
    const t = r.taskId === undefined ? undefined : byId.get(r.taskId);
    const what =
      r.hook === 'TaskCompleted'
        ? `completion of ${t !== undefined ? quoted(t) : r.taskId !== undefined ? `#${r.taskId}` : 'a task'}`
        : `new task${r.subject !== undefined ? ` "${r.subject.length > 60 ? `${r.subject.slice(0, 59)}…` : r.subject}"` : ''}`;
    add('hook-refused', `${r.session}|${r.toolUseId}`, {
      ...(r.session === '' ? {} : { session: r.session }),
      tasks: t === undefined ? [] : [brief(t)],
      title: `Hook refused: ${r.hook === 'TaskCompleted' ? `#${r.taskId ?? '?'} done` : 'a new task'} in ${facts.shortId}`,
      text: `a ${r.hook} hook refused session ${r.session.slice(0, 8)}'s ${what} in ${where}: ${r.reason}`,
      action: t !== undefined ? `tasks ${l} get ${t.id}` : `tasks ${l} log`,
      priority: 4,
      happenedAt: r.at,
    });
  }

  const cycles = facts.errors.filter((f) => f.code === 'cycle');
  if (cycles.length > 0) {
    const inCycles = [...new Set(cycles.flatMap((f) => (Array.isArray(f.cycle) ? (f.cycle as string[]) : [])))];
    add('blocked-cycle', inCycles.join(','), {
      tasks: inCycles.flatMap((id) => (byId.has(id) ? [brief(byId.get(id) as Task)] : [])),
      title: `Blocked forever: ${facts.shortId}`,
      text: `${cycles.map((f) => cycleWords(Array.isArray(f.cycle) ? (f.cycle as string[]) : [])).join('; ')} in ${where}: none of them can ever start`,
      action: `tasks ${l} check`,
      priority: 4,
    });
  }
  const damage = facts.errors.filter((f) => f.code !== 'cycle');
  if (damage.length > 0) {
    add('damage', damage.map((f) => `${f.code}:${f.file ?? f.id ?? ''}`).join(','), {
      tasks: damage.flatMap((f) => (f.id !== undefined && byId.has(f.id) ? [brief(byId.get(f.id) as Task)] : [])),
      title: `Damaged: ${facts.shortId}`,
      text: `${damage.length === 1 ? (damage[0] as Finding).message : `${damage.length} problems, first: ${(damage[0] as Finding).message}`} in ${where}`,
      action: damage.some((f) => f.fixable) ? `tasks ${l} check --fix` : `tasks ${l} check`,
      priority: 5,
    });
  }
  return out;
}

/**
 * A cycle as its ids, "dependency cycle #1 -> #2 -> #1" ("task #1 blocks itself"): the
 * check finding's message goes on to say none can start, which the event says once, last.
 */
function cycleWords(cycle: readonly string[]): string {
  return cycle.length === 2 ? `task #${cycle[0]} blocks itself` : `dependency cycle ${cycle.map((id) => `#${id}`).join(' -> ')}`;
}
