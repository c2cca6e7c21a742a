/** An ISO 8601 time as people type it: a date, a time to the minute or beyond, an optional zone. */
const ISO = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** An ISO 8601 time in ms since the epoch (without a zone it is local time), or undefined. */
export function parseIsoTime(raw: string): number | undefined {
  const value = raw.trim();
  if (!ISO.test(value)) return undefined;
  // A date alone is local midnight (Date.parse would take it as UTC).
  const text = /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00` : value.replace(' ', 'T');
  const t = Date.parse(text);
  return Number.isFinite(t) ? t : undefined;
}
