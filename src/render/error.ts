import { escapeUnsafeJson } from './json.js';
import type { Style } from './style.js';
import { oneLine } from './text.js';

export interface ErrorView {
  code: string;
  message: string;
  hint?: string | undefined;
  details?: Record<string, unknown> | undefined;
}

/** One line for scripts and logs; a hint on a second line only when a person is looking. */
export function renderErrorText(err: ErrorView, style: Style, showHint: boolean): string {
  const line = `${style.red('error:')} ${oneLine(err.message)}`;
  return showHint && err.hint ? `${line}\n${style.dim(`hint: ${oneLine(err.hint)}`)}` : line;
}

/** `--json` errors, on stderr: {"error": {"code", "message", ...details}} */
export function renderErrorJson(err: ErrorView): string {
  return escapeUnsafeJson(
    JSON.stringify({ error: { code: err.code, message: err.message, ...(err.hint ? { hint: err.hint } : {}), ...err.details } }),
  );
}

/** `--json` warnings and notes, on stderr: {"warning"|"note": {"code", "message", ...facts}} */
export function renderNoticeJson(kind: 'warning' | 'note', code: string, message: string, facts?: Record<string, unknown>): string {
  const rest = { ...facts };
  delete rest.code;
  delete rest.message;
  return escapeUnsafeJson(JSON.stringify({ [kind]: { code, message, ...rest } }));
}
