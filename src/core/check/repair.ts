import fs from 'node:fs';
import path from 'node:path';
import { errnoCode, TasksError } from '../base/errors.js';
import { breakFutureLock, type FutureLockOutcome } from '../locks/future-lock.js';
import { LOCK_STALE_MS } from '../locks/lock-acquire.js';
import { assertStillHeld, withListLock, withTaskLock } from '../locks/locks.js';
import { highestUsedId } from '../store/ids.js';
import { fileIds, readHighWaterMark } from '../store/list-read.js';
import { HIGH_WATER_MARK, taskPath } from '../store/paths.js';
import { readTaskFile, writeFileAtomic } from '../store/task-file.js';
import { patchTask, rewriteTask } from '../writes/task-writes.js';
import { announceFileChange, announceWriteFailed } from '../writes/write-events.js';
import type { Finding } from './findings.js';
import { doneFix } from './fix-words.js';

/**
 * `check --fix`: the repairs that are safe while agents run, each under the lock an
 * agent would take for the same change, each lock held for one small step:
 *
 * - the high-water mark: rewritten or raised under the list lock;
 * - a corrupt task file: under the list lock and then its task lock (the order agents'
 *   busy-checked claims use), re-read; if still corrupt, the mark is raised to its id
 *   (so the id is never handed out again) and the file is renamed `<id>.json.corrupt-
 *   <time>`, a name agents ignore. Never deleted;
 * - an id that differs from the file name: set to the file name (what the agents' next
 *   update of that task writes anyway), under the task lock;
 * - references to tasks that do not exist (and were not moved aside): dropped, under the
 *   referring task's lock (what delete does); the mark is left alone, since a reference
 *   may be a typo and is no proof that an id was used;
 * - a half-mirrored edge: the missing side added, under that task's lock;
 * - a stale, empty lock directory: broken by proper-lockfile itself (lock + release with
 *   its own staleness rule), so a live holder's lock can never be taken from it;
 * - a temp file of ours older than the stale time: removed.
 *
 * Cycles, stale claims, symlinks, unreadable or misnamed files are left to a person.
 */

export interface Repair {
  /** fixed: repaired now; gone: nothing left to do by the time we held the lock; failed: see message. */
  status: 'fixed' | 'gone' | 'failed';
  message: string;
}

export interface RepairOptions {
  now: number;
  lockStaleMs?: number;
}

/** Repairs in a safe order; the result says, for each fixable finding, what was done. */
export async function repairList(listDir: string, findings: readonly Finding[], opts: RepairOptions): Promise<Map<Finding, Repair>> {
  const results = new Map<Finding, Repair>();
  // What was done is told in the words `check` announced (fix-words.ts); a fix returns
  // only what it alone knew (the name a file was moved to, the mark it wrote).
  const attempt = async (finding: Finding, fix: () => Promise<FixDetail> | FixDetail) => {
    try {
      const detail = await fix();
      // A repair that knows more than the plan said (a lock's real age) tells it in its own words.
      const message =
        typeof detail === 'string' && detail !== '' ? detail : doneFix(finding, typeof detail === 'object' ? detail : undefined);
      results.set(finding, { status: 'fixed', message });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      results.set(finding, { status: err instanceof NotNeeded ? 'gone' : 'failed', message });
    }
  };
  const of = (...codes: string[]) => findings.filter((f) => f.fixable && codes.includes(f.code));

  // 1. The mark first: ids in use must be covered before any evidence of them goes away.
  const markFindings = of('highwatermark_invalid', 'highwatermark_behind');
  if (markFindings.length > 0) {
    const required = markFindings.reduce((max, f) => (typeof f.usedId === 'string' && BigInt(f.usedId) > max ? BigInt(f.usedId) : max), 0n);
    const fixMark = fixHighWaterMark(listDir, required);
    for (const f of markFindings) await attempt(f, () => fixMark);
  }
  // 2. Corrupt files moved aside.
  for (const f of of('invalid_json', 'invalid_task')) {
    await attempt(f, () => moveAside(listDir, f.id as string, opts.now));
  }
  // 3. Ids set to their file names.
  for (const f of of('id_mismatch')) {
    await attempt(f, async () => {
      const id = f.id as string;
      const { before, changed } = await rewriteTask(listDir, id, (t) => ({ ...t, id }), undefined, { asStored: true });
      if (changed.length === 0) throw new NotNeeded(`#${id} already holds its own id`);
      return `set the id inside ${id}.json from "${before.id}" to "${id}"`;
    });
  }
  // 4. References to missing tasks dropped, one locked rewrite per referring task.
  const byTask = new Map<string, Finding[]>();
  // Pushed and looked up in sets: a task can hold 200,000 missing references.
  for (const f of of('missing_reference')) {
    const group = byTask.get(f.id as string);
    if (group === undefined) byTask.set(f.id as string, [f]);
    else group.push(f);
  }
  for (const [id, group] of byTask) {
    const refs = new Set(group.map((f) => f.ref as string));
    let outcome: Promise<Set<string>> | undefined;
    for (const f of group) {
      outcome ??= dropReferences(listDir, id, refs).then((dropped) => new Set(dropped));
      await attempt(f, async () => {
        if (!(await (outcome as Promise<Set<string>>)).has(f.ref as string))
          throw new NotNeeded(`task #${id} no longer refers to #${String(f.ref)}`);
        return {};
      });
    }
  }
  // 5. Half-mirrored edges completed.
  for (const f of of('edge_not_mirrored')) {
    await attempt(f, () => completeEdge(listDir, f.blocker as string, f.blocked as string, f.missingOn as string));
  }
  // 6. Stale empty locks broken the way proper-lockfile breaks them.
  for (const f of of('stale_lock')) {
    await attempt(f, () => breakStaleLock(listDir, f.file as string, opts.lockStaleMs ?? LOCK_STALE_MS));
  }
  // 6b. Locks dated in the future, watched for the stale time and broken if unchanged.
  const future = of('future_lock');
  const outcomes = await Promise.all(future.map((f) => breakFutureLock(listDir, f.file as string, opts.lockStaleMs ?? LOCK_STALE_MS)));
  for (const [i, f] of future.entries()) {
    if (outcomes[i] === 'broken') announceFileChange({ listDir, kind: 'removed', file: f.file as string, what: 'lock' });
    await attempt(f, () => futureLockRepair(f, outcomes[i] as FutureLockOutcome, opts.lockStaleMs ?? LOCK_STALE_MS));
  }
  // 7. Abandoned temp files removed.
  for (const f of of('temp_file')) {
    await attempt(f, () => removeTemp(listDir, f.file as string, opts.now, opts.lockStaleMs ?? LOCK_STALE_MS));
  }
  return results;
}

