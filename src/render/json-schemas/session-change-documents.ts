/**
 * The documents of the commands for when the session changes: `carry --json`
 * (render/carry-report.ts prints it), `restore --json` (render/restore-report.ts) and
 * `doctor --json` (the report of core/doctor). A dry run is the real run's document
 * with `dryRun: true`.
 */
import { z } from 'zod/v4';
import { Status, Task } from './shapes.js';

const Ids = z.array(z.string());
const DryRun = z.literal(true).optional().describe('a dry run: what the real run would print, nothing written');
const IdMap = z.record(z.string(), z.string()).describe('old id -> new id');

export const CarryResult = z.strictObject({
  target: z.string().describe('the list carried into'),
  dryRun: DryRun,
  move: z.boolean().describe('the carried tasks are deleted from their list (else marked carriedTo)'),
  from: z.array(
    z.strictObject({
      list: z.string(),
      why: z.enum(['named', 'cleared', 'ended']).describe('--from; a session /clear replaced; an earlier session of the project'),
      sessionId: z.string().nullable(),
      live: z.string().optional().describe('a dry run only: a live agent works on it, so a real run needs --force'),
      carried: z.array(
        z.strictObject({
          id: z.string(),
          newId: z.string().nullable(),
          subject: z.string(),
          status: Status,
          reason: z.enum(['unfinished', 'named', 'blocker']),
          pulledBy: z.string().optional().describe('a blocker: the carried task that waits for it'),
          ownerCleared: z.string().optional().describe('its owner, cleared: that session is over'),
        }),
      ),
      ids: IdMap,
      dropped: z.array(
        z.strictObject({
          task: z.string(),
          other: z.string(),
          side: z.enum(['blockedBy', 'blocks']),
          why: z.enum(['completed', 'missing', 'carried elsewhere', 'left behind']),
        }),
      ),
      left: z.strictObject({ completed: z.int().nonnegative(), carriedBefore: z.int().nonnegative(), internal: z.int().nonnegative() }),
      changed: z
        .array(
          z.strictObject({
            id: z.string(),
            why: z.string(),
            kept: z
              .strictObject({ copy: z.string(), why: z.string() })
              .optional()
              .describe('its copy stays in the target (an agent there touched it): its id and why'),
          }),
        )
        .describe('not taken after all: changed while carried (their copies taken back, unless kept)'),
      copied: z
        .array(z.strictObject({ id: z.string(), newId: z.string() }))
        .describe('tasks with a copy in the target already (a carry stopped before marking them): marked, not copied again; in ids too'),
    }),
  ),
  created: z.array(Task).describe('the new tasks in the target (a dry run: predicted ids, updatedAt null)'),
  others: z.array(z.strictObject({ list: z.string(), unfinished: z.int().positive() })),
  warnings: z.array(z.string()),
});

export const RestoreResult = z.strictObject({
  host: z.string().optional().describe('-H: the host it is on, as it was named (the first field)'),
  list: z.string(),
  dryRun: DryRun,
  created: z.array(Task).describe('the tasks restored (a dry run: as they would be, updatedAt null)'),
  skipped: z.array(
    z.strictObject({ ref: z.string(), subject: z.string(), existingId: z.string(), status: Status, existingStatus: Status }),
  ),
  updated: z.array(z.strictObject({ id: z.string(), addBlocks: Ids, addBlockedBy: Ids })),
  ids: IdMap,
  sources: z.array(
    z.strictObject({
      sessionId: z.string(),
      transcript: z.string(),
      why: z.enum(['own', 'tasks', 'binding', 'shares', 'named']),
      changes: z.int().nonnegative(),
    }),
  ),
  replay: z.strictObject({
    highestId: z.string().optional(),
    created: z.int().nonnegative(),
    updated: z.int().nonnegative(),
    deleted: z.int().nonnegative(),
    restarts: z.int().nonnegative().describe('how often the ids started again from #1 (the folder made anew)'),
    copied: z
      .int()
      .nonnegative()
      .describe("changes in a fork's copies of its parent's entries: not counted as the fork's (the parent's own transcript holds them)"),
  }),
  mark: z.strictObject({ before: z.string(), after: z.string() }).describe('.highwatermark before and after'),
  warnings: z.array(z.string()),
});

const Fix = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('command'), command: z.string(), note: z.string().optional() }),
  z.strictObject({
    kind: z.literal('settings'),
    file: z.string(),
    snippet: z.record(z.string(), z.unknown()).describe('merge this into the file'),
    note: z.string().optional(),
  }),
  z.strictObject({ kind: z.literal('remove-setting'), file: z.string(), key: z.string(), note: z.string().optional() }),
]);

export const DoctorResult = z.strictObject({
  host: z.string().optional().describe('-H: the host it is on, as it was named (the first field)'),
  scope: z.strictObject({
    kind: z.enum(['project', 'session', 'list']),
    dir: z.string().optional(),
    session: z.string().optional(),
    list: z.string().optional(),
  }),
  sessions: z.array(z.string()).describe('the sessions looked at'),
  lists: z.array(z.string()).describe('the lists looked at'),
  findings: z.array(
    z.strictObject({
      code: z.enum([
        'task_tools_off',
        'task_tools_unavailable',
        'todowrite_mode',
        'list_variable_overridden',
        'list_variable_unknown',
        'list_variable_not_shared',
        'agents_list_not_chosen',
        'binding_shadowed',
        'hooks_untrusted',
        'list_stranded',
        'tasks_missing',
        'tasks_unreadable',
        'lock_problem',
        'ids_past_limit',
        'highwatermark_problem',
      ]),
      message: z.string(),
      session: z.string().optional(),
      list: z.string().optional(),
      file: z.string().optional(),
      fixes: z.array(Fix).describe('the preferred first'),
    }),
  ),
  networkLists: z
    .array(z.strictObject({ list: z.string(), filesystem: z.string().describe('nfs, smb, cifs, 9p, ceph, fuse, ...') }))
    .describe('the lists looked at that are on a network filesystem: shared by machines whose clocks must agree'),
});
