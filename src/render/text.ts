/**
 * Text that agents wrote reaches the terminal only through here: control characters
 * (escape sequences, carriage returns, bells) could rewrite the screen or lie about it.
 */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const CONTROL_OR_BREAK = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** For one-line cells: every control character, newlines and tabs included, becomes a space or goes. */
export function oneLine(text: string): string {
  if (!CONTROL_OR_BREAK.test(text)) return text; // most cells: one scan, no copies
  return text.replace(/[\r\n\t]+/g, ' ').replace(CONTROL, '');
}

/**
 * A file or folder name in a line: as it is when plain; quoted and escaped as in JSON
 * when it holds a control character (`"tasks/a\nb"`), so that it can be told from
 * `tasks/a b` and typed, where oneLine would make it one.
 */
export function nameInLine(name: string): string {
  if (!CONTROL_OR_BREAK.test(name)) return name;
  return JSON.stringify(name).replace(CONTROL, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}

/** For multi-line blocks (descriptions): keep newlines and tabs, drop the rest. */
export function multiLine(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(CONTROL, '');
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Display width, counting wide East Asian characters and emoji as two columns. */
export function displayWidth(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length; // most text: no walk by code point
  let width = 0;
  for (const ch of text) width += charWidth(ch.codePointAt(0) ?? 0);
  return width;
}

function charWidth(cp: number): number {
  if (cp === 0) return 0;
  if (cp >= 0x300 && cp <= 0x36f) return 0; // combining marks
  if (cp === 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f)) return 0; // joiners, variation selectors
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  ) {
    return 2;
  }
  return 1;
}

/** Cut to `max` columns, ending with an ellipsis when cut. */
export function truncate(text: string, max: number): string {
  if (max <= 0) return '';
  if (displayWidth(text) <= max) return text;
  let out = '';
  let width = 0;
  for (const ch of text) {
    const w = charWidth(ch.codePointAt(0) ?? 0);
    if (width + w > max - 1) break;
    out += ch;
    width += w;
  }
  return `${out}…`;
}

const ANSI = /\u001b\[[0-9;]*m/g;

/** Width of what shows: colour codes take no columns. */
export function visibleWidth(text: string): number {
  return displayWidth(text.replace(ANSI, ''));
}

export function padEnd(text: string, width: number): string {
  const gap = width - visibleWidth(text);
  return gap > 0 ? text + ' '.repeat(gap) : text;
}

export function padStart(text: string, width: number): string {
  const gap = width - visibleWidth(text);
  return gap > 0 ? ' '.repeat(gap) + text : text;
}