/** Not an error: the problem had gone by the time we held the lock. */
class NotNeeded extends Error {}

type FixDetail = { aside?: string; mark?: bigint } | string | undefined;

/** List lock; mark = max(what agents read from the mark, highest file id, `required`). */
async function fixHighWaterMark(listDir: string, required: bigint): Promise<FixDetail> {
  return withListLock(listDir, (stillHeld) => {
    const file = path.join(listDir, HIGH_WATER_MARK);
    // An unparsable mark may still start with the number it held ("12abc"): keep that much.
    const current = readHighWaterMark(listDir);
    let text: string | undefined;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      text = undefined;
    }
    const valid = text !== undefined && /^\s*[0-9]+\s*$/.test(text);
    const highest = highestUsedId(fileIds(listDir), current);
    const target = highest > required ? highest : required;
    if (valid && current >= required) throw new NotNeeded(`${HIGH_WATER_MARK} is already ${current}`);
    assertStillHeld(stillHeld, 'the list');
    writeFileAtomic(file, String(target));
    announceFileChange({ listDir, kind: 'mark', old: text === undefined ? null : text.trim().slice(0, 64), new: String(target) });
    return { mark: target };
  });
}

/** `20260102T030405Z`: sorts, and has no characters a shell or another OS minds. */
export function stamp(now: number): string {
  return new Date(now)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}

async function moveAside(listDir: string, id: string, now: number): Promise<FixDetail> {
  return withListLock(listDir, (listHeld) =>
    withTaskLock(listDir, id, (taskHeld) => {
      const file = taskPath(listDir, id);
      const current = readTaskFile(file);
      if (current.kind === 'missing') throw new NotNeeded(`${id}.json is gone`);
      if (current.kind === 'ok') throw new NotNeeded(`${id}.json reads fine now (an agent was writing it)`);
      if (current.cause !== 'json' && current.cause !== 'schema') {
        throw new TasksError('conflict', `${id}.json ${current.reason}; left alone`);
      }
      assertStillHeld(listHeld, 'the list');
      assertStillHeld(taskHeld, `task #${id}`);
      // The id stays used: raise the mark before the file that holds it goes.
      const markFile = path.join(listDir, HIGH_WATER_MARK);
      const mark = readHighWaterMark(listDir);
      if (mark < BigInt(id)) {
        writeFileAtomic(markFile, id);
        announceFileChange({ listDir, kind: 'mark', old: mark === 0n ? null : String(mark), new: id });
      }
      let aside = `${id}.json.corrupt-${stamp(now)}`;
      for (let n = 2; fs.existsSync(path.join(listDir, aside)); n++) aside = `${id}.json.corrupt-${stamp(now)}-${n}`;
      announceFileChange({ listDir, kind: 'aside', id, file: `${id}.json`, to: aside });
      try {
        fs.renameSync(file, path.join(listDir, aside));
      } catch (err) {
        announceWriteFailed({ listDir, id });
        throw new TasksError('io', `cannot move ${id}.json aside: ${(err as Error).message}`);
      }
      return { aside };
    }),
  );
}

