import { pushAll } from '../base/many-items.js';
import { findCycles } from '../graph/cycles.js';
import { buildBlocksGraph } from '../graph/graph.js';
import { datedAheadMs } from '../locks/future-lock.js';
import { LOCK_STALE_MS } from '../locks/lock-acquire.js';
import { verificationNudge } from '../progress/verification-nudge.js';
import type { GoneHeld } from '../sessions/gone-owners.js';
import { compareIds, highestUsedId, isTaskId, MAX_ALLOCATABLE_ID } from '../store/ids.js';
import type { EntryType, ListScan, ScannedTaskFile } from '../store/list-scan.js';
import { SET_ASIDE } from '../store/list-scan.js';
import { HIGH_WATER_MARK, idFromFileName, LIST_LOCK_TARGET } from '../store/paths.js';
import type { Task } from '../store/schema.js';
import { plannedFix } from './fix-words.js';

/**
 * What `tasks check` reports: a pure function of a scanned list folder and the time.
 * Every finding has a stable `code` (documented in docs/guide/check.md); its other fields
 * depend on the code and are flat, so `jq '.findings[] | .cycle'` works.
 */
export const FINDING_CODES = [
  'invalid_json',
  'invalid_task',
  'too_large',
  'not_regular_file',
  'unreadable_file',
  'bad_file_name',
  'id_mismatch',
  'edge_not_mirrored',
  'missing_reference',
  'cycle',
  'highwatermark_invalid',
  'highwatermark_behind',
  'ids_past_limit',
  'stale_lock',
  'future_lock',
  'bad_lock',
  'temp_file',
  'stale_claim',
  'owner_gone',
  'agent_gone',
  'verification_missing',
] as const;

export type FindingCode = (typeof FINDING_CODES)[number];

export interface Finding {
  code: FindingCode;
  /** error: agents are (or will be) affected; warning: worth a look, harmless meanwhile. */
  severity: 'error' | 'warning';
  message: string;
  /** `check --fix` knows a safe repair. */
  fixable: boolean;
  /** What a person can do, for findings --fix leaves alone. */
  hint?: string;
  /** For a fixable finding: what `--fix` will do, in the words it reports when done. */
  fix?: string;
  /** The file in the list folder it is about. */
  file?: string;
  /** The task it is about. */
  id?: string;
  [field: string]: unknown;
}

export interface CheckOptions {
  now: number;
  /** A pending task with an owner, unchanged for longer than this, is reported; undefined: never. */
  claimStaleMs?: number | undefined;
  /** proper-lockfile's staleness; also the age past which a temp file is abandoned. */
  lockStaleMs?: number;
  /**
   * Of these tasks (unfinished, with an owner), those whose owner is gone, with why: the
   * tasks `release --gone` gives back (history/list-owners.ts, from the session index,
   * which this folder does not read). An owner whose sessions are over while a live one
   * may be at work on its task (a fork of its session, an agent that took the task up)
   * is not gone for that task. Asked only when there is such a task.
   */
  ownerGone?: ((tasks: readonly Task[]) => ReadonlyMap<string, GoneHeld>) | undefined;
  /**
   * Of these tasks (in progress, no owner), those whose agent is gone: the session that
   * held it is over (history/list-owners.ts). Asked only when there is such a task.
   */
  agentGone?: ((tasks: readonly Task[]) => ReadonlyMap<string, GoneHeld>) | undefined;
}

const CAUSE_CODE = {
  json: 'invalid_json',
  schema: 'invalid_task',
  size: 'too_large',
  type: 'not_regular_file',
  access: 'unreadable_file',
} as const;

