import { isTasksError } from '../../core/base/errors.js';
import { maxOf } from '../../core/base/many-items.js';
import { renderJson } from '../../render/json.js';
import { renderListsJsonLine } from '../../render/lists-table.js';
import { oneLine } from '../../render/text.js';
import type { IO } from '../runtime/io.js';
import type { SshTarget } from './host-address.js';
import { runOnHost } from './host-run.js';

/**
 * `tasks lists -H a -H b`: every host's lists, asked at once, in one answer with the host
 * first. A host that cannot be reached is named in its error line (exit 8) and the others
 * are shown all the same. `--json`: one array, each row with its `host`; piped: the lines
 * of `tasks lists` with the host as the first field; on a terminal, a table.
 */
export async function runListsOnHosts(
  targets: readonly SshTarget[],
  args: readonly string[],
  folder: string,
  io: IO,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const json = args.includes('--json');
  const asked = [...args.filter((a) => a !== '--json'), '--json'];
  const answers = await Promise.all(
    targets.map(async (target) => {
      try {
        const outcome = await runOnHost(target, json ? args : asked, folder, io, env, {
          keepStdout: true,
          forceNoTty: true,
          relay: 'read',
        });
        return { target, rows: parseRows(outcome.stdout) };
      } catch (err) {
        if (!isTasksError(err)) throw err;
        io.fail(err);
        return { target, rows: [] };
      }
    }),
  );
  const rows: Row[] = answers.flatMap((a) => a.rows.map((row) => ({ host: a.target.label, ...row })));
  if (json) {
    io.out(renderJson(rows));
    return;
  }
  if (io.humanLayout) io.out(hostsTable(rows, io));
  else if (rows.length > 0) io.out(rows.map((r) => `${oneLine(r.host)}\t${renderListsJsonLine(r)}`).join('\n'));
}

type Row = Record<string, unknown> & { host: string };

function parseRows(stdout: string): Record<string, unknown>[] {
  try {
    const doc = JSON.parse(stdout) as unknown;
    return Array.isArray(doc) ? doc.filter((r): r is Record<string, unknown> => r !== null && typeof r === 'object') : [];
  } catch {
    return [];
  }
}

function text(v: unknown): string {
  return typeof v === 'string' && v !== '' ? oneLine(v).replace(/\t/g, ' ') : '-';
}

function count(row: Record<string, unknown>, status: string): string {
  const counts = row.counts as Record<string, unknown> | undefined;
  const n = counts?.[status];
  return typeof n === 'number' ? String(n) : '-';
}

/** HOST first, then what tells the lists apart at a glance; the working folder takes what width is left. */
function hostsTable(rows: readonly Row[], io: IO): string {
  const head = ['HOST', 'LIST', 'DONE', 'STATE', 'CHANGED', 'FOLDER'];
  const cells = rows.map((r) => [
    r.host,
    text(r.id),
    `${count(r, 'completed')}/${count(r, 'total')}`,
    text(r.state),
    text(r.changedAt).slice(0, 16).replace('T', ' '),
    text(r.cwd),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, maxOf(cells.map((c) => (c[i] as string).length))));
  const fixed = widths.slice(0, -1).reduce((a, w) => a + w + 2, 0);
  const last = Math.max(10, io.columns - fixed);
  const line = (c: readonly string[]): string =>
    c
      .map((v, i) => (i === c.length - 1 ? (v.length > last ? `…${v.slice(v.length - last + 1)}` : v) : v.padEnd(widths[i] as number)))
      .join('  ')
      .trimEnd();
  return [io.style.bold(line(head)), ...cells.map(line)].join('\n');
}
