import { findProblems, type CheckOptions, type Finding } from './check.js';
import { scanList } from './list-scan.js';
import { repairList, type Repair } from './repair.js';

export interface CheckedFinding extends Finding {
  /** With --fix, for a fixable finding: what was done. */
  repair?: Repair;
}

export interface CheckReport {
  dir: string;
  /** `*.json` files looked at. */
  files: number;
  findings: CheckedFinding[];
  /** With --fix: what a second look, after the repairs, still finds. */
  remaining?: Finding[];
}

/**
 * Scan a list folder and name its problems (no lock: a read, as agents read); with
 * `fix`, repair what is safe (repair.ts, under the agents' locks), then look again.
 * `now` is the clock the findings are judged by; repairs re-check real ages themselves.
 */
export async function checkList(
  listDir: string,
  opts: CheckOptions & { fix: boolean; clock?: () => number },
): Promise<CheckReport> {
  const scan = scanList(listDir);
  const findings: CheckedFinding[] = findProblems(scan, opts);
  const report: CheckReport = { dir: listDir, files: scan.taskFiles.length, findings };
  if (!opts.fix || !findings.some((f) => f.fixable)) {
    if (opts.fix) report.remaining = findings;
    return report;
  }
  const repairs = await repairList(listDir, findings, { now: opts.now, ...(opts.lockStaleMs === undefined ? {} : { lockStaleMs: opts.lockStaleMs }) });
  for (const f of findings) {
    const repair = repairs.get(f);
    if (repair) f.repair = repair;
  }
  const now = opts.clock?.() ?? opts.now;
  report.remaining = findProblems(scanList(listDir), { ...opts, now });
  return report;
}
