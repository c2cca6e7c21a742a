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
export function inexactInteger(json: string): InexactInteger | undefined {
  for (const [token] of json.matchAll(TOKENS)) {
    if (isInexact(token)) return { literal: token, written: JSON.stringify(Number(token)) };
  }
  return undefined;
}

export interface InexactInteger {
  literal: string;
  written: string;
}

/** A JSON text's strings (passed over) and numbers. */
const TOKENS = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * A whole number written back as another: what JSON.stringify writes for it denotes another
 * number (`9007199254740993` -> `9007199254740992`). Not one it writes back as the same
 * (`12345678901234567000`, which it wrote itself; `100000000000000000000000` -> `1e+23`): the
 * double between them differs from the literal, but nothing written or read back does.
 */
const isInexact = (token: string) => /^-?\d+$/.test(token) && wholeValue(JSON.stringify(Number(token))) !== BigInt(token);

/** The exact value of a JSON number's text when it is a whole number (`1.5e+21` too), else undefined (`null` too). */
function wholeValue(text: string): bigint | undefined {
  const parts = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (parts === null) return undefined;
  const [, sign, whole = '', fraction = '', exponent = '0'] = parts;
  const shift = Number(exponent) - fraction.length;
  let value = BigInt(whole + fraction);
  if (shift >= 0) value *= 10n ** BigInt(shift);
  else {
    const unit = 10n ** BigInt(-shift);
    if (value % unit !== 0n) return undefined;
    value /= unit;
  }
  return sign === '-' ? -value : value;
}

/** What a value refused for such a number is told (`--meta n:=...`, an imported task's key). */
export function notKeptExactly(inexact: InexactInteger): string {
  return `${inexact.literal} is a whole number too large to be kept exactly (it would be written as ${inexact.written})`;
}

/**
 * inexactInteger, with where the number lies in the parsed value: the keys and indexes that
 * lead to it (`["metadata", "n"]`), so that an error can name the item and the field. The
 * text must be valid JSON.
 */
export function inexactIntegerAt(json: string): (InexactInteger & { path: Array<string | number> }) | undefined {
  const first = inexactInteger(json);
  if (first === undefined) return undefined;
  // Parsed again with each such number turned into a string that says so, found by a walk.
  const mark = '\u0000inexact whole number\u0000';
  const marked = JSON.parse(json.replace(TOKENS, (token) => (isInexact(token) ? JSON.stringify(mark + token) : token))) as unknown;
  const walk = (value: unknown, path: Array<string | number>): Array<string | number> | undefined => {
    if (typeof value === 'string') return value === mark + first.literal ? path : undefined;
    if (value === null || typeof value !== 'object') return undefined;
    for (const [key, inner] of Object.entries(value)) {
      const found = walk(inner, [...path, Array.isArray(value) ? Number(key) : key]);
      if (found) return found;
    }
    return undefined;
  };
  return { ...first, path: walk(marked, []) ?? [] };
}
