import type { NoticeCode } from '../core/base/notices.js';

/** "note: ..." on stderr: something worth knowing that is neither a warning nor an error. */
export function renderNote(message: string): string {
  return `note: ${message}`;
}

/**
 * A warning or a note with its code and facts: text for a person, and with `--json` the
 * object `{"warning"|"note": {code, message, ...facts}}` on stderr.
 */
export interface Notice<Code extends NoticeCode = NoticeCode> {
  code: Code;
  text: string;
  facts?: Record<string, unknown> | undefined;
}