export function findProblems(scan: ListScan, opts: CheckOptions): Finding[] {
  const lockStaleMs = opts.lockStaleMs ?? LOCK_STALE_MS;
  const findings: Finding[] = [];
  const fileIds = new Set(scan.taskFiles.map((f) => f.fileId).filter((id): id is string => id !== undefined));
  /** Valid tasks in the file their id names: the ones agents can address. */
  const tasks = new Map<string, Task>();
  const mtimes = new Map<string, number>();

  for (const f of scan.taskFiles) pushAll(findings, fileFindings(f, tasks, mtimes));

  // Ids whose file was moved aside: references to them are kept (the file may be restored).
  const setAsideIds = new Set(scan.setAside.map((name) => SET_ASIDE.exec(name)?.[1]).filter((id): id is string => id !== undefined));
  pushAll(findings, edgeFindings(tasks, new Set([...fileIds, ...setAsideIds])));
  pushAll(findings, cycleFindings(tasks));
  pushAll(findings, markFindings(scan, fileIds));
  pushAll(findings, lockFindings(scan, opts.now, lockStaleMs));
  for (const t of scan.temps) {
    const ageMs = opts.now - t.mtimeMs;
    if (ageMs <= lockStaleMs) continue; // a write in flight
    findings.push({
      code: 'temp_file',
      severity: 'warning',
      message: `${t.name} is a temp file left by an interrupted write (${seconds(ageMs)} s old); agents ignore it`,
      fixable: true,
      file: t.name,
      ageMs: Math.round(ageMs),
    });
  }
  if (opts.claimStaleMs !== undefined) {
    for (const [id, task] of tasks) {
      const pendingForMs = opts.now - (mtimes.get(id) ?? opts.now);
      if (task.status !== 'pending' || !task.owner || pendingForMs <= opts.claimStaleMs) continue;
      findings.push({
        code: 'stale_claim',
        severity: 'warning',
        message: `task #${id} is owned by ${task.owner} but still pending, unchanged for ${duration(pendingForMs)}`,
        fixable: false,
        hint: `if ${task.owner} is gone, give it back: tasks release ${id} (or tasks release --owner ${task.owner})`,
        id,
        owner: task.owner,
        pendingForMs: Math.round(pendingForMs),
      });
    }
  }
  const owned = [...tasks.values()].filter((t) => t.status !== 'completed' && t.owner);
  const ownerGone = opts.ownerGone !== undefined && owned.length > 0 ? opts.ownerGone(owned) : undefined;
  if (ownerGone !== undefined) {
    for (const [id, task] of tasks) {
      const held = ownerGone.get(id);
      if (held === undefined || held.unowned) continue;
      findings.push({
        code: 'owner_gone',
        severity: 'warning',
        message: `task #${id} is ${task.status === 'in_progress' ? 'in progress' : 'pending'} and owned by ${task.owner}, whose ${held.why}`,
        fixable: false,
        hint: 'give it back for another agent or person: tasks release --gone',
        id,
        owner: task.owner,
      });
    }
  }
  // In progress with no owner, held by a session now over: worth a look, never damage (--fix leaves it; release --gone is the remedy).
  const unowned = [...tasks.values()].filter((t) => t.status === 'in_progress' && !t.owner);
  if (opts.agentGone !== undefined && unowned.length > 0) {
    for (const [id, held] of opts.agentGone(unowned)) {
      if (!held.unowned) continue;
      findings.push({
        code: 'agent_gone',
        severity: 'warning',
        message: `task #${id} is in progress with no owner, and its agent is gone: ${held.why} holding it`,
        fixable: false,
        hint: 'put it back to pending for another agent or person: tasks release --gone',
        id,
        session: held.session?.sessionId ?? null,
      });
    }
  }
  const nudge = verificationNudge([...tasks.values()]);
  if (nudge) {
    findings.push({
      code: 'verification_missing',
      severity: 'warning',
      message: `${nudge.message} (Claude Code nudges its agents the same way)`,
      fixable: false,
      hint: 'add a verification step and do it: tasks create "Verify: run the tests" --status in_progress',
      completed: nudge.completed,
    });
  }
  for (const f of findings) {
    const fix = plannedFix(f);
    if (fix !== undefined) f.fix = fix;
  }
  return findings;
}

