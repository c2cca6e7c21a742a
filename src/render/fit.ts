import { displayWidth, visibleWidth } from './text.js';

const SGR = /^\u001b\[[0-9;]*m/;

/**
 * Cut a line that may hold colour codes to `width` visible columns, keeping the codes,
 * resetting colour at the cut (only where a code was kept: a line without colour, as
 * with NO_COLOR, gets none) and ending with an ellipsis. A full-screen view must never
 * let a line wrap: the rows below would shift and the screen would scroll.
 */
export function fitStyled(line: string, width: number): string {
  if (visibleWidth(line) <= width) return line;
  const room = width - 1; // for the ellipsis
  let out = '';
  let used = 0;
  let i = 0;
  let coloured = false;
  while (i < line.length) {
    const sgr = SGR.exec(line.slice(i, i + 32));
    if (sgr) {
      out += sgr[0];
      i += sgr[0].length;
      coloured = true;
      continue;
    }
    const cp = line.codePointAt(i) ?? 0;
    const ch = String.fromCodePoint(cp);
    const w = displayWidth(ch);
    if (used + w > room) break;
    out += ch;
    used += w;
    i += ch.length;
  }
  return width > 0 ? `${out}${coloured ? '\u001b[0m' : ''}…` : '';
}
