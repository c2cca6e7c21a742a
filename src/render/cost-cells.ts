import type { CostUsage } from '../core/cost/cost-report.js';
import { compactCount } from './compact-count.js';
import { oneLine } from './text.js';

/**
 * A cost's parts as people read them, shared by `tasks cost`, `get`, `list --cost`,
 * `export --format markdown --cost` and the board: tokens in thousands or millions, time
 * in hours and minutes, dollars to the cent ("<$0.01" below a cent), "?" for a cost that
 * cannot be known (a model with no known price). Counts: compact-count.ts.
 *
 * "3h 05m", "12m 40s", "45s", "0s".
 */
export function activeTime(ms: number): string {
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}

/**
 * A time in progress as counted: "≤" before it when part of it may be time in which a
 * session had no process (one crashed, and no record says where it ended): the time is
 * at most this, never guessed lower.
 */
export const timeCell = (u: CostUsage): string => `${u.unsureMs > 0 ? '≤' : ''}${activeTime(u.activeMs)}`;

export function dollars(usd: number | null): string {
  if (usd === null) return '?';
  if (usd === 0) return '$0';
  if (usd < 0.005) return '<$0.01';
  return `$${usd.toFixed(2)}`;
}

export const tokenTotal = (u: CostUsage) => u.tokens.input + u.tokens.output + u.tokens.cacheRead + u.tokens.cacheCreation;

/** Has this any recorded work (a message, or time in progress)? */
export const hasWork = (u: CostUsage) => u.messages > 0 || u.activeMs > 0;

/** One line: "12m 40s in progress · 1.2M tokens (8 messages, claude-opus-5-5) · $0.42". */
export function costLine(u: CostUsage): string {
  const parts: string[] = [];
  if (u.activeMs > 0)
    parts.push(
      u.unsureMs > 0
        ? `up to ${activeTime(u.activeMs)} in progress (${activeTime(u.unsureMs)} of it after a crash no record places)`
        : `${activeTime(u.activeMs)} in progress`,
    );
  if (u.messages > 0) {
    // Model names are read from transcripts: shown without control characters.
    const models = u.models.length === 0 ? '' : `, ${u.models.map(oneLine).join(', ')}`;
    parts.push(`${compactCount(tokenTotal(u))} tokens (${u.messages} message${u.messages === 1 ? '' : 's'}${models})`);
    parts.push(u.costUsd === null ? 'cost unknown (no price for a model)' : `${dollars(u.costUsd)} estimated`);
  }
  return parts.join(' · ');
}

/** `get`'s line under a task's fields: its time in progress, tokens and estimated cost. */
export function renderWorkLine(u: CostUsage, style: { bold(s: string): string }): string {
  return `${style.bold('Work:'.padEnd(13))}${costLine(u)}`;
}

/** `list --cost`'s columns in a table: time in progress, tokens, estimated cost ("" for a task with no work). */
export const COST_HEAD = ['TIME', 'TOKENS', 'COST'] as const;

export function costCells(u: CostUsage | undefined): string[] {
  if (u === undefined || !hasWork(u)) return ['', '', ''];
  return [u.activeMs > 0 ? timeCell(u) : '-', compactCount(tokenTotal(u)), u.messages > 0 ? dollars(u.costUsd) : '-'];
}

/** Piped, exact: active ms, tokens, cost in USD ("-": not known). */
export function costFields(u: CostUsage | undefined): string[] {
  if (u === undefined) return ['0', '0', '0'];
  return [String(u.activeMs), String(tokenTotal(u)), u.costUsd === null ? '-' : String(u.costUsd)];
}
