import { pushAll } from '../core/base/many-items.js';
import type { CarriedFrom, CarryOutcome } from '../core/carry/carry-run.js';
import { compareIds } from '../core/store/ids.js';
import { stateText } from './session-text.js';
import { paintStatus } from './status.js';
import type { Style } from './style.js';
import { tasksJson } from './task-json.js';
import { oneLine } from './text.js';

/** `carry --json`: the outcome, each source with its tasks by old and new id; `dryRun` only in a dry run. */
export function carryJson(outcome: CarryOutcome, times: ReadonlyMap<string, number> | undefined) {
  return {
    target: outcome.target,
    ...(outcome.dryRun ? { dryRun: true as const } : {}),
    move: outcome.move,
    from: outcome.from.map((f) => ({
      list: f.source.list,
      why: f.source.why,
      sessionId: f.source.session?.sessionId ?? null,
      ...(f.live === undefined ? {} : { live: f.live }),
      carried: f.carried.map((c) => ({
        id: c.source.id,
        newId: f.ids[c.source.id] ?? null,
        subject: c.source.subject,
        status: c.source.status,
        reason: c.reason,
        ...(c.pulledBy === undefined ? {} : { pulledBy: c.pulledBy }),
        ...(c.ownerCleared === undefined ? {} : { ownerCleared: c.ownerCleared }),
      })),
      ids: f.ids,
      dropped: f.dropped,
      left: f.left,
      changed: f.changed,
      copied: f.copied.map((c) => ({ id: c.source.id, newId: c.copy })),
    })),
    created: tasksJson(outcome.created, outcome.dryRun ? undefined : times),
    others: outcome.others,
    warnings: outcome.warnings,
  };
}

/** One line per carried task: its source list and id, its new id, status and subject, and what changed on the way. */
export function renderCarry(outcome: CarryOutcome, style: Style, shortId: (id: string) => string): string {
  const verb = outcome.move ? (outcome.dryRun ? 'move' : 'moved') : outcome.dryRun ? 'carry' : 'carried';
  const created = new Map(outcome.created.map((t) => [t.id, t]));
  const lines: string[] = [];
  for (const f of outcome.from) {
    const changed = new Set(f.changed.map((c) => c.id));
    for (const c of f.carried) {
      const newId = f.ids[c.source.id];
      if (newId === undefined || changed.has(c.source.id)) continue;
      const task = created.get(newId);
      const notes = [
        c.ownerCleared === undefined ? '' : `owner ${oneLine(c.ownerCleared)} cleared: its session is over`,
        c.reason === 'blocker' ? `a blocker of #${oneLine(c.pulledBy ?? '')}` : '',
        task && task.blockedBy.length > 0 ? `blocked by ${task.blockedBy.map((b) => `#${oneLine(b)}`).join(', ')}` : '',
      ].filter(Boolean);
      const status = task?.status ?? c.source.status;
      lines.push(
        [
          style.green(verb.padEnd(7)),
          `${oneLine(shortId(f.source.list))} #${oneLine(c.source.id)} -> #${oneLine(newId)}`,
          paintStatus(style, status, status.padEnd(11)),
          `${oneLine(c.source.subject)}${notes.length > 0 ? style.dim(` (${notes.join('; ')})`) : ''}`,
        ].join('  '),
      );
    }
  }
  return lines.join('\n');
}

/**
 * Warnings for stderr: edges to unfinished work left behind, tasks that changed while carried.
 * `shortId` names a list before a task id (`2d483082 #3`); `words`, a list in a sentence
 * (`the list of session 7baec0ff`, `list "to"`: render/new-list.ts).
 */