function isMissing(listDir: string, ref: string): boolean {
  if (!/^[1-9][0-9]*$/.test(ref)) return true;
  try {
    fs.lstatSync(taskPath(listDir, ref));
    return false;
  } catch (err) {
    return errnoCode(err) === 'ENOENT';
  }
}

/** Returns the references dropped. */
async function dropReferences(listDir: string, id: string, refs: ReadonlySet<string>): Promise<string[]> {
  const dropped = new Set<string>();
  const { changed } = await rewriteTask(listDir, id, (t) => {
    // Each reference looked at once (one lstat), whatever the size of the arrays.
    dropped.clear();
    const kept = new Set<string>();
    const gone = (x: string) => {
      if (dropped.has(x)) return true;
      if (kept.has(x)) return false;
      const missing = refs.has(x) && isMissing(listDir, x);
      (missing ? dropped : kept).add(x);
      return missing;
    };
    return { ...t, blocks: t.blocks.filter((x) => !gone(x)), blockedBy: t.blockedBy.filter((x) => !gone(x)) };
  });
  if (changed.length === 0) throw new NotNeeded(`task #${id} no longer refers to a missing task`);
  return [...dropped];
}

async function completeEdge(listDir: string, blocker: string, blocked: string, missingOn: string): Promise<string> {
  const has = missingOn === blocked ? blocker : blocked;
  // The side that records the edge must still record it, or the edge was being removed.
  const source = readTaskFile(taskPath(listDir, has));
  const stillThere =
    source.kind === 'ok' && (has === blocker ? source.task.blocks.includes(blocked) : source.task.blockedBy.includes(blocker));
  if (!stillThere) throw new NotNeeded(`#${has} no longer records the edge`);
  const patch = missingOn === blocked ? { addBlockedBy: [blocker] } : { addBlocks: [blocked] };
  const { changed } = await patchTask(listDir, missingOn, patch);
  if (changed.length === 0) throw new NotNeeded(`#${missingOn} already records the edge`);
  return missingOn === blocked ? `added #${blocker} to #${blocked}'s blockedBy` : `added #${blocked} to #${blocker}'s blocks`;
}

/** proper-lockfile breaks a lock only if it is stale by its own rule, and only if empty. */
async function breakStaleLock(listDir: string, lockName: string, staleMs: number): Promise<string> {
  const { default: lockfile } = await import('proper-lockfile');
  const target = path.join(listDir, lockName.slice(0, -'.lock'.length));
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(target, { realpath: false, stale: staleMs, retries: 0, onCompromised: () => {} });
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ELOCKED') throw new TasksError('busy', `${lockName} is held again (refreshed or re-taken); left alone`);
    if (code === 'ENOTEMPTY') throw new TasksError('conflict', `${lockName} is not empty; remove it by hand`);
    throw err;
  }
  await release();
  announceFileChange({ listDir, kind: 'removed', file: lockName, what: 'lock' });
  return `removed the stale lock ${lockName}`;
}

function futureLockRepair(f: Finding, outcome: FutureLockOutcome, watchedMs: number): string {
  const name = f.file as string;
  const ahead = `dated ${Math.round(Number(f.futureMs) / 1000)} s in the future`;
  if (outcome === 'gone') throw new NotNeeded(`${name} is gone (released or broken meanwhile)`);
  if (outcome === 'changed') throw new TasksError('busy', `${name} changed while watched: a live holder may have it; left alone`);
  if (outcome === 'not_empty') throw new TasksError('conflict', `${name} is not empty; remove it by hand`);
  return `removed ${name}, ${ahead} and unchanged for ${Math.round(watchedMs / 1000)} s: no live holder (one refreshes its lock every 5 s)`;
}

function removeTemp(listDir: string, name: string, now: number, staleMs: number): string {
  const file = path.join(listDir, name);
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch {
    throw new NotNeeded(`${name} is gone`);
  }
  if (now - st.mtimeMs <= staleMs) throw new NotNeeded(`${name} was written again; left alone`);
  fs.unlinkSync(file);
  announceFileChange({ listDir, kind: 'removed', file: name, what: 'temp' });
  return `removed ${name}`;
}
