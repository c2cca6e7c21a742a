import type { NoteCode, WarningCode } from '../core/base/notices.js';
import { withoutEscapes } from '../core/base/program-output.js';
import type { HookBlockedError, HookRunReport } from '../core/hooks/hooks.js';
import type { LifecycleReport } from '../core/lifecycle/task-lifecycle.js';
import type { Notice } from './note.js';
import { multiLine, oneLine } from './text.js';

/**
 * What happened around a change (hooks run or skipped, inboxes written), as lines for
 * stderr. Pure: the CLI decides where they go and how warnings are marked.
 */
export interface ReportLines {
  notes: Notice<NoteCode>[];
  warnings: Notice<WarningCode>[];
}

/** `skippedBy`: what skipped the hooks, in the words of whoever asked (`--no-hooks` on the command line). */
export function renderLifecycleReport(report: LifecycleReport, skippedBy = '--no-hooks'): ReportLines {
  const notes: Notice<NoteCode>[] = [];
  const warnings: Notice<WarningCode>[] = [];
  const seen = new Set<string>();
  for (const run of report.hookRuns) {
    for (const w of run.settingsWarnings) {
      if (!seen.has(w)) warnings.push({ code: 'settings_skipped', text: oneLine(w) });
      seen.add(w);
    }
    for (const s of run.settingsSkipped) {
      if (seen.has(s.message)) continue;
      seen.add(s.message);
      warnings.push({
        code: 'hooks_skipped',
        text: oneLine(s.message),
        facts: {
          reason: s.reason,
          files: s.files,
          ...(s.folder === undefined ? {} : { folder: s.folder, configFile: s.configFile }),
          ...(s.managedFile === undefined ? {} : { managedFile: s.managedFile }),
        },
      });
    }
    warnings.push(
      ...hookWarnings(run).map((text) => ({ code: 'hook_failed' as const, text, facts: { event: run.event, taskId: run.taskId } })),
    );
  }
  for (const s of report.skippedHooks) {
    const what = s.count === 0 ? `${s.event} hooks (none configured)` : `${s.count} ${s.event} hook${s.count === 1 ? '' : 's'}`;
    notes.push({
      code: 'hooks_not_run',
      text: `skipped ${what} for task #${s.taskId} (${skippedBy})`,
      facts: { event: s.event, taskId: s.taskId, hooks: s.count },
    });
  }
  const team = report.team?.name ?? '';
  for (const n of report.notifications) {
    notes.push({
      code: 'owner_told',
      text: `told ${oneLine(n.owner)} of task #${n.taskId} (inbox of team "${oneLine(team)}")`,
      facts: { owner: n.owner, taskId: n.taskId, team },
    });
  }
  for (const s of report.notifySkipped) {
    notes.push({
      code: 'owner_not_told',
      text: `not telling ${oneLine(s.owner)} of task #${s.taskId} (--no-notify)`,
      facts: { owner: s.owner, taskId: s.taskId },
    });
  }
  for (const f of report.notifyFailures) {
    warnings.push({
      code: 'inbox_not_written',
      text: `task #${f.taskId} is assigned to ${oneLine(f.owner)}, but their inbox could not be written: ${oneLine(f.error.message)}`,
      facts: { owner: f.owner, taskId: f.taskId },
    });
  }
  return { notes, warnings };
}

function hookWarnings(run: HookRunReport): string[] {
  const out: string[] = [];
  for (const o of run.outcomes) {
    const who = `${run.event} hook "${oneLine(o.command)}"`;
    const v = o.verdict;
    if (v.kind === 'error') out.push(`${who} failed (${oneLine(withoutEscapes(v.message))}); not a block, carrying on`);
    else if (v.kind === 'timeout') out.push(`${who} timed out after ${v.seconds} s and was stopped; not a block, carrying on`);
    else if (v.kind === 'background-failed') out.push(`${who} (async) could not start: ${oneLine(v.message)}`);
  }
  return out;
}

/** The reasons of a block, in full, for the lines under the one-line error. */
export function renderBlockDetails(err: HookBlockedError): string[] {
  const lines: string[] = [];
  const blocks = err.report.outcomes.filter((o) => o.verdict.kind === 'block');
  for (const o of blocks) {
    const reason = multiLine(withoutEscapes((o.verdict as { reason: string }).reason)).trimEnd();
    // The first line is already in the error message when there is one block.
    if (blocks.length === 1 && !reason.includes('\n')) continue;
    lines.push(`  [${oneLine(o.command)}]`);
    for (const line of reason.split('\n')) lines.push(`    ${line}`);
  }
  return lines;
}
