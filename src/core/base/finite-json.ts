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

/**
 * The first whole number in a JSON text that a JavaScript number cannot hold exactly
 * (`9007199254740993` parses as 9007199254740992), with what it would be written as; the
 * text must be valid JSON. Strings are passed over, so "12345678901234567890" is no number.
 */
export function inexactInteger(json: string): { literal: string; written: string } | undefined {
  for (const [token] of json.matchAll(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g)) {
    if (!/^-?\d+$/.test(token)) continue;
    const n = Number(token);
    if (BigInt(token) !== BigInt(n)) return { literal: token, written: JSON.stringify(n) };
  }
  return undefined;
}
