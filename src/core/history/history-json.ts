import { z } from 'zod/v4';
import { STATUSES } from '../store/schema.js';

/**
 * The shapes of history's `--json` output, as zod schemas: `tasks log --json` (one
 * event a line: LogEvent), `tasks undo --json` and `tasks redo --json` (one document:
 * UndoResult). The output contract's rules hold: keys in camelCase, a change is
 * `{old, new}`, a dry run is the real run's shape plus `"dryRun": true`. Objects are
 * strict, so a renamed or added key is drift. Tests validate real outputs against these,
 * and the JSON Schemas of every `--json` output are generated from zod schemas like
 * them (zod/v4, whose generator writes JSON Schema). Nothing at run time imports this.
 */

/** A task as its file holds it (docs/task-store.md section 3): unknown keys kept. */
const Task = z.looseObject({
  id: z.string(),
  subject: z.string(),
  description: z.string(),
  activeForm: z.string().optional(),
  owner: z.string().optional(),
  status: z.enum(STATUSES),
  blocks: z.array(z.string()),
  blockedBy: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/** A field's change; `null` is an absent field; a missing `old` is one no record tells. */
const Change = z.strictObject({
  old: z.unknown().optional(),
  new: z.unknown().optional(),
  /** Ids an agent added to `blocks` / `blockedBy` whose earlier list no record tells. */
  added: z.array(z.string()).optional(),
});

const Who = z.strictObject({
  kind: z.enum(['person', 'agent', 'unknown']),
  name: z.string().nullable(),
  session: z.string().nullable(),
});

export const LogEvent = z.strictObject({
  at: z.iso.datetime(),
  list: z.string(),
  task: z.string().nullable(),
  op: z.enum(['create', 'update', 'delete', 'aside', 'mark', 'removed', 'unrecorded']),
  who: Who,
  changes: z.record(z.string(), Change),
  source: z.enum(['journal', 'transcript', 'files']),
  command: z.string().nullable(),
  txn: z.string().nullable(),
  cause: z.enum(['app-status', 'unknown-agent', 'hand-edit']).optional(),
});

const Actor = z.strictObject({ kind: z.enum(['person', 'agent']), name: z.string(), session: z.string().optional() });

const Step = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('update'),
    id: z.string(),
    fields: z.record(z.string(), z.strictObject({ old: z.unknown(), new: z.unknown() })),
  }),
  z.strictObject({ kind: z.literal('create'), id: z.string(), task: Task }),
  z.strictObject({ kind: z.literal('delete'), id: z.string(), task: Task }),
  z.strictObject({ kind: z.literal('rename'), id: z.string(), from: z.string(), to: z.string() }),
  z.strictObject({ kind: z.literal('mark'), old: z.string().nullable(), new: z.string() }),
]);

export const UndoResult = z.strictObject({
  action: z.enum(['undo', 'redo']),
  /** The txn of this undo's own record (an interrupted one's when finishing it); null for a dry run. */
  txn: z.string().nullable(),
  /** Finishing an undo or redo that was stopped half-way. */
  finishing: z.boolean(),
  /** The commands taken back or applied again, in the order they are applied. */
  commands: z.array(z.strictObject({ txn: z.string(), command: z.string(), actor: Actor, at: z.iso.datetime() })),
  steps: z.array(Step),
  /** What stays as it is, in words. */
  kept: z.array(z.string()),
  dryRun: z.literal(true).optional(),
});