function fileFindings(f: ScannedTaskFile, tasks: Map<string, Task>, mtimes: Map<string, number>): Finding[] {
  if (f.fileId === undefined) {
    const content = f.read.kind === 'ok' ? `it holds task #${f.read.task.id}` : f.read.reason;
    return [
      {
        code: 'bad_file_name',
        severity: 'warning',
        message: `${f.name} is not named <id>.json, yet agents read every *.json as a task (${content})`,
        fixable: false,
        hint: 'rename it to something not ending in .json if it is not a task',
        file: f.name,
        ...(f.read.kind === 'ok' ? { contentId: f.read.task.id } : { reason: f.read.reason }),
      },
    ];
  }
  const id = f.fileId;
  if (f.read.kind === 'invalid') {
    const code = CAUSE_CODE[f.read.cause];
    const text = {
      invalid_json: `${f.name} does not parse as JSON: ${f.read.reason}; agents cannot see task #${id}`,
      invalid_task: `${f.name} is not a valid task: ${f.read.reason}; agents cannot see task #${id}`,
      too_large: `${f.name} is too large for tasks to load safely (${f.read.reason}); agents may still read it`,
      not_regular_file: `${f.name} ${f.read.reason}; tasks will not touch it`,
      unreadable_file: `${f.name} cannot be read (${f.read.reason}); nor can agents running as this user`,
    }[code];
    // Only a file agents cannot read either is safe to move aside.
    const finding: Finding = {
      code,
      severity: 'error',
      message: text,
      fixable: code === 'invalid_json' || code === 'invalid_task',
      file: f.name,
      id,
      reason: f.read.reason,
    };
    if (code === 'too_large') finding.hint = 'inspect it; if it is not a task, move it out of the list folder';
    if (code === 'not_regular_file') {
      finding.type = f.type;
      if (f.linkTarget !== undefined) {
        finding.target = f.linkTarget;
        finding.message = `${f.name} is a symbolic link to ${f.linkTarget}: agents follow it (and would write through it); tasks refuses to read or write through it`;
      }
      finding.hint = 'replace it with a regular file, or move it out of the list folder';
    } else if (code === 'unreadable_file') {
      finding.hint = 'fix its permissions, or move it out of the list folder';
    }
    return [finding];
  }
  const task = f.read.task;
  if (task.id !== id) {
    return [
      {
        code: 'id_mismatch',
        severity: 'error',
        message: `${f.name} holds task "${task.id}": agents address it as #${id}, and their next update of it rewrites the id`,
        fixable: true,
        file: f.name,
        id,
        contentId: task.id,
      },
    ];
  }
  tasks.set(id, task);
  mtimes.set(id, f.mtimeMs);
  return [];
}

function edgeFindings(tasks: ReadonlyMap<string, Task>, fileIds: ReadonlySet<string>): Finding[] {
  const findings: Finding[] = [];
  const seen = new Set<string>();
  const mirror = (blocker: string, blocked: string, missingOn: string, field: 'blocks' | 'blockedBy') => {
    const key = `${blocker}>${blocked}`;
    if (seen.has(key)) return;
    seen.add(key);
    const has = missingOn === blocked ? blocker : blocked;
    const side = field === 'blocks' ? 'blockedBy' : 'blocks';
    findings.push({
      code: 'edge_not_mirrored',
      severity: 'error',
      message: `#${blocker} blocks #${blocked} according to #${has}'s ${side}, but #${missingOn}'s ${field} does not list #${has}`,
      fixable: true,
      id: missingOn,
      blocker,
      blocked,
      missingOn,
      field,
    });
  };
  for (const [id, task] of [...tasks].sort(([a], [b]) => compareIds(a, b))) {
    for (const field of ['blocks', 'blockedBy'] as const) {
      for (const ref of task[field]) {
        if (ref === id) continue; // a self-edge is a cycle, reported as such
        const other = tasks.get(ref);
        if (other === undefined) {
          if (fileIds.has(ref)) continue; // exists, but unreadable, misnamed or moved aside: reported on its own
          findings.push({
            code: 'missing_reference',
            severity: 'warning',
            message: `task #${id} lists #${ref} in ${field}, but there is no task #${ref}`,
            fixable: true,
            id,
            field,
            ref,
          });
          continue;
        }
        if (field === 'blocks' && !other.blockedBy.includes(id)) mirror(id, ref, ref, 'blockedBy');
        if (field === 'blockedBy' && !other.blocks.includes(id)) mirror(ref, id, ref, 'blocks');
      }
    }
  }
  return findings;
}

