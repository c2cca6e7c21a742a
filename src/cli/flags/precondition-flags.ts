import type { Command } from 'commander';
import type { Preconditions } from '../../core/writes/preconditions.js';
import { usage } from '../runtime/context.js';
import { collect, type Me, parseStatusList, requireOwner } from './parse.js';

/** `--if-status`, `--if-owner`, `--if-unowned`: defined once, for every mutation that takes them. */
export interface PreconditionOptions {
  ifStatus?: string[];
  ifOwner?: string;
  ifUnowned?: boolean;
}

export function addPreconditionOptions(cmd: Command): Command {
  return cmd
    .option('--if-status <status>', 'only if the task is in this status (comma-separated: any of them)', collect)
    .option('--if-owner <name>', 'only if <name> owns the task')
    .option('--if-unowned', 'only if nobody owns the task');
}

export function preconditionsFrom(opts: PreconditionOptions, me: Me): Preconditions | undefined {
  const pre: Preconditions = {
    status: parseStatusList('--if-status', opts.ifStatus),
    owner: requireOwner('--if-owner', opts.ifOwner, me),
    unowned: Boolean(opts.ifUnowned),
  };
  if (pre.owner !== undefined && pre.unowned) throw usage('--if-owner and --if-unowned cannot be used together');
  return pre.status !== undefined || pre.owner !== undefined || pre.unowned ? pre : undefined;
}

export const PRECONDITION_HELP =
  'Preconditions (--if-*) are checked inside the task lock against the file as it is;\nif one fails, nothing is written and the exit status is 4.';
