import { TasksError } from '../base/errors.js';

/**
 * Task ids are decimal strings of positive integers, as Claude Code writes them, of any
 * length a file name can hold (`<id>.json` in 255 bytes). Arithmetic on them is exact
 * (BigInt): Number rounds past 2^53, where "9007199254740992" + 1 is itself again.
 */
const ID = /^[1-9][0-9]{0,249}$/;

/**
 * The highest id Claude Code counts to exactly: its next-id rule is Number arithmetic
 * (parseInt, Math.max, + 1), exact up to Number.MAX_SAFE_INTEGER. Past it an agent can
 * hand out an id that is already used, so `tasks` allocates no id above it.
 */
export const MAX_ALLOCATABLE_ID = BigInt(Number.MAX_SAFE_INTEGER);

export function isTaskId(value: string): boolean {
  return ID.test(value);
}

/** Accepts `4` and `#4` (how agents print ids); anything else is a usage error. */
export function parseTaskId(raw: string): string {
  const value = raw.trim().replace(/^#/, '');
  if (!isTaskId(value)) {
    throw new TasksError('usage', `invalid task id "${raw}": expected a positive number like 4`);
  }
  return value;
}

/** Numeric order, exact at any length: "10" after "9". Non-ids sort after ids, by text. */
export function compareIds(a: string, b: string): number {
  return compareTested(a, ID.test(a), b, ID.test(b));
}

/**
 * `items` in compareIds order, sorted in place. Each id is tested once, not twice a
 * comparison: a list of thousands takes tens of thousands of comparisons.
 */
export function sortByIds<T extends { id: string }>(items: T[]): T[] {
  if (sortedAsNumbers(items)) return items;
  const plain = new Map<string, boolean>();
  for (const item of items) plain.set(item.id, ID.test(item.id));
  return items.sort((x, y) => compareTested(x.id, plain.get(x.id) === true, y.id, plain.get(y.id) === true));
}

/** Fifteen digits are always below 2^53: Number holds such an id exactly. */
const EXACT_DIGITS = 15;

/**
 * The common case of sortByIds, a list's own tasks (named by their files: no id twice),
 * each a plain id Number holds exactly: sorted as numbers by the engine itself, with
 * no comparison called back into JavaScript. False, `items` untouched, otherwise.
 */
function sortedAsNumbers<T extends { id: string }>(items: T[]): boolean {
  const keys = new Float64Array(items.length);
  const byKey = new Map<number, T>();
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as T;
    if (item.id.length > EXACT_DIGITS || !ID.test(item.id)) return false;
    const key = Number(item.id);
    if (byKey.has(key)) return false;
    byKey.set(key, item);
    keys[i] = key;
  }
  keys.sort();
  for (let i = 0; i < keys.length; i++) items[i] = byKey.get(keys[i] as number) as T;
  return true;
}

