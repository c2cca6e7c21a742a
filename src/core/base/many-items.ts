/**
 * Loops where a spread into a call would do: `push(...items)` and `Math.max(...values)`
 * pass every item as an argument, and past some 100,000 of them (a task whose `blocks`
 * holds 200,000 ids, a list of many files) V8 throws "Maximum call stack size exceeded".
 * Anything whose size comes from files goes through these.
 */

/** `into.push(...items)` for any number of items. */
export function pushAll<T>(into: T[], items: Iterable<T>): T[] {
  for (const item of items) into.push(item);
  return into;
}

/** `Math.max(...values)` for any number of values: -Infinity for none, NaN if one is. */
export function maxOf(values: Iterable<number>): number {
  let max = Number.NEGATIVE_INFINITY;
  for (const v of values) {
    if (Number.isNaN(v)) return Number.NaN;
    if (v > max) max = v;
  }
  return max;
}

/** `Math.min(...values)` for any number of values: Infinity for none, NaN if one is. */
export function minOf(values: Iterable<number>): number {
  let min = Number.POSITIVE_INFINITY;
  for (const v of values) {
    if (Number.isNaN(v)) return Number.NaN;
    if (v < min) min = v;
  }
  return min;
}
