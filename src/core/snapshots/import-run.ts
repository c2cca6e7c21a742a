import fs from 'node:fs';
import path from 'node:path';
import { allocateIds } from '../store/ids.js';
import { fileIds, readHighWaterMark, readList } from '../store/list-read.js';
import type { Task } from '../store/schema.js';
import { applyImport } from './import-apply.js';
import { type ExistingChange, predictImport } from './import-materialize.js';
import { planImport, type SkippedItem } from './import-plan.js';
import type { Snapshot } from './import-snapshot.js';

export interface ImportRunOptions {
  chain?: boolean;
  /** Plan and predict ids; write nothing (not even the list folder). */
  dryRun?: boolean;
  /** A clock in ms, to size the batches by how long a hold of the list lock takes. */
  now?: () => number;
  /** Aborted (Ctrl-C): stop between batches, keeping what is written (import-apply.ts). */
  signal?: AbortSignal | undefined;
}

export interface ImportOutcome {
  /** New tasks as their files stand (with dryRun: as they would be written, predicted ids). */
  created: Task[];
  skipped: SkippedItem[];
  /** Existing tasks that gain an edge to a new one. */
  updated: ExistingChange[];
  /** The snapshot's, the plan's and the write's warnings, in that order. */
  warnings: string[];
}

/**
 * Import a parsed snapshot into a list: read the list (no lock, as agents read), plan
 * (pure), then write in batches under the list lock (import-apply.ts), or, for a dry run,
 * predict the ids the batches would get. Refusals (a cycle) come before any write.
 */
export async function importSnapshot(listDir: string, snapshot: Snapshot, opts: ImportRunOptions = {}): Promise<ImportOutcome> {
  const exists = fs.existsSync(listDir);
  const current = exists ? readList(listDir) : { tasks: [], problems: [] };
  const warnings = [
    ...snapshot.warnings,
    ...current.problems.map((p) => `${p.file} is unreadable (${p.reason}); its subject cannot be matched`),
  ];
  const plan = planImport(current.tasks, snapshot, { chain: Boolean(opts.chain) });
  warnings.push(...plan.warnings);
  if (opts.dryRun) {
    // The ids a real run would get, or its refusal past the limit agents count to.
    const ids = exists ? allocateIds(path.basename(listDir), fileIds(listDir), readHighWaterMark(listDir), plan.create.length) : undefined;
    const { tasks, existing } = predictImport(plan, ids?.[0] ?? '1');
    return { created: tasks, skipped: plan.skip, updated: existing, warnings };
  }
  const result = await applyImport(listDir, plan, { ...(opts.now ? { now: opts.now } : {}), signal: opts.signal });
  return { created: result.created, skipped: plan.skip, updated: result.existing, warnings: [...warnings, ...result.warnings] };
}