function compareTested(a: string, ia: boolean, b: string, ib: boolean): number {
  if (ia && ib) return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
  if (ia !== ib) return ia ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The highest id in use: max(file ids, high-water mark); "0" when there is none. */
export function highestUsedId(fileIds: readonly string[], highWaterMark: bigint): bigint {
  let max = highWaterMark > 0n ? highWaterMark : 0n;
  for (const id of fileIds) {
    if (!isTaskId(id)) continue;
    const n = BigInt(id);
    if (n > max) max = n;
  }
  return max;
}

/** docs/task-store.md section 4: next id = max(highest file id, high-water mark) + 1, exactly. */
export function nextTaskId(fileIds: readonly string[], highWaterMark: bigint): string {
  return String(highestUsedId(fileIds, highWaterMark) + 1n);
}

/**
 * `count` consecutive new ids for list `listName`, or a refusal (conflict) when any would
 * pass MAX_ALLOCATABLE_ID. Pure: the caller holds the list lock.
 */
export function allocateIds(listName: string, fileIds: readonly string[], highWaterMark: bigint, count: number): string[] {
  const highest = highestUsedId(fileIds, highWaterMark);
  const last = highest + BigInt(count);
  if (last > MAX_ALLOCATABLE_ID) {
    const need = count === 1 ? `a new task would need ${last}` : `${count} new tasks would need ids up to ${last}`;
    const limit = 'the highest Claude Code counts exactly';
    const used =
      highest === MAX_ALLOCATABLE_ID
        ? `has used every id up to ${highest}, ${limit}`
        : highest > MAX_ALLOCATABLE_ID
          ? `has used every id up to ${highest}, past ${MAX_ALLOCATABLE_ID}, ${limit}`
          : `has ids left only up to ${MAX_ALLOCATABLE_ID}, ${limit}`;
    throw new TasksError('conflict', `list "${listName}" ${used}; ${need}`, {
      hint: 'start a new list (--list <id>); ids past this limit could be handed out twice by agents',
      details: { highestUsed: String(highest), limit: String(MAX_ALLOCATABLE_ID) },
    });
  }
  return Array.from({ length: count }, (_, i) => String(highest + 1n + BigInt(i)));
}

/** The mark as agents read it: parseInt's leading digits, else 0. Exact at any length. */
export function parseHighWaterMark(text: string): bigint {
  const digits = /^\s*([0-9]+)/.exec(text)?.[1];
  return digits === undefined ? 0n : BigInt(digits);
}

/**
 * Why an id a task brings with it (an export, a transcript) cannot be kept in a list:
 * taken by a task there, handed out before (at or below the high-water mark: deleted, and
 * ids are never handed out twice), past what agents count exactly, or not an id at all.
 * Undefined when it is free. Pure: the caller holds the list lock for a write.
 */
export function idNotFree(id: string, taken: ReadonlySet<string>, highWaterMark: bigint): string | undefined {
  if (!isTaskId(id)) return 'not a task id';
  if (taken.has(id)) return 'taken';
  const n = BigInt(id);
  if (n > MAX_ALLOCATABLE_ID) return `past ${MAX_ALLOCATABLE_ID}, the highest id agents count exactly`;
  if (n <= highWaterMark) return `used before (the high-water mark is ${highWaterMark})`;
  return undefined;
}

export interface AssignOptions {
  /** New ids go above this too: the highest id other tasks of the same import still want. */
  reservedAbove?: bigint | undefined;
  /**
   * Keep a wanted id at or below the high-water mark when no file has it: the same task
   * coming back (a restore), not another taking a deleted task's id.
   */
  sameTasks?: boolean | undefined;
}

/**
 * Ids for tasks that each want one (their old id; undefined: none): the wanted id where it
 * is free (idNotFree; with `sameTasks`, wherever no file has it), else a new one as
 * allocateIds gives it, above every id in use and above `reservedAbove`, so a new id never
 * takes one another task of the same import wants. Refuses (conflict) past
 * MAX_ALLOCATABLE_ID, as allocateIds does. Pure: the caller holds the list lock.
 */
export function assignIds(
  listName: string,
  fileIds: readonly string[],
  highWaterMark: bigint,
  wanted: ReadonlyArray<string | undefined>,
  opts: AssignOptions = {},
): string[] {
  const taken = new Set(fileIds);
  const kept = new Set<string>();
  const markForKeeping = opts.sameTasks ? 0n : highWaterMark;
  const out: Array<string | undefined> = wanted.map((w) => {
    if (w === undefined || kept.has(w) || idNotFree(w, taken, markForKeeping) !== undefined) return undefined;
    kept.add(w);
    return w;
  });
  const fresh = out.filter((id) => id === undefined).length;
  if (fresh === 0) return out as string[];
  let floor = highestUsedId(fileIds, highWaterMark);
  for (const id of [...kept].map(BigInt)) if (id > floor) floor = id;
  if (opts.reservedAbove !== undefined && opts.reservedAbove > floor) floor = opts.reservedAbove;
  const allocated = allocateIds(listName, [], floor, fresh);
  let next = 0;
  return out.map((id) => id ?? (allocated[next++] as string));
}
