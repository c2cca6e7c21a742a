/**
 * Does a parsed JSON value hold only numbers JSON can write? `1e999` parses as Infinity,
 * which JSON.stringify writes as null: a value asked for would be stored as another.
 */
export function holdsOnlyFiniteNumbers(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (value === null || typeof value !== 'object') return true;
  return Object.values(value).every(holdsOnlyFiniteNumbers);
}

/** What a value refused for such a number is told (`--meta n:=1e999`, an imported task's key). */
export const TOO_LARGE_FOR_JSON = 'a number too large for JSON (it would be written as null)';
