/**
 * What other programs write (hooks, the test runners they start) is text for a terminal:
 * colour and cursor codes. Where it becomes data (an error's message, a reason kept in
 * a report), the codes go whole, not as "[31m" debris; render strips what is left.
 */
const ESCAPE_SEQUENCE = /\u001b\[[0-9;?]*[A-Za-z]/g;

/** A program's output without its terminal escape sequences. */
export function withoutEscapes(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, '');
}
