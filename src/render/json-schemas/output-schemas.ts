/**
 * Every --json output, by name: its schema, and whether it is one document or NDJSON
 * (one schema per line). docs/schemas/<name>.schema.json is generated from this table
 * (npm run schemas); a test fails when the committed files are stale, and the contract
 * tests validate real outputs against them. A new command's output: its schema in
 * documents.ts, one row here, npm run schemas, and a case in test/e2e/json-contract.test.ts.
 */
import { z } from 'zod/v4';
import { CostResult, TaskCostField } from './cost-documents.js';
import {
  BoardResult,
  CheckResult,
  DeleteResult,
  GraphResult,
  ImportResult,
  ListsResult,
  NotifyLine,
  NotifyMessage,
  ReleaseResult,
  RunEvent,
  StalledAcrossLists,
  TaskGone,
  TaskList,
  TaskWaiting,
  TrustResult,
  UpdateResult,
  UseResult,
  WatchEvent,
} from './documents.js';
import { LogResult, UndoResult } from './history-documents.js';
import { CarryResult, DoctorResult, RestoreResult } from './session-change-documents.js';
import { StderrLine, Task } from './shapes.js';

export interface OutputSchema {
  schema: z.ZodType;
  /** document: one JSON document on stdout; ndjson: one object per line, each as the schema says. */
  form: 'document' | 'ndjson';
  title: string;
}

export const OUTPUT_SCHEMAS: Record<string, OutputSchema> = {
  list: {
    schema: z
      .array(Task.extend({ waiting: TaskWaiting.optional(), gone: TaskGone.optional(), cost: TaskCostField.optional() }))
      .describe(TaskList.description ?? ''),
    form: 'document',
    title: 'tasks list --json',
  },
  get: {
    schema: Task.extend({ waiting: TaskWaiting.optional(), gone: TaskGone.optional() }),
    form: 'document',
    title: 'tasks get <id> --json',
  },
  create: { schema: Task, form: 'document', title: 'tasks create --json' },
  update: { schema: UpdateResult, form: 'document', title: 'tasks update <id> --json (start, done: the task too)' },
  claim: { schema: Task, form: 'document', title: 'tasks claim --json: the claimed task' },
  block: { schema: Task, form: 'document', title: 'tasks block / unblock --json: the blocked task' },
  delete: { schema: DeleteResult, form: 'document', title: 'tasks delete --json' },
  release: { schema: ReleaseResult, form: 'document', title: 'tasks release --json' },
  lists: { schema: ListsResult, form: 'document', title: 'tasks lists --json' },
  'lists-stalled': { schema: StalledAcrossLists, form: 'document', title: 'tasks lists --stalled --json: stalled work across lists' },
  watch: { schema: WatchEvent, form: 'ndjson', title: 'tasks watch --json: one event per line' },
  notify: { schema: NotifyLine, form: 'ndjson', title: 'tasks notify --json: a line per notification sent or given up' },
  'notify-message': {
    schema: NotifyMessage,
    form: 'document',
    title: 'tasks notify: the JSON document a webhook:<url> target is sent (POST) and an exec:<command> target reads on stdin',
  },
  run: { schema: RunEvent, form: 'ndjson', title: "tasks run --json: the watch's events, one per line, then the run's verdict" },
  import: { schema: ImportResult, form: 'document', title: 'tasks import --json' },
  export: { schema: TaskList, form: 'document', title: 'tasks export --json (--format jsonl: one task per line, as get)' },
  check: { schema: CheckResult, form: 'document', title: 'tasks check --json (--all: an array)' },
  trust: { schema: TrustResult, form: 'document', title: 'tasks trust --json' },
  use: { schema: UseResult, form: 'document', title: 'tasks use --json' },
  graph: { schema: GraphResult, form: 'document', title: 'tasks graph --json' },
  board: { schema: BoardResult, form: 'document', title: 'tasks board --json: where it listens (then it serves until stopped)' },
  log: { schema: LogResult, form: 'document', title: 'tasks log --json: the changes, oldest first' },
  cost: { schema: CostResult, form: 'document', title: 'tasks cost --json: what each task cost' },
  undo: { schema: UndoResult, form: 'document', title: 'tasks undo --json' },
  redo: { schema: UndoResult, form: 'document', title: 'tasks redo --json' },
  carry: { schema: CarryResult, form: 'document', title: 'tasks carry --json' },
  restore: { schema: RestoreResult, form: 'document', title: 'tasks restore --json' },
  doctor: { schema: DoctorResult, form: 'document', title: 'tasks doctor --json' },
  stderr: { schema: StderrLine, form: 'ndjson', title: 'stderr with --json: an error, a warning or a note per line' },
};
