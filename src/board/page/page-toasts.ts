import { byId, h } from './page-dom.js';
import { cleanLine, cutLine } from './page-text.js';

/**
 * What an action did or why it was refused, in the corner: its message, the lines under
 * it (an undo's steps, each task released, a hook's reasons), what the commands would
 * have said on stderr around it (notes, warnings), and at most one follow-up button (a
 * change again without hooks). The latest few are kept; they go by themselves.
 */
export type ToastKind = 'ok' | 'conflict' | 'error';

export interface ToastContent {
  message: string;
  lines?: readonly string[] | undefined;
  notes?: readonly string[] | undefined;
  warnings?: readonly string[] | undefined;
  button?: { label: string; action: string; onclick: () => void } | undefined;
}

const MAX_LINES = 8;

export function toast(kind: ToastKind, content: ToastContent | string): void {
  const c: ToastContent = typeof content === 'string' ? { message: content } : content;
  const lines = c.lines ?? [];
  const shown = lines.length > MAX_LINES ? [...lines.slice(0, MAX_LINES - 1), `… and ${lines.length - MAX_LINES + 1} more`] : lines;
  const warned = (c.warnings?.length ?? 0) > 0;
  const node = h(
    'div',
    { class: `toast ${kind}${warned ? ' warned' : ''}`, role: kind === 'ok' && !warned ? 'status' : 'alert' },
    h('div', { class: 'toast-message' }, cleanLine(c.message)),
    shown.length > 0 ? h('div', { class: 'toast-lines' }, ...shown.map((l) => h('div', {}, cutLine(l, 200)))) : null,
    ...(c.notes ?? []).map((n) => h('div', { class: 'toast-note' }, cutLine(n, 240))),
    ...(c.warnings ?? []).map((w) => h('div', { class: 'toast-warning' }, `warning: ${cutLine(w, 240)}`)),
    c.button
      ? h(
          'button',
          {
            class: 'ghost toast-button',
            type: 'button',
            'data-action': c.button.action,
            onclick: () => {
              node.remove();
              c.button?.onclick();
            },
          },
          c.button.label,
        )
      : null,
  );
  const box = byId('toasts');
  box.append(node);
  // The latest few: a burst of changes does not bury the page.
  while (box.childElementCount > 3) box.firstElementChild?.remove();
  const ms = c.button ? 20_000 : kind === 'ok' && !warned ? 3500 : 10_000;
  window.setTimeout(() => node.remove(), ms);
}
