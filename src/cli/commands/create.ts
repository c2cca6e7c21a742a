import { type Command, Option } from 'commander';
import { createTaskWithLifecycle } from '../../core/lifecycle/task-lifecycle.js';
import { parseStatus } from '../../core/store/status-words.js';
import { renderJson } from '../../render/json.js';
import { oneLine } from '../../render/text.js';
import { AS_HELP } from '../flags/actor-flags.js';
import { addLifecycleOptions, type LifecycleFlags } from '../flags/lifecycle-flags.js';
import { collect, parseIdOption, parseMeta, requireOwner, requireText } from '../flags/parse.js';
import { runLifecycle } from '../lifecycle/run-lifecycle.js';
import type { Context } from '../runtime/context.js';
import { taskDocument } from '../runtime/task-document.js';

interface CreateOptions extends LifecycleFlags {
  description?: string;
  activeForm?: string;
  owner?: string;
  status?: string;
  blockedBy?: string[];
  blocks?: string[];
  meta?: string[];
  newList?: boolean;
}

export function registerCreate(program: Command, ctx: Context): void {
  const command = program
    .command('create')
    .description('create a task (the id is allocated as agents allocate it)')
    .option('--as <agent>', AS_HELP)
    .argument('<subject>', 'imperative title, e.g. "Fix auth bug"')
    .option('-d, --description <text>', 'what needs doing', '')
    .option('--active-form <text>', 'present continuous, shown while in progress ("Fixing auth bug")')
    .option('--owner <name>', 'assign to an agent or person')
    .addOption(new Option('--status <status>', 'initial status').default('pending'))
    .option('--blocked-by <ids>', 'tasks that must be completed first (comma-separated, or repeat)', collect)
    .option('--blocks <ids>', 'tasks that wait for this one (comma-separated, or repeat)', collect)
    .option('--meta <key=value>', 'metadata; key:=<json> for a JSON value (repeatable)', collect)
    .option('--new-list', 'kept for scripts written for earlier versions: a list whose name is new is always made');
  addLifecycleOptions(command)
    .addHelpText(
      'after',
      '\nTaskCreated hooks from Claude Code\'s settings run after the task is written; if one blocks,\nthe task is removed again (its id stays used) and tasks exits 4. In a team\'s list, --owner\nwrites a task_assignment message to that member\'s inbox.\n\nExamples:\n  tasks create "Run tests" -d "npm test" --blocked-by 2\n  id=$(tasks create "Deploy" --meta env=staging)\n  tasks create "Spike" --no-hooks',
    )
    .action(async (subject: string, opts: CreateOptions) => {
      const input = {
        subject: requireText('subject', subject) as string,
        description: opts.description ?? '',
        // "" is none, as `update --active-form ""` removes it: an empty spinner text is no active form.
        activeForm: opts.activeForm === '' ? undefined : opts.activeForm,
        owner: requireOwner('--owner', opts.owner, ctx),
        status: opts.status === undefined ? undefined : parseStatus(opts.status),
        blockedBy: parseIdOption('--blocked-by', opts.blockedBy) ?? [],
        blocks: parseIdOption('--blocks', opts.blocks) ?? [],
        metadata: parseMeta(opts.meta),
      };
      const choice = ctx.list(true, { creates: true });
      const created = await runLifecycle(ctx, choice, opts, (lifecycle, report) => createTaskWithLifecycle(lifecycle, input, report));
      if (created === undefined) return;
      const { task } = created;
      if (ctx.io.json) ctx.io.out(renderJson(taskDocument(choice.dir, task)));
      else if (ctx.io.humanLayout)
        ctx.io.out(`${ctx.io.style.green('✔')} Created #${task.id} in ${oneLine(ctx.shortId(choice.id))}: ${oneLine(task.subject)}`);
      else ctx.io.out(task.id);
    });
}