export function carryWarnings(outcome: CarryOutcome, shortId: (id: string) => string, words: (id: string) => string): string[] {
  const out = [...outcome.warnings];
  for (const f of outcome.from) {
    for (const d of f.dropped) {
      if (d.why === 'completed') continue;
      const edge = d.side === 'blockedBy' ? `#${d.task} waited for #${d.other}` : `#${d.task} blocked #${d.other}`;
      out.push(`${shortId(f.source.list)}: ${edge}, ${d.why === 'missing' ? 'a task no longer there' : d.why}: that edge is not carried`);
    }
    const byWhy = new Map<string, string[]>();
    for (const c of f.changed) {
      if (c.kept === undefined) byWhy.set(c.why, [...(byWhy.get(c.why) ?? []), c.id]);
      else
        out.push(
          `${shortId(f.source.list)} #${oneLine(c.id)} not carried: ${oneLine(c.why)}; its copy #${oneLine(c.kept.copy)} stays in ${oneLine(words(outcome.target))}: ${oneLine(c.kept.why)}`,
        );
    }
    for (const [why, ids] of byWhy) {
      const named =
        ids
          .slice(0, 10)
          .map((id) => `#${oneLine(id)}`)
          .join(', ') + (ids.length > 10 ? ` and ${ids.length - 10} more` : '');
      out.push(
        `${shortId(f.source.list)} ${named} not carried: ${oneLine(why)}; ${ids.length === 1 ? 'its copy was' : 'their copies were'} taken back`,
      );
    }
  }
  return out;
}

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A line of the summary, with its note code (docs/json-output.md). */
export interface CarryNote {
  code: 'carry_summary' | 'carry_needs_force' | 'carry_others';
  text: string;
  facts?: Record<string, unknown>;
}

/**
 * The summary, for stderr, a note a line: how many from where into where, what was left,
 * what a real run needs. Lists in `words` (`the list of session 7baec0ff`, `list "to"`);
 * `shortId` where a list is an argument of a command to run.
 */
export function renderCarrySummary(outcome: CarryOutcome, shortId: (id: string) => string, words: (id: string) => string): CarryNote[] {
  const lines: CarryNote[] = [];
  for (const f of outcome.from) {
    const n = Object.keys(f.ids).length - f.changed.length;
    const from = `${oneLine(words(f.source.list))}${whyText(f)}`;
    const left = leftText(f);
    const facts = { list: f.source.list, carried: Math.max(n, 0), left: f.left };
    // A real run refuses a live source before it looks for work: the dry run says so whatever it finds.
    const needsForce: CarryNote[] =
      f.live === undefined
        ? []
        : [
            {
              code: 'carry_needs_force',
              text: `a real run needs --force: ${oneLine(words(f.source.list))} is in use by a live agent (${f.live})`,
              facts: { list: f.source.list, live: f.live },
            },
          ];
    if (n <= 0) {
      lines.push({ code: 'carry_summary', text: `nothing to carry from ${from}${left === '' ? '' : `: ${left}`}`, facts }, ...needsForce);
      continue;
    }
    const ids = Object.values(f.ids)
      .filter((id) => outcome.created.some((t) => t.id === id) || f.copied.some((c) => c.copy === id))
      .sort(compareIds);
    const range = ids.length === 0 ? '' : ids.length === 1 ? ` (#${ids[0]})` : ` (#${ids[0]}-#${ids.at(-1)})`;
    const verb = outcome.move ? 'move' : 'carry';
    const done = outcome.dryRun ? `dry run: would ${verb}` : outcome.move ? 'moved' : 'carried';
    const there = outcome.move ? 'deleted there' : 'marked there as carried (metadata.carriedTo)';
    const copied =
      f.copied.length === 0
        ? ''
        : `; ${f.copied.length === n ? 'all' : f.copied.length} copied there before by a carry that stopped: ${outcome.dryRun ? 'would be ' : ''}marked, not copied again`;
    lines.push({
      code: 'carry_summary',
      text: `${done} ${count(n, 'task')} from ${from} into ${oneLine(words(outcome.target))}${range}; ${there}${copied}${left === '' ? '' : `; left ${left}`}${outcome.dryRun ? '; nothing written' : ''}`,
      facts,
    });
    pushAll(lines, needsForce);
  }
  for (const o of outcome.others) {
    lines.push({
      code: 'carry_others',
      text: `also unfinished: ${count(o.unfinished, 'task')} in ${oneLine(words(o.list))}; tasks carry --from ${shortId(o.list)} brings them`,
      facts: { list: o.list, unfinished: o.unfinished },
    });
  }
  return lines;
}

function whyText(f: CarriedFrom): string {
  const s = f.source.session;
  if (f.source.why === 'cleared') return s?.replacedBy === undefined ? ' (cleared)' : ` (cleared -> ${s.replacedBy.slice(0, 8)})`;
  if (f.source.why === 'ended' && s !== undefined) return ` (session ${stateText(s)})`;
  return '';
}

function leftText(f: CarriedFrom): string {
  return [
    f.left.completed > 0 ? `${f.left.completed} completed` : '',
    f.left.carriedBefore > 0 ? `${f.left.carriedBefore} carried before` : '',
    f.left.internal > 0 ? `${f.left.internal} internal` : '',
  ]
    .filter(Boolean)
    .join(', ');
}