function cycleFindings(tasks: ReadonlyMap<string, Task>): Finding[] {
  // Only edges between tasks that exist: a missing task cannot take part in a cycle.
  const present = [...tasks.values()].map((t) => ({
    ...t,
    blocks: t.blocks.filter((x) => tasks.has(x)),
    blockedBy: t.blockedBy.filter((x) => tasks.has(x)),
  }));
  return findCycles(buildBlocksGraph(present)).map((cycle) => ({
    code: 'cycle' as const,
    severity: 'error' as const,
    message:
      cycle.length === 2
        ? `task #${cycle[0]} blocks itself: it can never start`
        : `dependency cycle ${cycle.map((x) => `#${x}`).join(' -> ')}: none of these can start`,
    fixable: false,
    hint: 'remove one of the edges (decide which: tasks check does not guess)',
    id: cycle[0],
    cycle,
  }));
}

/**
 * docs/task-store.md section 4: next id = max(highest file id, mark) + 1, and ids are
 * never reused. A mark below the highest file id is normal (it is written on delete and
 * reset only). What is wrong: a mark agents cannot parse, and an id known to have been
 * used (the name of a lock, temp or set-aside file) that the next create would hand out
 * again.
 */
function markFindings(scan: ListScan, fileIds: ReadonlySet<string>): Finding[] {
  const findings: Finding[] = [];
  let mark = 0n;
  if (scan.mark.kind === 'invalid') {
    findings.push({
      code: 'highwatermark_invalid',
      severity: 'error',
      message: `${HIGH_WATER_MARK} ${scan.mark.reason}; ids of deleted tasks may be reused`,
      fixable: scan.mark.type === 'file',
      ...(scan.mark.type === 'file' ? {} : { hint: `replace ${HIGH_WATER_MARK} with a regular file holding the highest id used` }),
      file: HIGH_WATER_MARK,
      reason: scan.mark.reason,
    });
  } else if (scan.mark.kind === 'text') {
    const text = scan.mark.text;
    if (!/^\s*[0-9]+\s*$/.test(text)) {
      findings.push({
        code: 'highwatermark_invalid',
        severity: 'error',
        message: `${HIGH_WATER_MARK} holds ${JSON.stringify(text.slice(0, 40))}, not a number; ids of deleted tasks may be reused`,
        fixable: true,
        file: HIGH_WATER_MARK,
        value: text.slice(0, 64),
      });
    } else {
      mark = BigInt(text.trim());
    }
  }
  const highestFile = highestUsedId([...fileIds], 0n);
  const highest = highestFile > mark ? highestFile : mark;
  const next = highest + 1n;
  if (highest > MAX_ALLOCATABLE_ID) {
    const where = highestFile >= mark ? `${highestFile}.json` : HIGH_WATER_MARK;
    findings.push({
      code: 'ids_past_limit',
      severity: 'error',
      message: `ids up to ${highest} are in use (${where}), past ${MAX_ALLOCATABLE_ID}, the highest Claude Code counts exactly: agents can hand out a used id again, and tasks create refuses to allocate`,
      fixable: false,
      hint: 'move the work to a new list; ids cannot be lowered without agents reusing them',
      highestUsed: String(highest),
      limit: String(MAX_ALLOCATABLE_ID),
    });
  }

  let used: { id: bigint; evidence: string } | undefined;
  const consider = (raw: string, evidence: string) => {
    if (!isTaskId(raw) || fileIds.has(raw)) return;
    const id = BigInt(raw);
    if (id >= next && (used === undefined || id > used.id)) used = { id, evidence };
  };
  // A reference is not evidence that an id was used: a typo ("42") would burn every id
  // up to it. Files are: a set-aside task, a lock, a temp file of a write.
  for (const name of scan.setAside) consider(SET_ASIDE.exec(name)?.[1] ?? '', `${name} was moved aside`);
  for (const lock of scan.locks) consider(lockedId(lock.name) ?? '', `${lock.name} exists`);
  for (const temp of scan.temps) consider(idFromFileName(temp.target) ?? '', `${temp.name} exists`);
  if (used !== undefined) {
    findings.push({
      code: 'highwatermark_behind',
      severity: 'error',
      message: `id ${used.id} was used (${used.evidence}), but the next new task would get id ${next} again: ${HIGH_WATER_MARK} is ${scan.mark.kind === 'absent' ? 'missing' : mark}`,
      fixable: true,
      file: HIGH_WATER_MARK,
      mark: Number(mark),
      next: String(next),
      usedId: String(used.id),
      evidence: used.evidence,
    });
  }
  return findings;
}

