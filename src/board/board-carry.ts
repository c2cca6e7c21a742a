import { TasksError } from '../core/base/errors.js';
import { type CarryOutcome, carryWork } from '../core/carry/carry-run.js';
import { chooseList } from '../core/lists/list-choice.js';
import { listAfterClear } from '../core/sessions/cleared-lists.js';
import { sessionsOfList } from '../core/sessions/list-sessions.js';
import { liveSessionLists } from '../core/sessions/live-lists.js';
import type { SessionIndex, SessionInfo } from '../core/sessions/session-index.js';
import { carryWarnings, renderCarry, renderCarrySummary } from '../render/carry-report.js';
import { listWords } from '../render/new-list.js';
import { stateText, tildePath } from '../render/session-text.js';
import { PLAIN } from '../render/style.js';
import type { CarryPreviewPayload, CarryTargetView } from './board-protocol.js';
import { shortOf } from './board-undo.js';

/**
 * Carrying a list's unfinished work from the board: `tasks --session <to> carry --from
 * <list>`, the same core run (carry/carry-run.ts) with the same dry run, refusals and
 * journal (one txn in both lists, so that `tasks undo` in either takes it back whole).
 * The board offers as targets the live sessions that would take the work up: the session
 * a `/clear` of the list's own session went on as (`cleared -> <id>` in `tasks lists`),
 * then the other live sessions of the list's project. A carry is made only while the
 * session chosen is still live: its agent is the one that will see the work.
 */
export interface CarryContext {
  configDir: string;
  person: string | undefined;
  home: string;
}

/** "session 9a0b1c2d (live, idle) · ~/work/web": a session as carry and restore offer it. */
export function sessionLabel(s: SessionInfo, home: string): string {
  const where = s.cwd === undefined ? '' : ` · ${tildePath(s.cwd, home)}`;
  return `session ${s.sessionId.slice(0, 8)} (${stateText(s)})${where}`;
}

/** The live sessions the list's work may go to: /clear's successor first, then the project's live sessions, newest first. */
function carryTargets(index: SessionIndex, ctx: CarryContext, listId: string): CarryTargetView[] {
  const targets: CarryTargetView[] = [];
  const add = (session: SessionInfo | undefined, list: string, why: CarryTargetView['why']) => {
    if (session === undefined || session.state !== 'live' || list === listId) return;
    if (targets.some((t) => t.sessionId === session.sessionId)) return;
    targets.push({ sessionId: session.sessionId, list, why, label: sessionLabel(session, ctx.home) });
  };
  const cleared = listAfterClear(index, listId);
  // A /clear taken from times alone offers no successor of its own: the project's live sessions follow.
  if (cleared?.sure === true) add(index.session(cleared.newSessionId), cleared.newList, 'cleared');
  const projects = new Set(
    sessionsOfList(index, listId, { deep: true })
      .map((s) => s.cwd)
      .filter((d): d is string => d !== undefined),
  );
  const live = liveSessionLists(index)
    .filter((l) => l.session.cwd !== undefined && projects.has(l.session.cwd))
    .sort((a, b) => (b.session.lastActivity ?? 0) - (a.session.lastActivity ?? 0));
  for (const l of live) add(l.session, l.list, 'project');
  return targets;
}

/** The list session `to` writes to, as `tasks --session <to>` chooses it for a change; refused unless that session is live. */
function targetOf(index: SessionIndex, ctx: CarryContext, to: string) {
  const choice = chooseList(ctx.configDir, { session: to, forWrite: true, cwd: undefined, home: ctx.home, index });
  if (choice.session?.state !== 'live')
    throw new TasksError(
      'conflict',
      `session ${to.slice(0, 8)} is not live now (${stateText(choice.session)}): no agent would take the work up there; nothing carried`,
      { details: { precondition: 'live-target' } },
    );
  return { id: choice.id, dir: choice.dir };
}

