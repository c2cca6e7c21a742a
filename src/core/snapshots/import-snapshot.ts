/**
 * Snapshots (docs/task-store.md section 9): TodoWrite snapshots and task lists in and
 * out. Every import source (TodoWrite files, transcripts, stream-json, task JSON) is
 * parsed into one snapshot shape (this file), planned against the list as a pure step
 * (import-plan.ts) and applied in locked pieces (import-apply.ts); export writes
 * TodoWrite's format.
 */
import type { Status } from '../store/schema.js';

/**
 * What every import source is read into, before anything looks at the list: the tasks
 * the source ended with, in its own order, with dependencies named by the source's refs.
 */

export const IMPORT_FORMATS = ['auto', 'todowrite', 'transcript', 'stream-json', 'tasks'] as const;
export type ImportFormatChoice = (typeof IMPORT_FORMATS)[number];
export type ImportFormat = Exclude<ImportFormatChoice, 'auto'>;

export interface SnapshotItem {
  /** The item's name in the source: its id (tasks, Task tools) or its position from 1 (todos). */
  ref: string;
  subject: string;
  description: string;
  activeForm?: string;
  status: Status;
  owner?: string;
  metadata?: Record<string, unknown>;
  /** Top-level keys agents do not know, carried over from a task file as they are. */
  extra?: Record<string, unknown>;
  /** Refs of items of this snapshot that block this one (both sides of the source's edges). */
  blockedBy: string[];
}

export interface Snapshot {
  format: ImportFormat;
  /** What was found, for people: "TodoWrite snapshot at line 4 (3 todos)". */
  found: string;
  items: SnapshotItem[];
  /**
   * The items' refs are task ids (exported tasks, the list a Task-tools run left): an
   * import keeps each where it is free in the list, unless asked to renumber.
   */
  refsAreIds?: boolean | undefined;
  /** Things dropped or doubtful in the source; the import goes on. */
  warnings: string[];
}
