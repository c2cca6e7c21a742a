import type { RestoreOutcome } from '../core/restore/restore-list.js';
import { compareIds } from '../core/store/ids.js';
import { renderImportReport } from './import-report.js';
import type { Style } from './style.js';
import { tasksJson } from './task-json.js';
import { oneLine } from './text.js';

/** What `restore` did (or would do), also its `--json` document. */
export interface RestoreReport extends RestoreOutcome {
  list: string;
  dryRun: boolean;
}

/** One line per task, as import prints them: restored, skipped (already there), updated. */
export function renderRestoreReport(report: RestoreReport, style: Style): string {
  return renderImportReport(report, style, ['restored', 'restore']);
}

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The one-line summary, for stderr; `into`: the list in words (listWords). */
export function renderRestoreSummary(report: RestoreReport, into: string): string {
  const n = report.created.length;
  const from = `from ${count(report.sources.length, 'transcript')}`;
  const sorted = report.created.map((t) => t.id).sort(compareIds);
  const range =
    n === 0 ? '' : n === 1 ? ` (#${oneLine(sorted[0] ?? '')})` : ` (#${oneLine(sorted[0] ?? '')}-#${oneLine(sorted.at(-1) ?? '')})`;
  const moved = Object.entries(report.ids ?? {}).filter(([old, id]) => old !== id && report.created.some((t) => t.id === id));
  const ids =
    n === 0 ? '' : moved.length === 0 ? '' : `; new ids: ${moved.map(([old, id]) => `#${oneLine(old)} -> #${oneLine(id)}`).join(', ')}`;
  const skipped = report.skipped.length > 0 ? `; ${report.skipped.length} already there` : '';
  const mark = report.mark.after !== report.mark.before ? `; high-water mark ${report.mark.before} -> ${report.mark.after}` : '';
  if (report.dryRun)
    return `dry run: would restore ${count(n, 'task')} into ${into}${range} ${from}${ids}${skipped}${mark}; nothing written`;
  if (n === 0) return `nothing to restore into ${into} ${from}${skipped}${mark}`;
  return `restored ${count(n, 'task')} into ${into}${range} ${from}${ids}${skipped}${mark}`;
}

/** `restore --json`: the import's report (`created` with change times; `dryRun` only in a dry run), what was read, the mark. */
export function restoreJson(report: RestoreReport, times: ReadonlyMap<string, number> | undefined): Record<string, unknown> {
  return {
    list: report.list,
    ...(report.dryRun ? { dryRun: true } : {}),
    created: tasksJson(report.created, report.dryRun ? undefined : times),
    skipped: report.skipped,
    updated: report.updated,
    ids: report.ids ?? {},
    sources: report.sources.map((s) => ({ sessionId: s.sessionId, transcript: s.transcript, why: s.why, changes: s.changes })),
    replay: report.replay,
    mark: report.mark,
    warnings: report.warnings,
  };
}

/** `tasks -l proj restore --from <a> --from <b>`: the command that restores a list from these sessions. */
export function restoreFromCommand(list: string, sessions: readonly string[]): string {
  return ['tasks', '-l', list, 'restore', ...sessions.flatMap((s) => ['--from', s])].join(' ');
}

/**
 * `tasks lists --all`: sessions whose Task-tool calls went to a list named only in their
 * environment (its name is in no file), its folder gone: how to restore it by its name.
 */
export function renderNamedElsewhere(sessions: readonly string[]): string {
  const who = `session${sessions.length === 1 ? '' : 's'} ${sessions.map((s) => s.slice(0, 8)).join(', ')}`;
  return `${who} wrote into a list named only in ${sessions.length === 1 ? 'its' : 'their'} environment (CLAUDE_CODE_TASK_LIST_ID), whose folder is gone: ${restoreFromCommand('<name>', sessions)}`;
}

/**
 * A restore with no change of the list to write, as `tasks restore` refuses it (`list`:
 * the list in words, listWords; `read`: the transcripts read).
 */
export function renderNothingRecorded(list: string, read: number): string {
  return read === 0
    ? `nothing records ${list}: none of its sessions is known, and no change made with tasks is in its journal`
    : `no Task-tool change of ${list} in ${read} transcript${read === 1 ? '' : 's'} read`;
}
