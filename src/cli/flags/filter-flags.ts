import type { Command } from 'commander';
import type { TaskFilter } from '../../core/lists/task-filter.js';
import { usage } from '../runtime/context.js';
import { collect, type Me, parseMetaFilter, parseStatusList, requireOwner } from './parse.js';

/**
 * The filter flags, declared once with one help text each, for every command that narrows
 * a list down (`list`, `watch`, `export`); each command takes the ones it has use for.
 */
export interface FilterOptions {
  status?: string[];
  owner?: string;
  unowned?: boolean;
  ready?: boolean;
  blocked?: boolean;
  all?: boolean;
  search?: string;
  meta?: string[];
}

// Made by the command (createOption), not imported from commander: a plain read that never
// builds the program (read-path/) uses filterFrom without loading commander.
const FILTER_OPTIONS = {
  status: (c: Command) =>
    c.createOption('-s, --status <status>', 'only these statuses (repeatable, or comma-separated)').argParser(collect),
  owner: (c: Command) => c.createOption('-o, --owner <name>', "only tasks owned by <name> (an agent, a team member's name, a person)"),
  unowned: (c: Command) => c.createOption('--unowned', 'only tasks nobody owns'),
  ready: (c: Command) => c.createOption('--ready', 'only tasks an agent could claim now: pending, unowned, no open blocker'),
  blocked: (c: Command) => c.createOption('--blocked', 'only unfinished tasks waiting for an open blocker'),
  all: (c: Command) => c.createOption('-a, --all', 'include internal tasks (metadata._internal), hidden from agents too'),
  search: (c: Command) => c.createOption('--search <text>', 'only tasks whose subject or description holds <text> (any case)'),
  meta: (c: Command) =>
    c
      .createOption('--meta <key=value>', 'only tasks with this metadata value; key:=<json> for a JSON value (repeatable)')
      .argParser(collect),
} as const;

export type FilterFlag = keyof typeof FILTER_OPTIONS;

/** Add these filter flags, in this order. */
export function addFilterOptions(command: Command, flags: readonly FilterFlag[]): Command {
  for (const flag of flags) command.addOption(FILTER_OPTIONS[flag](command));
  return command;
}

/** The filter the flags ask for; flags that contradict each other are a usage error. */
export function filterFrom(opts: FilterOptions, me: Me): TaskFilter {
  const filter: TaskFilter = {
    statuses: parseStatusList('--status', opts.status),
    owner: requireOwner('--owner', opts.owner, me),
    unowned: Boolean(opts.unowned),
    includeInternal: Boolean(opts.all),
    ready: Boolean(opts.ready),
    blocked: Boolean(opts.blocked),
    search: opts.search,
    meta: parseMetaFilter(opts.meta),
  };
  if (filter.owner !== undefined && filter.unowned) throw usage('--owner and --unowned cannot be used together');
  if (filter.ready && filter.blocked) throw usage('--ready and --blocked cannot be used together');
  return filter;
}
