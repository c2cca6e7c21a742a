/**
 * Characters JSON.stringify leaves raw that a terminal may act on: DEL and the C1 controls
 * (U+009B is a one-byte CSI to some terminals), bidirectional overrides, line separators.
 * Outside strings JSON is ASCII, so escaping them as \uXXXX changes no value a parser sees.
 */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function escapeUnsafeJson(json: string): string {
  // Every one of them but DEL is outside ASCII: a text whose UTF-8 is as long as it is
  // holds none (counted natively, where the expression is a scan a character: 4 million
  // instructions for `list --json` of 1,000 tasks).
  if (Buffer.byteLength(json, 'utf8') === json.length && !json.includes('\x7f')) return json;
  return json.replace(UNSAFE_IN_JSON, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `--json`: one document, two-space indented like the task files themselves. */
export function renderJson(value: unknown): string {
  return escapeUnsafeJson(JSON.stringify(value, null, 2));
}

/** One line of NDJSON (streams, JSON Lines), escaped as renderJson escapes. */
export function renderJsonLine(value: unknown): string {
  return escapeUnsafeJson(JSON.stringify(value));
}