function run(
  index: SessionIndex,
  ctx: CarryContext,
  listId: string,
  to: string,
  o: { dryRun: boolean; force: boolean },
  onLists?: (lists: string[]) => void,
  signal?: AbortSignal,
): Promise<CarryOutcome> {
  const target = targetOf(index, ctx, to);
  return carryWork(index, {
    target,
    from: [listId],
    force: o.force,
    dryRun: o.dryRun,
    person: ctx.person,
    cwd: undefined,
    home: ctx.home,
    now: () => performance.now(),
    signal,
    onLists,
    listWords: wordsOf(index, shortOf(ctx.configDir, target.id, listId)),
  });
}

/** `carry --dry-run` into the session asked for (else the first target): its lines, summary and warnings, and what a real run needs. */
export async function carryPreview(
  index: SessionIndex,
  ctx: CarryContext,
  listId: string,
  to: string | undefined,
): Promise<CarryPreviewPayload> {
  const targets = carryTargets(index, ctx, listId);
  const target = (to === undefined ? targets[0] : targets.find((t) => t.sessionId === to)) ?? null;
  const empty = { targets, target, lines: [], notes: [], warnings: [], count: 0, live: null };
  if (target === null)
    return {
      ...empty,
      none:
        to === undefined
          ? `no live session to carry to: no session of this list went on after /clear in one that runs now, and none runs in its project; start one there, or carry from the command line: tasks -l <list> carry --from ${shortOf(ctx.configDir, listId)(listId)}`
          : index.session(to)?.state === 'live'
            ? `session ${to.slice(0, 8)} runs in another project: the board carries a list's work to the session /clear went on as, or to a live session of its project (tasks --session ${to.slice(0, 8)} carry --from this list does it all the same)`
            : `session ${to.slice(0, 8)} is not live now: no agent would take the work up there`,
    };
  try {
    const outcome = await run(index, ctx, listId, target.sessionId, { dryRun: true, force: false });
    const shortId = shortOf(ctx.configDir, outcome.target);
    const words = wordsOf(index, shortId);
    const body = renderCarry(outcome, PLAIN, shortId);
    const from = outcome.from[0];
    const count = from === undefined ? 0 : Math.max(0, Object.keys(from.ids).length - from.changed.length);
    return {
      targets,
      target,
      lines: body === '' ? [] : body.split('\n'),
      notes: renderCarrySummary(outcome, shortId, words)
        .filter((n) => n.code !== 'carry_needs_force')
        .map((n) => n.text),
      warnings: carryWarnings(outcome, shortId, words),
      count,
      live: from?.live ?? null,
      none: null,
    };
  } catch (err) {
    if (err instanceof TasksError) return { ...empty, none: err.message };
    throw err;
  }
}

/** The carry itself, as the dry run showed it; its journal records every list it changes with it. */
export async function carryAction(
  index: SessionIndex,
  ctx: CarryContext,
  req: { list: string; to: string; force: boolean },
  onLists: (lists: string[]) => void,
  signal: AbortSignal,
): Promise<{ message: string; lines: string[]; notes: string[]; warnings: string[] }> {
  const outcome = await run(index, ctx, req.list, req.to, { dryRun: false, force: req.force }, onLists, signal);
  const shortId = shortOf(ctx.configDir, outcome.target);
  const words = wordsOf(index, shortId);
  const body = renderCarry(outcome, PLAIN, shortId);
  const [head = 'nothing carried', ...notes] = renderCarrySummary(outcome, shortId, words).map((n) => n.text);
  return { message: head, lines: body === '' ? [] : body.split('\n'), notes, warnings: carryWarnings(outcome, shortId, words) };
}

/** A list in a carry's sentences, as the command says it: `the list of session 7c1e2f30`, or `list "build-9"`. */
function wordsOf(index: SessionIndex, shortId: (id: string) => string): (id: string) => string {
  return (id) => listWords(shortId(id), index.knows(id));
}
