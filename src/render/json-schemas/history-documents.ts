/**
 * History's documents (render/history-json.ts prints them): `log --json`, an array of
 * changes; `undo --json` and `redo --json`, one result each. In a change, a missing `old`
 * or `new` is a field absent on that side, as in a task; `oldUnknown` says that no record
 * tells the value before.
 */
import { z } from 'zod/v4';
import { Iso, Task } from './shapes.js';

const Change = z
  .strictObject({
    old: z.unknown().optional().describe('the value before; missing: the field was absent (or, with oldUnknown, not known)'),
    new: z.unknown().optional().describe('the value after; missing: the field is absent after the change'),
    oldUnknown: z.literal(true).optional().describe('no record tells the value before (an agent changed a task it never read)'),
    added: z
      .array(z.string())
      .optional()
      .describe('ids an agent added to blocks / blockedBy whose list before and after no record tells (then neither old nor new)'),
  })
  .describe("a field's change");

const Who = z.strictObject({
  kind: z.enum(['person', 'agent', 'unknown']).describe('unknown: a change no record explains'),
  name: z.string().nullable().describe('null: an agent known by its session only, or nobody known'),
  session: z
    .string()
    .nullable()
    .describe(
      "the agent's Claude Code session; for a change no record explains (unknown), the crashed session that likely made it (cause crashed-agent), else null",
    ),
});

export const LogEvent = z
  .strictObject({
    host: z.string().optional().describe('-H: the host it is on, as it was named (the first field)'),
    at: Iso,
    list: z.string(),
    task: z.string().nullable().describe("null: a change to the list's other files (mark, removed)"),
    op: z.enum(['create', 'update', 'delete', 'aside', 'mark', 'removed', 'unrecorded']),
    who: Who,
    changes: z.record(z.string(), Change),
    source: z.enum(['journal', 'transcript', 'files']).describe('made with tasks; by an agent; seen only in the files (unrecorded)'),
    command: z.string().nullable().describe('the tasks command (journal), else null'),
    txn: z.string().nullable().describe("the tasks command's transaction (journal), what undo --txn takes; else null"),
    cause: z
      .enum(['app-status', 'unknown-agent', 'crashed-agent', 'app-reset', 'hand-edit'])
      .optional()
      .describe('unrecorded only: its likely cause'),
  })
  .describe('one change');

export const LogResult = z.array(LogEvent).describe('every change shown, oldest first; [] when none is recorded');

const Actor = z.strictObject({ kind: z.enum(['person', 'agent']), name: z.string(), session: z.string().optional() });

/** In an undo's `update` step, a missing `old` or `new` is a field the file lacks (before) or will lack (after). */
const FieldStep = z.strictObject({ old: z.unknown().optional(), new: z.unknown().optional() });

const Step = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('update'), id: z.string(), fields: z.record(z.string(), FieldStep) }),
  z.strictObject({
    kind: z.literal('create'),
    id: z.string(),
    task: Task.describe('the task restored (a dry run: updatedAt null, not written)'),
  }),
  z.strictObject({ kind: z.literal('delete'), id: z.string(), task: Task.describe('the task removed again, as it was') }),
  z.strictObject({ kind: z.literal('rename'), id: z.string(), from: z.string(), to: z.string() }),
  z.strictObject({
    kind: z.literal('mark'),
    old: z.string().optional().describe('missing: there was no high-water mark file'),
    new: z.string(),
  }),
]);

export const UndoResult = z
  .strictObject({
    action: z.enum(['undo', 'redo']),
    txn: z.string().nullable().describe("this run's own record (an interrupted one's when finishing it); null for a dry run"),
    finishing: z.boolean().describe('finishing an undo or redo that was stopped half-way'),
    commands: z
      .array(z.strictObject({ txn: z.string(), command: z.string(), actor: Actor, at: Iso }))
      .describe('the commands taken back or applied again, in the order they are applied'),
    steps: z.array(Step),
    kept: z.array(z.string()).describe('what stays as it is, in words'),
    otherLists: z
      .array(z.strictObject({ list: z.string(), finishing: z.boolean(), steps: z.array(Step), kept: z.array(z.string()) }))
      .describe('the same commands in the other lists they changed (a carry: the lists carried from or into), in the order made'),
    dryRun: z.literal(true).optional().describe('a dry run: what the real run would print, nothing written'),
  })
  .describe('what was taken back (undo) or applied again (redo)');
