/**
 * The JSON contract: zod schemas of what `--json` prints, one per output, generated into
 * docs/schemas/*.schema.json (scripts/build-schemas.mjs) and checked against the real
 * outputs by the tests. The shared pieces are here (a task, counts, the stderr lines);
 * the documents of each command are in documents.ts, and the registry that names them in
 * output-schemas.ts. Zod 4's own generator (zod/v4) writes the JSON Schema; nothing at run time
 * loads these (renderers import their types only).
 *
 * Objects of ours are strict (a key added or renamed is drift the tests catch); a task is
 * loose, as it is printed with every key its file has.
 */
import { z } from 'zod/v4';
import { STATUSES, type Task as StoredTask } from '../../core/store/schema.js';

/** ISO 8601, UTC, as `Date.prototype.toISOString` writes it. */
export const Iso = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/)
  .describe('ISO 8601, UTC');

export const Status = z.enum(STATUSES).describe('as Claude Code writes it');

const Ids = z.array(z.string());

/** A task exactly as its file holds it; the task of every output is this with `updatedAt`. */
export const TaskFile = z
  .looseObject({
    id: z.string(),
    subject: z.string(),
    description: z.string(),
    activeForm: z.string().optional(),
    owner: z.string().optional(),
    status: Status,
    blocks: Ids,
    blockedBy: Ids,
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .describe('a task exactly as its file holds it; unknown keys kept');

/**
 * The contract's task is the store's task (store/task-guard.ts), both ways, as
 * store/schema.ts holds its own zod schema to it: one shape, checked where it is written.
 */
type Holds<T extends true> = T;
type ContractTask = z.infer<typeof TaskFile>;
/**
 * The check itself, for the compiler alone: exported so that it is not unused.
 * @public
 */
export type ContractMatchesTask = Holds<[ContractTask] extends [StoredTask] ? ([StoredTask] extends [ContractTask] ? true : false) : false>;

/** The one task shape of every --json output. */
export const Task = TaskFile.extend({
  updatedAt: Iso.nullable().describe(
    "the file's last change (mtime); a run's stream: when it last changed the task; null: not known (not written)",
  ),
}).describe('a task as its file holds it (unknown keys kept), with its change time');

export const Counts = z
  .strictObject({
    total: z.int().nonnegative(),
    completed: z.int().nonnegative(),
    inProgress: z.int().nonnegative(),
    pending: z.int().nonnegative(),
    blocked: z.int().nonnegative(),
    blockedInProgress: z.int().nonnegative(),
    blockedPending: z.int().nonnegative(),
  })
  .describe('task counts by status, and how many of each are blocked');

export const ErrorCode = z.enum([
  'usage',
  'not_found',
  'conflict',
  'busy',
  'corrupt',
  'io',
  'run_ended',
  'task_deleted',
  'stalled',
  'timeout',
  'interrupted',
  'unreachable',
  'command_not_found',
  'command_not_executable',
  'agent_failed',
  'internal',
]);

/** An error's body: its code, one line, a hint, and its facts beside them. */
export const ErrorBody = z
  .looseObject({ code: ErrorCode, message: z.string(), hint: z.string().optional() })
  .describe('the error: code (one exit status each), message, hint, and the facts of this failure');

const Code = z.string().regex(/^[a-z][a-z0-9_]*$/);
const NoticeBody = z.looseObject({ code: Code, message: z.string() });

/** One line of stderr with --json: an error, a warning or a note. */
export const StderrLine = z.union([
  z.strictObject({ error: ErrorBody }),
  z.strictObject({ warning: NoticeBody.describe('something worth a warning; the command went on') }),
  z.strictObject({ note: NoticeBody.describe('something worth knowing; neither a warning nor an error') }),
]);

/** An item of a batch that failed: its error is here, and stderr has only the summary. */
export const FailedId = z
  .strictObject({ id: z.string(), ok: z.literal(false), error: ErrorBody })
  .describe('an id that failed, with its error');
export const FailedList = z
  .strictObject({ list: z.string(), ok: z.literal(false), error: ErrorBody })
  .describe('a list that could not be checked, with its error');
