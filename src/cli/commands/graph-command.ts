import { Option, type Command } from 'commander';
import { blockerState, indexTasks } from '../../core/graph/blockers.js';
import { dependencyTree } from '../../core/graph/dependency-tree.js';
import { formatCycle } from '../../core/graph/graph.js';
import { listGraph } from '../../core/graph/list-graph.js';
import { isInternal } from '../../core/store/schema.js';
import { readList } from '../../core/store/list-read.js';
import { renderDot, renderMermaid } from '../../render/graph-diagram.js';
import { renderGraphTree } from '../../render/graph-tree.js';
import { renderJson } from '../../render/json.js';
import { PLAIN } from '../../render/style.js';
import type { App } from '../app.js';

const FORMATS = ['tree', 'mermaid', 'dot'] as const;

interface GraphOptions {
  format?: (typeof FORMATS)[number];
  all?: boolean;
}

export function registerGraph(program: Command, app: App): void {
  program
    .command('graph')
    .description('the dependency graph of a list: a tree with status marks, or Mermaid / DOT text')
    .addOption(new Option('-f, --format <format>', 'tree (default), mermaid (a PR comment, a CI summary) or dot (Graphviz)').choices([...FORMATS]))
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
      const { id: listId, dir } = app.list(false);
      const snapshot = readList(dir);
      for (const p of snapshot.problems) app.warn(`skipped ${p.file}: ${p.reason}`);
      const tasks = opts.all ? snapshot.tasks : snapshot.tasks.filter((t) => !isInternal(t));
      // Blockers are judged against every task, shown or not (as list judges them).
      const index = indexTasks(snapshot.tasks);
      const graph = listGraph(tasks);
      if (app.json) {
        app.out(renderJson(graphJson(listId, graph, index)));
        return;
      }
      for (const cycle of graph.cycles) app.warn(`dependency cycle ${formatCycle(cycle.map((id) => `#${id}`))}: none of these can start`);
      if (opts.format === 'mermaid') app.out(renderMermaid(graph, index));
      else if (opts.format === 'dot') app.out(renderDot(graph, index, listId));
      else if (tasks.length === 0) app.note(`list ${listId} has no tasks`);
      else app.out(renderGraphTree(dependencyTree(graph), index, { style: app.humanLayout ? app.style : PLAIN, maxIndent: app.humanLayout ? Math.max(16, Math.floor(app.columns / 2)) : 60 }));
    });
}

function graphJson(listId: string, graph: ReturnType<typeof listGraph>, index: ReturnType<typeof indexTasks>) {
  return {
    list: listId,
    nodes: graph.layout.nodes.map((n) => {
      const task = index.get(n.id);
      const open = task === undefined || task.status === 'completed' ? [] : blockerState(task, index).open;
      return {
        id: n.id,
        subject: task?.subject ?? null,
        status: task?.status ?? null,
        owner: task?.owner ?? null,
        activeForm: task?.activeForm ?? null,
        blocked: open.length > 0,
        openBlockers: open,
        layer: n.layer,
        order: n.order,
        x: n.x,
        y: n.y,
        width: n.width,
        height: n.height,
      };
    }),
    edges: graph.edges.map((e) => ({ from: e.from, to: e.to, open: e.open, reversed: e.reversed, points: e.points })),
    layers: graph.layout.layers,
    cycles: graph.cycles,
    selfLoops: graph.layout.selfLoops,
  };
}
