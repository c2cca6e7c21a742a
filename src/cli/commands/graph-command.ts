import { type Command, Option } from 'commander';
import { formatCycle } from '../../core/graph/graph.js';
import { graphView } from '../../core/graph/graph-view.js';
import { renderDot, renderMermaid } from '../../render/graph-diagram.js';
import { graphJson } from '../../render/graph-json.js';
import { renderGraphTree } from '../../render/graph-tree.js';
import { renderJson } from '../../render/json.js';
import { renderSkippedFile } from '../../render/list-notes.js';
import { PLAIN } from '../../render/style.js';
import type { Context } from '../runtime/context.js';

const FORMATS = ['tree', 'mermaid', 'dot'] as const;

interface GraphOptions {
  format?: (typeof FORMATS)[number];
  all?: boolean;
}

export function registerGraph(program: Command, ctx: Context): void {
  program
    .command('graph')
    .description('the dependency graph of a list: a tree with status marks, or Mermaid / DOT text')
    .addOption(
      new Option('-f, --format <format>', 'tree (default), mermaid (a PR comment, a CI summary) or dot (Graphviz)').choices([...FORMATS]),
    )
    .option('-a, --all', 'include internal tasks (metadata._internal), hidden from agents too')
    .addHelpText(
      'after',
      `
The tree: each task under the blocker it waits for that comes last, tasks nothing blocks at
the top; a task that waits for several is shown once, and under its other blockers as a
"↑ shown under #n" line. Open blockers are named in red; an edge that closes a cycle is a
"↻ closes a cycle" line. --json: {list, nodes (with layer, order and position in a layered
drawing), edges (open, reversed, points), layers, cycles, selfLoops}.

Examples:
  tasks graph
  tasks graph --format mermaid | sed '1i \`\`\`mermaid' | sed '$a \`\`\`' >> "$GITHUB_STEP_SUMMARY"
  tasks graph --format dot | dot -Tsvg > graph.svg
  tasks graph --json | jq '.edges[] | select(.open)'`,
    )
    .action((opts: GraphOptions) => {
      const { id: listId, dir } = ctx.list(false);
      const view = graphView(dir, { all: Boolean(opts.all) });
      for (const p of view.problems) ctx.io.warn(renderSkippedFile(p), 'file_skipped', { file: p.file, reason: p.reason });
      const { graph, index, blockers } = view;
      if (ctx.io.json) {
        ctx.io.out(renderJson(graphJson(listId, graph, index, blockers)));
        return;
      }
      for (const cycle of graph.cycles)
        ctx.io.warn(`dependency cycle ${formatCycle(cycle.map((id) => `#${id}`))}: none of these can start`, 'cycle', { cycle });
      if (opts.format === 'mermaid') ctx.io.out(renderMermaid(graph, index, blockers));
      else if (opts.format === 'dot') ctx.io.out(renderDot(graph, index, blockers, listId));
      else if (view.tasks.length === 0) ctx.io.note(`list ${listId} has no tasks`, 'no_tasks');
      else
        ctx.io.out(
          renderGraphTree(view.tree(), index, blockers, {
            style: ctx.io.humanLayout ? ctx.io.style : PLAIN,
            maxIndent: ctx.io.humanLayout ? Math.max(16, Math.floor(ctx.io.columns / 2)) : 60,
          }),
        );
    });
}
