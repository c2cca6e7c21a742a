import { type Command, Option } from 'commander';
import { costOfLists } from '../../core/cost/cost-report.js';
import { loadPrices, priceFilePath } from '../../core/cost/price-file.js';
import { everyListMovedToo } from '../../core/lists/list-folders.js';
import { costJson } from '../../render/cost-json.js';
import { type CostBy, costRows, renderCostNotes, renderCostTable, renderCostTsv } from '../../render/cost-table.js';
import { renderJson } from '../../render/json.js';
import { parseTimeFlag, TIME_HELP } from '../flags/time-flags.js';
import { type Context, usage } from '../runtime/context.js';

interface CostOptions {
  all?: boolean;
  by: CostBy;
  since?: string;
  until?: string;
}

export function registerCost(program: Command, ctx: Context): void {
  program
    .command('cost')
    .description("what each task cost: its agents' tokens, time in progress and an estimated price, from their sessions' transcripts")
    .option('-a, --all', 'every list under the config folder')
    .addOption(
      new Option('--by <group>', 'one row per task, owner, list or session').choices(['task', 'owner', 'list', 'session']).default('task'),
    )
    .option('--since <time>', `only work since <time>: ${TIME_HELP}`)
    .option('--until <time>', 'only work up to <time> (the same forms)')
    .addHelpText(
      'after',
      `
A model message of a session counts toward every task that session had in progress when
the message began, split evenly among them; a message with none in progress is the
session's unattributed work. A session has a task in progress from the result of the call
that set it in progress (its own TaskUpdate, or tasks --as from that session) to the
result of the call that set another status or deleted it (anyone's, tasks done too), or
the session's end. Subagents count as their session; a forked session's copies of its
parent's entries count once, in the parent. Time is the time in progress, summed over
sessions. Tasks deleted since are reported by id, marked deleted.

Costs are estimates at Anthropic's API prices (a dated table; a model it does not know
costs "?", null in --json). Your own prices: $XDG_CONFIG_HOME/tasks/prices.json (else
~/.config/tasks/prices.json), {"models": {"<model id>": {"input": 3, "output": 15,
"cacheWrite": 3.75, "cacheWrite1h": 6, "cacheRead": 0.3}}} in USD per million tokens.

Piped: one row a line, tab-separated: key, label, active ms, messages, input, output,
cache read, cache write tokens, models, cost in USD (- when unknown).

Examples:
  tasks cost
  tasks cost --by owner --since 7d
  tasks cost --all --by list
  tasks cost --json | jq '.tasks[] | select(.costUsd > 1) | .id'`,
    )
    .action((opts: CostOptions) => {
      const now = ctx.now();
      const since = opts.since === undefined ? undefined : parseTimeFlag('--since', opts.since, now);
      const until = opts.until === undefined ? undefined : parseTimeFlag('--until', opts.until, now);
      if (since !== undefined && until !== undefined && until < since) throw usage('--until is before --since');
      const prices = loadPrices(priceFilePath(ctx.env, ctx.home));
      const targets = opts.all ? everyListMovedToo(ctx.configDir) : [ctx.list(false)];
      if (opts.all && targets.length === 0) ctx.io.note(`no task lists under ${ctx.configDir}`, 'no_lists');
      const report = costOfLists(ctx.sessions, targets, { prices, now, window: { since, until }, all: Boolean(opts.all) });
      if (ctx.io.json) {
        ctx.io.out(renderJson(costJson(report)));
        return;
      }
      const { rows, idle } = costRows(report, opts.by, { lists: Boolean(opts.all) });
      ctx.io.out(ctx.io.humanLayout ? renderCostTable(rows, opts.by, { style: ctx.io.style, width: ctx.io.columns }) : renderCostTsv(rows));
      for (const note of renderCostNotes(report, idle, opts.by)) ctx.io.note(note, 'cost_basis');
    });
}
