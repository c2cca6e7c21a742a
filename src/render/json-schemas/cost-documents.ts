/**
 * `tasks cost --json` (render/cost-json.ts prints it): what each task cost, and the same
 * sums by owner, list and session, the work done with no task in progress, and the whole.
 */
import { z } from 'zod/v4';
import { Iso, Status } from './shapes.js';

const Count = z.number().int().nonnegative();

const Tokens = z
  .strictObject({
    input: Count,
    output: Count,
    cacheRead: Count.describe('cache_read_input_tokens'),
    cacheCreation: Count.describe('cache_creation_input_tokens: 5-minute and 1-hour cache writes'),
  })
  .describe(
    'tokens by kind, as Claude Code records each message (a message shared by tasks in progress at once is split evenly, in whole tokens)',
  );

const usage = {
  tokens: Tokens,
  activeMs: Count.describe(
    'time in progress: from the result of the call that set it in progress to the result of the call that ended it, summed over sessions',
  ),
  unsureMs: Count.describe(
    'of activeMs, the time in which a session may have had no process: one crashed (no end recorded) and no record says where it ended; counted, never guessed away (0: the time is sure)',
  ),
  messages: Count.describe('model messages counted (a message shared by several tasks counts in each)'),
  models: z.array(z.string()).describe('the models of those messages, most tokens first'),
  costUsd: z
    .number()
    .nonnegative()
    .nullable()
    .describe("estimated at the price table's API prices; null: some model of it has no known price"),
};

const { activeMs: _time, unsureMs: _unsure, ...withoutTime } = usage;

/** What one task cost: `list --cost --json` adds it to each task. */
export const TaskCostField = z.strictObject(usage).describe('with --cost: what the task cost (tasks cost)');

export const CostResult = z
  .strictObject({
    host: z.string().optional().describe('-H: the host it is on, as it was named (the first field)'),
    tasks: z
      .array(
        z.strictObject({
          list: z.string(),
          id: z.string(),
          subject: z.string().nullable().describe('null: a deleted task no record names'),
          owner: z.string().nullable(),
          status: Status.nullable().describe('null: the task is gone (deleted, or its list reset)'),
          deleted: z.boolean().describe('gone from its list: reported because its cost is known'),
          ...usage,
        }),
      )
      .describe('every task on disk, and every task gone whose cost is known; list and id order'),
    owners: z.array(z.strictObject({ owner: z.string().nullable().describe('null: tasks with no owner'), ...usage })),
    lists: z.array(z.strictObject({ list: z.string(), ...usage }).describe("a list's tasks and its sessions' unattributed work")),
    sessions: z.array(
      z.strictObject({
        session: z.string(),
        lists: z.array(z.string()).describe('the lists it worked on here, the one its unattributed work counts in first'),
        ...usage,
        unattributed: z.strictObject(withoutTime).describe('its messages with no task in progress'),
      }),
    ),
    unattributed: z
      .strictObject({ ...withoutTime, sessions: Count.describe('sessions with such messages') })
      .describe('messages with no task in progress'),
    total: z.strictObject(usage).describe('every message once; time a session spent on two tasks at once counts once'),
    since: Iso.nullable(),
    until: Iso.nullable(),
    prices: z.strictObject({
      date: z.string().describe("the price table's date"),
      source: z.string(),
      file: z.string().nullable().describe("the user's price file over the built-in table, if any"),
    }),
    unpricedModels: z
      .array(z.string())
      .describe(
        'models whose use, or part of it (fast mode, prompts over 200,000 tokens, 1-hour cache writes), the price table has no price for',
      ),
  })
  .describe("what each task cost, from its sessions' transcripts and the list's journal");
