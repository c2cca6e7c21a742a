import type { Status } from '../core/store/schema.js';
import type { Style } from './style.js';

/** How a status reads: a symbol for the eye, a word for everyone. */
export const STATUS_SYMBOL: Record<Status | 'blocked', string> = {
  completed: '✔',
  in_progress: '▶',
  pending: '○',
  blocked: '■',
};

export const STATUS_WORD: Record<Status | 'blocked', string> = {
  completed: 'done',
  in_progress: 'in progress',
  pending: 'pending',
  blocked: 'blocked',
};

export function paintStatus(style: Style, status: Status | 'blocked', text: string): string {
  switch (status) {
    case 'completed':
      return style.green(text);
    case 'in_progress':
      return style.cyan(text);
    case 'blocked':
      return style.red(text);
    default:
      return text;
  }
}

export function statusLabel(style: Style, status: Status | 'blocked'): string {
  return paintStatus(style, status, `${STATUS_SYMBOL[status]} ${STATUS_WORD[status]}`);
}
