import { maxOf } from '../core/base/many-items.js';
import type { CheckedFinding, CheckReport } from '../core/check/check-list.js';
import type { Finding } from '../core/check/findings.js';
import { shellWord } from './list-choice-note.js';
import type { Style } from './style.js';
import { oneLine } from './text.js';

/**
 * `tasks check` for people. Every message quotes file names and file contents, so every
 * line goes through oneLine. Findings first, each with what --fix did or what to do;
 * then one summary line.
 */

export interface CheckView {
  list: string;
  report: CheckReport;
  fix: boolean;
}

const WORD = { fixed: 'fixed', gone: 'already gone', failed: 'not fixed' } as const;

/**
 * A hint's commands with the list named (`tasks release --gone` -> `tasks -l 2d483082
 * release --gone`), so that pasted they act on the list that was checked.
 */
export function hintWithList(hint: string, listArgs: readonly string[]): string {
  if (listArgs.length === 0) return hint;
  const named = listArgs.map(shellWord).join(' ');
  return hint.replace(/(^|[\s:(])tasks (?=[a-z])/g, `$1tasks ${named} `);
}

function findingLine(f: CheckedFinding, style: Style, codeWidth: number, listArgs: readonly string[]): string[] {
  const mark = f.severity === 'error' ? style.red('✖') : style.yellow('!');
  const lines = [`${mark} ${style.bold(f.code.padEnd(codeWidth))}  ${oneLine(f.message)}`];
  const indent = ' '.repeat(codeWidth + 4);
  if (f.repair) {
    const paint = f.repair.status === 'fixed' ? style.green : f.repair.status === 'gone' ? style.dim : style.red;
    lines.push(`${indent}${paint(`${WORD[f.repair.status]}:`)} ${oneLine(f.repair.message)}`);
  } else if (f.fix !== undefined) {
    lines.push(`${indent}${style.dim('--fix will:')} ${oneLine(f.fix)}`);
  } else if (f.hint) {
    lines.push(`${indent}${style.dim(`hint: ${oneLine(hintWithList(f.hint, listArgs))}`)}`);
  }
  return lines;
}

/** The findings of one list, for a terminal (or plain, with a PLAIN style); `listArgs`: what names the list in a hint's commands. */
export function renderCheckReport(view: CheckView, style: Style, listArgs: readonly string[] = []): string {
  const { report } = view;
  if (report.findings.length === 0) return '';
  const width = maxOf(report.findings.map((f) => f.code.length));
  return report.findings.flatMap((f) => findingLine(f, style, width, listArgs)).join('\n');
}

function count(findings: readonly Finding[]): string {
  const errors = findings.filter((f) => f.severity === 'error').length;
  const warnings = findings.length - errors;
  const parts = [];
  if (errors > 0) parts.push(`${errors} error${errors === 1 ? '' : 's'}`);
  if (warnings > 0) parts.push(`${warnings} warning${warnings === 1 ? '' : 's'}`);
  return parts.join(', ');
}

/** "list "x": 3 problems (2 errors, 1 warning); 2 can be fixed with tasks -l x check --fix" (`listArgs`: what names the list). */
export function renderCheckSummary(view: CheckView, style: Style, listArgs: readonly string[] = []): string {
  const { report } = view;
  const name = `list "${oneLine(view.list)}"`;
  const files = `${report.files} task file${report.files === 1 ? '' : 's'}`;
  if (report.findings.length === 0) return `${style.green('✔')} ${name}: no problems (${files} checked)`;
  if (view.fix) {
    const fixed = report.findings.filter((f) => f.repair?.status === 'fixed').length;
    const remaining = report.remaining ?? [];
    const tail = remaining.length === 0 ? style.green('nothing left to fix') : `${remaining.length} left (${count(remaining)})`;
    return `${name}: ${report.findings.length} found, ${fixed} fixed; ${tail}`;
  }
  const fixable = report.findings.filter((f) => f.fixable).length;
  const problems = `${report.findings.length} problem${report.findings.length === 1 ? '' : 's'} (${count(report.findings)})`;
  const hint = fixable > 0 ? `; ${fixable} can be fixed with ${['tasks', ...listArgs.map(oneLine), 'check', '--fix'].join(' ')}` : '';
  return `${style.red('✖')} ${name}: ${problems}${hint}`;
}

/** `--json`: one object per list; finding fields are flat, `repair` is added by --fix. */
export function checkJson(view: CheckView, checkedAt: string): Record<string, unknown> {
  const { report } = view;
  const clean = (view.fix ? (report.remaining ?? []) : report.findings).length === 0;
  // A hint's commands name the list by its full id, as the text's do by its short one: run
  // as given, they act on this list, not on whichever the shell would choose.
  const named = <F extends { hint?: string | undefined }>(fs: readonly F[]): F[] =>
    fs.map((f) => (f.hint === undefined ? f : { ...f, hint: hintWithList(f.hint, ['-l', view.list]) }));
  return {
    list: view.list,
    ok: true,
    path: report.dir,
    checkedAt,
    files: report.files,
    clean,
    findings: named(report.findings),
    ...(view.fix ? { remaining: named(report.remaining ?? []) } : {}),
  };
}
