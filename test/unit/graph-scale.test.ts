import { describe, expect, it } from 'vitest';
import { blockerAnswers, blockerState, indexTasks } from '../../src/core/graph/blockers.js';
import { dependencyTree } from '../../src/core/graph/dependency-tree.js';
import { listGraph } from '../../src/core/graph/list-graph.js';
import type { Task } from '../../src/core/store/schema.js';
import { renderDot, renderMermaid } from '../../src/render/graph-diagram.js';
import { graphJson } from '../../src/render/graph-json.js';
import { renderGraphTree } from '../../src/render/graph-tree.js';
import { PLAIN } from '../../src/render/style.js';

/** A chain of n tasks, each waiting for the one before; every edge recorded `repeat` times on both sides. */
function chain(n: number, repeat = 1): Task[] {
  return Array.from({ length: n }, (_, k) => {
    const i = k + 1;
    return {
      id: String(i),
      subject: `Step ${i}`,
      description: '',
      status: i <= n / 4 ? 'completed' : 'pending',
      blocks: i < n ? Array<string>(repeat).fill(String(i + 1)) : [],
      blockedBy: i > 1 ? Array<string>(repeat).fill(String(i - 1)) : [],
    } satisfies Task;
  });
}

/** Every format `tasks graph` prints, as it prints them. */
function formats(tasks: Task[]): Record<string, string> {
  const index = indexTasks(tasks);
  const graph = listGraph(tasks);
  const blockers = blockerAnswers(tasks, index);
  return {
    tree: renderGraphTree(dependencyTree(graph), index, blockers, { style: PLAIN, maxIndent: 60 }),
    mermaid: renderMermaid(graph, index, blockers),
    dot: renderDot(graph, index, blockers, 'chain'),
    json: JSON.stringify(graphJson('chain', graph, index, blockers)),
  };
}

describe('graph of a long chain', () => {
  it('keeps the tree linear in size however deep it goes: a row holds its parent, not every level above it', () => {
    const size = (n: number) => JSON.stringify(dependencyTree(listGraph(chain(n)))).length;
    const small = size(1000);
    const large = size(4000);
    // Four times the tasks: about four times the rows' size (a copy of the levels above in each row would be sixteen).
    expect(large / small).toBeGreaterThan(3.5);
    expect(large / small).toBeLessThan(4.5);
  });

  it('prints every format in size linear in the chain', () => {
    const small = formats(chain(1000));
    const large = formats(chain(4000));
    for (const format of Object.keys(small)) {
      const ratio = (large[format] as string).length / (small[format] as string).length;
      expect([format, ratio > 3.5 && ratio < 4.6]).toEqual([format, true]);
    }
  });

  it('draws the deep levels of the tree with their depth as a number, and the shallow ones with guides', () => {
    const lines = (formats(chain(40)).tree as string).split('\n');
    expect(lines[0]).toBe('✔ #1 Step 1');
    expect(lines[2]).toBe('  └─✔ #3 Step 3');
    expect(lines[30]).toBe(`${'  '.repeat(29)}└─○ #31 Step 31  blocked by #30`);
    expect(lines[31]).toBe('…31› ○ #32 Step 32  blocked by #31');
  });

  it('collapses an edge recorded several times (#4, #4, #4): every format as if recorded once', () => {
    const once = formats(chain(60));
    const thrice = formats(chain(60, 3));
    expect(thrice).toEqual(once);
    expect(once.tree).toContain('○ #20 Step 20  blocked by #19\n');
    const task = chain(5, 3)[3] as Task;
    expect(blockerState(task, indexTasks(chain(5, 3))).open).toEqual(['3']);
  });
});
