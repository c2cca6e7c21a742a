import type { DoctorReport, Fix } from '../core/doctor/doctor-findings.js';
import type { Style } from './style.js';
import { oneLine } from './text.js';

/**
 * `tasks doctor`'s findings, one block each: what is wrong, then each fix on a line of
 * its own, the preferred first (a command to paste, or the settings to put in a file).
 * Empty when nothing is wrong.
 */
export function renderDoctorReport(report: DoctorReport, style: Style): string {
  return report.findings
    .map((f) => {
      const head = `${style.red('✗')} ${oneLine(f.message)} ${style.dim(`[${f.code}]`)}`;
      const fixes = f.fixes.map((fix, i) => `    ${i === 0 ? 'fix:' : 'or: '} ${fixText(fix, style)}`);
      return [head, ...fixes].join('\n');
    })
    .join('\n');
}

function fixText(fix: Fix, style: Style): string {
  const note = fix.note === undefined ? '' : style.dim(`  (${oneLine(fix.note)})`);
  switch (fix.kind) {
    case 'command':
      return `${style.bold(oneLine(fix.command))}${note}`;
    case 'settings':
      return `in ${oneLine(fix.file)} set ${style.bold(JSON.stringify(fix.snippet))}${note}`;
    case 'remove-setting':
      return `in ${oneLine(fix.file)} remove ${style.bold(JSON.stringify(fix.key))} from "env"${note}`;
  }
}

/** The one-line summary for stderr: how many findings, in what was looked at. */
export function renderDoctorSummary(report: DoctorReport, where: string): string {
  const n = report.findings.length;
  const looked = `${report.sessions.length} session${report.sessions.length === 1 ? '' : 's'}, ${report.lists.length} list${report.lists.length === 1 ? '' : 's'}`;
  return n === 0 ? `no problem found in ${where} (${looked})` : `${n} problem${n === 1 ? '' : 's'} found in ${where} (${looked})`;
}

/** A list on a network filesystem: fine to share between machines, with their clocks in step. */
export function renderNetworkListNote(list: string, filesystem: string): string {
  return `list ${list} is on a network filesystem (${filesystem}): agents on several machines may share it, if their clocks agree (NTP); a lock counts as stale by its age`;
}
