import { lazySchemas } from '../base/zod.js';
import { taskSchemas } from '../store/schema.js';

/**
 * The shapes of history's `--json` output, as zod schemas: `tasks log --json` (one
 * event a line), `tasks undo --json` and `tasks redo --json` (one document). The output
 * contract's rules hold: keys in camelCase, a change is `{old, new}`, a dry run is the
 * real run's shape plus `"dryRun": true`. Tests validate real outputs against these, and
 * the JSON Schemas of every `--json` output are generated from them.
 */
export const historySchemas = lazySchemas((z) => {
  const { TaskSchema } = taskSchemas();
  /** A field's change; `null` is an absent field; a missing `old` is one no record tells. */
  const Change = z
    .object({
      old: z.unknown().optional(),
      new: z.unknown().optional(),
      /** Ids an agent added to `blocks` / `blockedBy` whose earlier list no record tells. */
      added: z.array(z.string()).optional(),
    })
    .strict();
  const Who = z
    .object({
      kind: z.enum(['person', 'agent', 'unknown']),
      name: z.string().nullable(),
      session: z.string().nullable(),
    })
    .strict();
  const LogEvent = z
    .object({
      at: z.string().datetime(),
      list: z.string(),
      task: z.string().nullable(),
      op: z.enum(['create', 'update', 'delete', 'aside', 'mark', 'removed', 'unrecorded']),
      who: Who,
      changes: z.record(Change),
      source: z.enum(['journal', 'transcript', 'files']),
      command: z.string().nullable(),
      txn: z.string().nullable(),
      cause: z.enum(['app-status', 'unknown-agent', 'hand-edit']).optional(),
    })
    .strict();
  const Actor = z.object({ kind: z.enum(['person', 'agent']), name: z.string(), session: z.string().optional() }).strict();
  const Step = z.discriminatedUnion('kind', [
    z
      .object({ kind: z.literal('update'), id: z.string(), fields: z.record(z.object({ old: z.unknown(), new: z.unknown() }).strict()) })
      .strict(),
    z.object({ kind: z.literal('create'), id: z.string(), task: TaskSchema }).strict(),
    z.object({ kind: z.literal('delete'), id: z.string(), task: TaskSchema }).strict(),
    z.object({ kind: z.literal('rename'), id: z.string(), from: z.string(), to: z.string() }).strict(),
    z.object({ kind: z.literal('mark'), old: z.string().nullable(), new: z.string() }).strict(),
  ]);
  const UndoResult = z
    .object({
      action: z.enum(['undo', 'redo']),
      /** The txn of this undo's own record (an interrupted one's when finishing it); null for a dry run. */
      txn: z.string().nullable(),
      /** Finishing an undo or redo that was stopped half-way. */
      finishing: z.boolean(),
      /** The commands taken back or applied again, in the order they are applied. */
      commands: z.array(z.object({ txn: z.string(), command: z.string(), actor: Actor, at: z.string().datetime() }).strict()),
      steps: z.array(Step),
      /** What stays as it is, in words. */
      kept: z.array(z.string()),
      dryRun: z.literal(true).optional(),
    })
    .strict();
  return { LogEvent, UndoResult };
});
