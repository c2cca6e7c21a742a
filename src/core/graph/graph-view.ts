import type { FileProblem } from '../store/list-read.js';
import { readList } from '../store/list-read.js';
import { isInternal, type Task } from '../store/schema.js';
import { type BlockerAnswers, blockerAnswers, indexTasks, type TaskIndex } from './blockers.js';
import { dependencyTree, type TreeRow } from './dependency-tree.js';
import { type ListGraph, listGraph } from './list-graph.js';

/** A list's graph as `tasks graph` shows it. */
export interface GraphView {
  /** Files skipped as unreadable (agents skip them too). */
  problems: FileProblem[];
  /** The tasks drawn: every one with `all`, else those agents see (not metadata._internal). */
  tasks: Task[];
  graph: ListGraph;
  /** Every task of the list, by id. */
  index: TaskIndex;
  /** The drawn tasks' blockers, judged against every task, shown or not (as list judges them). */
  blockers: BlockerAnswers;
  /** The tree `tasks graph` draws by default: each task under the blocker it waits for that comes last. */
  tree: () => TreeRow[];
}

/** The graph of the list in `dir`, laid out, with each drawn task's blockers. */
export function graphView(dir: string, opts: { all: boolean }): GraphView {
  const snapshot = readList(dir);
  const tasks = opts.all ? snapshot.tasks : snapshot.tasks.filter((t) => !isInternal(t));
  const index = indexTasks(snapshot.tasks);
  const graph = listGraph(tasks);
  return { problems: snapshot.problems, tasks, graph, index, blockers: blockerAnswers(tasks, index), tree: () => dependencyTree(graph) };
}
