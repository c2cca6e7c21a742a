import { maxOf } from '../core/base/many-items.js';
import type { ExistingChange } from '../core/snapshots/import-materialize.js';
import type { SkippedItem } from '../core/snapshots/import-plan.js';
import type { ImportFormat } from '../core/snapshots/import-snapshot.js';
import { compareIds } from '../core/store/ids.js';
import type { Task } from '../core/store/schema.js';
import { paintStatus } from './status.js';
import type { Style } from './style.js';
import { tasksJson } from './task-json.js';
import { oneLine } from './text.js';

/** What `import` did (or, with --dry-run, would do); also its `--json` document. */
export interface ImportReport {
  list: string;
  format: ImportFormat;
  /** What the input held, in words. */
  found: string;
  dryRun: boolean;
  /** New tasks in the shape of their files (predicted ids in a dry run). */
  created: Task[];
  /** Items matched by subject with a task already in the list, and left alone. */
  skipped: SkippedItem[];
  /** Existing tasks that gain an edge to a new task. */
  updated: ExistingChange[];
  /** For tasks that came with ids (exported tasks, a Task-tools run): old id -> id in the list. */
  ids?: Record<string, string> | undefined;
  warnings: string[];
}

const refs = (ids: readonly string[]) => ids.map((id) => `#${oneLine(id)}`).join(', ');

/**
 * One line per task: what happens to it, its id, status and subject, and its
 * dependencies. The same lines on a terminal (coloured) and in a pipe.
 */
export function renderImportReport(
  report: Pick<ImportReport, 'dryRun' | 'created' | 'skipped' | 'updated'>,
  style: Style,
  created: readonly [done: string, planned: string] = ['created', 'create'],
): string {
  const verb = (done: string, planned: string) => (report.dryRun ? planned : done);
  const ids = [...report.created.map((t) => t.id), ...report.skipped.map((s) => s.existingId), ...report.updated.map((u) => u.id)];
  const idW = Math.max(0, maxOf(ids.map((id) => id.length))) + 1;
  const verbW = Math.max(report.dryRun ? 6 : 7, report.dryRun ? created[1].length : created[0].length);
  const line = (v: string, id: string, status: Task['status'] | undefined, text: string) =>
    [v, `#${id}`.padEnd(idW), status ? paintStatus(style, status, status.padEnd(11)) : ''.padEnd(11), text].join('  ').trimEnd();
  const out: string[] = [];
  for (const t of report.created) {
    const deps = [t.blockedBy.length > 0 ? `blocked by ${refs(t.blockedBy)}` : '', t.owner ? `owner ${oneLine(t.owner)}` : '']
      .filter(Boolean)
      .join('; ');
    out.push(
      line(
        style.green(verb(created[0], created[1]).padEnd(verbW)),
        t.id,
        t.status,
        `${oneLine(t.subject)}${deps ? style.dim(` (${deps})`) : ''}`,
      ),
    );
  }
  for (const s of report.skipped) {
    const differs = s.status !== s.existingStatus ? `; the import says ${s.status}` : '';
    out.push(
      line(
        style.dim(verb('skipped', 'skip').padEnd(verbW)),
        s.existingId,
        s.existingStatus,
        `${oneLine(s.subject)}${style.dim(` (already in the list${differs})`)}`,
      ),
    );
  }
  for (const u of report.updated) {
    const gains = [
      u.addBlockedBy.length > 0 ? `now blocked by ${refs(u.addBlockedBy)}` : '',
      u.addBlocks.length > 0 ? `now blocks ${refs(u.addBlocks)}` : '',
    ]
      .filter(Boolean)
      .join('; ');
    out.push(line(style.yellow(verb('updated', 'update').padEnd(verbW)), u.id, undefined, gains));
  }
  return out.join('\n');
}

/** Renumbered ids named in the summary; --json has the whole map. */
const MAX_NAMED = 10;

/** The one-line summary, for stderr; `into`: the list in words (listWords). */
export function renderImportSummary(report: ImportReport, into: string): string {
  const n = report.created.length;
  const tasks = `${n} task${n === 1 ? '' : 's'}`;
  const sorted = report.created.map((t) => t.id).sort(compareIds);
  const range =
    n === 0 ? '' : n === 1 ? ` (#${oneLine(sorted[0] ?? '')})` : ` (#${oneLine(sorted[0] ?? '')}-#${oneLine(sorted.at(-1) ?? '')})`;
  const skipped = report.skipped.length > 0 ? `; ${report.skipped.length} already there, skipped` : '';
  const ids = n === 0 ? '' : idsNote(report);
  if (report.dryRun) return `dry run: would import ${tasks} into ${into}${range}${ids}${skipped}; nothing written`;
  if (n === 0) return `nothing to import into ${into}${skipped}`;
  return `imported ${tasks} into ${into}${range}${ids}${skipped}`;
}

/** What became of the ids the tasks came with: kept, or which got new ones. */
function idsNote(report: ImportReport): string {
  if (report.ids === undefined) return '';
  const created = new Set(report.created.map((t) => t.id));
  const moved = Object.entries(report.ids).filter(([old, id]) => created.has(id) && old !== id);
  if (moved.length === 0) return report.created.length === 1 ? ', under its own id' : ', each under its own id';
  const named = moved
    .slice(0, MAX_NAMED)
    .map(([old, id]) => `#${oneLine(old)} -> #${oneLine(id)}`)
    .join(', ');
  const more = moved.length > MAX_NAMED ? ` and ${moved.length - MAX_NAMED} more (--json has every id)` : '';
  const all = moved.length === report.created.length;
  return `; ${all ? 'new ids' : `${moved.length} new id${moved.length === 1 ? '' : 's'}`}: ${named}${more}`;
}

/**
 * The `--json` document: the report with each created task in the one task shape
 * (`updatedAt` from its file; null in a dry run, where nothing is written), and
 * `dryRun: true` only in a dry run, as every dry run is flagged.
 */
export function importJson(report: ImportReport, times: ReadonlyMap<string, number> | undefined): Record<string, unknown> {
  const { dryRun, created, ...rest } = report;
  return {
    list: rest.list,
    format: rest.format,
    found: rest.found,
    ...(dryRun ? { dryRun: true } : {}),
    created: tasksJson(created, dryRun ? undefined : times),
    skipped: rest.skipped,
    updated: rest.updated,
    ...(rest.ids === undefined ? {} : { ids: rest.ids }),
    warnings: rest.warnings,
  };
}
