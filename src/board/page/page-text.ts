/**
 * Every subject, description, owner and metadata value is an agent's text, and hostile
 * until shown otherwise. The page puts text in the DOM only as text (textContent, never
 * innerHTML), and first makes invisible controls visible: C0 controls as their Control
 * Pictures (ESC shows as ␛), C1 controls and the bidirectional and invisible formatting
 * characters (which could reorder or hide what a line says) as �. The CSS shows agents'
 * text with `unicode-bidi: plaintext`, so right-to-left text cannot reorder the page.
 */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

function visible(ch: string): string {
  const code = ch.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return '\ufffd';
}

/** For multi-line blocks: newlines and tabs kept, every other control made visible. */
export function cleanText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(CONTROLS, visible);
}

/** For one line: newlines and tabs become spaces too. */
export function cleanLine(text: string): string {
  return cleanText(text).replace(/[\n\t]+/g, ' ');
}

/** A one-line cut to `max` characters, with an ellipsis. */
export function cutLine(text: string, max: number): string {
  const line = cleanLine(text);
  const chars = [...line];
  return chars.length <= max ? line : `${chars.slice(0, max - 1).join('')}…`;
}
