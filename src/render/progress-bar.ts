import type { Style } from './style.js';

/** `██████░░░░`: done out of total, `width` columns; an empty list shows an empty bar. */
export function renderProgressBar(done: number, total: number, width: number, style: Style): string {
  if (width <= 0) return '';
  const filled = total > 0 ? Math.min(width, Math.round((done / total) * width)) : 0;
  return style.green('█'.repeat(filled)) + style.dim('░'.repeat(width - filled));
}