/** `7.json.lock` -> `7` */
function lockedId(lockName: string): string | undefined {
  return idFromFileName(lockName.slice(0, -'.lock'.length));
}

/** What a lock path that is no folder is, in words (a FIFO or a socket is "other" to the scan). */
const LOCK_PATH_KIND: Record<EntryType, string> = {
  file: 'file',
  directory: 'directory',
  symlink: 'symlink',
  other: 'special file (a FIFO, a socket or a device)',
};

function lockFindings(scan: ListScan, now: number, lockStaleMs: number): Finding[] {
  const findings: Finding[] = [];
  if (scan.lockTarget === 'symlink') {
    findings.push({
      code: 'bad_lock',
      severity: 'error',
      message: `${LIST_LOCK_TARGET} is a symbolic link: the list lock would be taken wherever it points; tasks refuses to lock through it`,
      fixable: false,
      hint: `replace ${LIST_LOCK_TARGET} with an empty regular file`,
      file: LIST_LOCK_TARGET,
      reason: 'symlink',
    });
  }
  for (const lock of scan.locks) {
    const ageMs = Math.max(0, now - lock.mtimeMs);
    if (lock.type !== 'directory') {
      findings.push({
        code: 'bad_lock',
        severity: 'error',
        message: `${lock.name} is a ${LOCK_PATH_KIND[lock.type]}, not a lock directory: nobody can take or break that lock`,
        fixable: false,
        hint: `inspect and remove ${lock.name} by hand`,
        file: lock.name,
        reason: 'not_a_directory',
      });
    } else if (datedAheadMs(lock.mtimeMs, now) > 0) {
      const aheadMs = datedAheadMs(lock.mtimeMs, now);
      findings.push({
        code: 'future_lock',
        severity: 'error',
        message: `${lock.name} is dated ${seconds(aheadMs)} s in the future (the clock was set back after it was taken?): agents cannot break it until then; a live holder would refresh it within 5 s${lock.empty ? '' : ', and it is not empty'}`,
        fixable: lock.empty,
        hint: lock.empty
          ? 'tasks check --fix removes it once it stays unchanged for 10 s'
          : `look inside ${lock.name}, then remove it by hand`,
        file: lock.name,
        futureMs: Math.round(aheadMs),
        empty: lock.empty,
      });
    } else if (ageMs > lockStaleMs) {
      findings.push({
        code: 'stale_lock',
        severity: 'warning',
        message: lock.empty
          ? `${lock.name} is a stale lock (${seconds(ageMs)} s old, not refreshed): its holder died; the next writer breaks it`
          : `${lock.name} is a stale lock (${seconds(ageMs)} s old) and not empty: nobody can break it until it is emptied`,
        fixable: lock.empty,
        ...(lock.empty ? {} : { hint: `look inside ${lock.name}, then remove it by hand` }),
        file: lock.name,
        ageMs: Math.round(ageMs),
        empty: lock.empty,
      });
    } else if (!lock.empty) {
      findings.push({
        code: 'bad_lock',
        severity: 'error',
        message: `${lock.name} is not empty: its holder cannot release it, and nobody can break it`,
        fixable: false,
        hint: `look inside ${lock.name}, then remove it by hand`,
        file: lock.name,
        reason: 'not_empty',
      });
    }
  }
  return findings;
}

function seconds(ms: number): number {
  return Math.round(ms / 1000);
}

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}
