/**
 * Escape sequences for a full-screen view, and the smallest update from one frame to
 * the next. Pure: the caller writes the strings.
 */
const ESC = '\u001b[';

export const SCREEN = {
  /** Alternate screen, cursor hidden, cleared: the shell's screen is kept aside. */
  enter: `${ESC}?1049h${ESC}?25l${ESC}H${ESC}2J`,
  /** Cursor shown, back to the shell's screen as it was. */
  leave: `${ESC}?25h${ESC}?1049l`,
  clear: `${ESC}H${ESC}2J`,
  /** Synchronized output: terminals that know it paint the update at once (no tearing). */
  syncStart: `${ESC}?2026h`,
  syncEnd: `${ESC}?2026l`,
} as const;

/**
 * Rewrite only the rows that differ between `prev` and `next` (each row already cut to
 * fit the width): move to the row, write it, clear to its end; rows that `next` no
 * longer has are cleared. Returns '' when nothing changed, so an unchanged frame costs
 * no output and cannot flicker. `prev` undefined means the screen is blank.
 */
export function screenPatch(prev: readonly string[] | undefined, next: readonly string[]): string {
  let out = '';
  const rows = Math.max(prev?.length ?? 0, next.length);
  for (let i = 0; i < rows; i++) {
    const line = next[i];
    if (prev !== undefined && prev[i] === line) continue;
    if (line === undefined) out += `${ESC}${i + 1};1H${ESC}2K`;
    else if (prev === undefined && line === '') continue;
    else out += `${ESC}${i + 1};1H${line}${ESC}K`;
  }
  return out === '' ? '' : `${SCREEN.syncStart}${out}${SCREEN.syncEnd}`;
}
