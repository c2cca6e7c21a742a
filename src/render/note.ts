/** "note: ..." on stderr: something worth knowing that is neither a warning nor an error. */
export function renderNote(message: string): string {
  return `note: ${message}`;
}

/**
 * A warning or a note with its code and facts: text for a person, and with `--json` the
 * object `{"warning"|"note": {code, message, ...facts}}` on stderr.
 */
export interface Notice {
  code: string;
  text: string;
  facts?: Record<string, unknown> | undefined;
}
