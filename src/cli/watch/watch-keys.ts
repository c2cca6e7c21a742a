/**
 * What a key press means in the live view. Pure: raw terminal input in, actions out. A
 * chunk of input can hold several keys (pasted text, fast typing), or escape sequences
 * (arrows, Page Up/Down, Home/End), one or several.
 */
export type WatchAction =
  | { type: 'quit' }
  | { type: 'redraw' }
  | { type: 'scroll'; by: 'line' | 'page'; direction: 1 | -1 }
  | { type: 'scroll-to'; where: 'top' | 'bottom' }
  /** `/`: start typing a filter. */
  | { type: 'filter-start' }
  | { type: 'filter-text'; text: string }
  | { type: 'filter-erase' }
  /** Enter: keep the filter and go back to scrolling. */
  | { type: 'filter-done' }
  /** Esc: drop the filter (and the scroll position). */
  | { type: 'filter-clear' };

const SEQUENCES: Readonly<Record<string, WatchAction>> = {
  '\u001b[A': { type: 'scroll', by: 'line', direction: -1 },
  '\u001bOA': { type: 'scroll', by: 'line', direction: -1 },
  '\u001b[B': { type: 'scroll', by: 'line', direction: 1 },
  '\u001bOB': { type: 'scroll', by: 'line', direction: 1 },
  '\u001b[5~': { type: 'scroll', by: 'page', direction: -1 },
  '\u001b[6~': { type: 'scroll', by: 'page', direction: 1 },
  '\u001b[H': { type: 'scroll-to', where: 'top' },
  '\u001b[1~': { type: 'scroll-to', where: 'top' },
  '\u001bOH': { type: 'scroll-to', where: 'top' },
  '\u001b[F': { type: 'scroll-to', where: 'bottom' },
  '\u001b[4~': { type: 'scroll-to', where: 'bottom' },
  '\u001bOF': { type: 'scroll-to', where: 'bottom' },
  '\u001b': { type: 'filter-clear' },
};

const KEYS: Readonly<Record<string, WatchAction>> = {
  q: { type: 'quit' },
  Q: { type: 'quit' },
  '\u0003': { type: 'quit' },
  '\u0004': { type: 'quit' },
  '\u000c': { type: 'redraw' },
  j: { type: 'scroll', by: 'line', direction: 1 },
  k: { type: 'scroll', by: 'line', direction: -1 },
  ' ': { type: 'scroll', by: 'page', direction: 1 },
  f: { type: 'scroll', by: 'page', direction: 1 },
  b: { type: 'scroll', by: 'page', direction: -1 },
  g: { type: 'scroll-to', where: 'top' },
  G: { type: 'scroll-to', where: 'bottom' },
  '/': { type: 'filter-start' },
};

/** The known sequences, longest first, so that `\u001b[A` is not read as Esc then `[A`. */
const BY_LENGTH = Object.keys(SEQUENCES).sort((a, b) => b.length - a.length);

/**
 * A chunk made only of known sequences, one after another (an arrow key pressed twice
 * before we read, on a busy machine or a slow link), as their actions; undefined if
 * any part of it is not one.
 */
function sequenceActions(chunk: string): WatchAction[] | undefined {
  const actions: WatchAction[] = [];
  for (let at = 0; at < chunk.length; ) {
    const sequence = BY_LENGTH.find((s) => chunk.startsWith(s, at));
    if (sequence === undefined) return undefined;
    actions.push(SEQUENCES[sequence] as WatchAction);
    at += sequence.length;
  }
  return actions;
}

/** `typing`: a filter is being typed, so letters are text, not commands. */
export function keyActions(chunk: string, typing: boolean): WatchAction[] {
  if (chunk.startsWith('\u001b')) return sequenceActions(chunk) ?? []; // else a sequence we do not use (F-keys, mouse)
  const actions: WatchAction[] = [];
  let text = '';
  const flush = () => {
    if (text !== '') actions.push({ type: 'filter-text', text });
    text = '';
  };
  for (const ch of chunk) {
    if (typing) {
      if (ch === '\r' || ch === '\n') {
        flush();
        actions.push({ type: 'filter-done' });
        typing = false;
      } else if (ch === '\u007f' || ch === '\b') {
        flush();
        actions.push({ type: 'filter-erase' });
      } else if (ch === '\u0003' || ch === '\u0004') {
        flush();
        actions.push({ type: 'quit' });
      } else if (ch >= ' ') text += ch;
    } else {
      const action = KEYS[ch];
      if (action) actions.push(action);
      if (action?.type === 'filter-start') typing = true;
    }
  }
  flush();
  return actions;
}
