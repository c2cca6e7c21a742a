/**
 * Check: what is wrong with a list folder and how to repair it. A scan without
 * locks (store/list-scan.ts), findings decided by a pure function (findings.ts), and
 * repairs applied under the agents' locks (repair.ts); this file ties them together.
 */

import { pushAll } from '../base/many-items.js';
import { scanList } from '../store/list-scan.js';
import { type CheckOptions, type Finding, findProblems } from './findings.js';
import { type Repair, repairList } from './repair.js';

export interface CheckedFinding extends Finding {
  /** With --fix, for a fixable finding: what was done. */
  repair?: Repair;
}

export interface CheckReport {
  dir: string;
  /** `*.json` files looked at. */
  files: number;
  findings: CheckedFinding[];
  /** With --fix: what a last look, after the repairs, still finds. */
  remaining?: Finding[];
}

/** Repairs can uncover more (moving a corrupt file aside leaves references to it dangling). */
const MAX_PASSES = 3;

function key(f: Finding): string {
  return [f.code, f.file, f.id, f.ref, f.blocker, f.blocked].join('|');
}

/**
 * Scan a list folder and name its problems (no lock: a read, as agents read); with
 * `fix`, repair what is safe (repair.ts, under the agents' locks), then look again:
 * problems the repairs uncovered are reported and repaired too (a few passes at most),
 * and what is still there is `remaining`. `now` judges the first look; `clock`, the later.
 */
export async function checkList(listDir: string, opts: CheckOptions & { fix: boolean; clock?: () => number }): Promise<CheckReport> {
  const scan = scanList(listDir);
  const findings: CheckedFinding[] = findProblems(scan, opts);
  const report: CheckReport = { dir: listDir, files: scan.taskFiles.length, findings };
  if (!opts.fix) return report;
  const seen = new Set(findings.map(key));
  let batch: CheckedFinding[] = findings;
  let remaining: Finding[] = findings;
  for (let pass = 1; pass <= MAX_PASSES && batch.some((f) => f.fixable); pass++) {
    const now = pass === 1 ? opts.now : (opts.clock?.() ?? opts.now);
    const repairs = await repairList(listDir, batch, { now, ...(opts.lockStaleMs === undefined ? {} : { lockStaleMs: opts.lockStaleMs }) });
    for (const f of batch) {
      const repair = repairs.get(f);
      if (repair) f.repair = repair;
    }
    remaining = findProblems(scanList(listDir), { ...opts, now: opts.clock?.() ?? opts.now });
    batch = remaining.filter((f) => !seen.has(key(f)));
    for (const f of batch) seen.add(key(f));
    pushAll(findings, batch);
  }
  report.remaining = remaining;
  return report;
}
