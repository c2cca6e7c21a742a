import { describe, expect, it } from 'vitest';
import type { ListOverview } from '../../src/core/lists/list-summary.js';
import type { StalledRow } from '../../src/core/lists/stalled-lists.js';
import type { Task } from '../../src/core/store/schema.js';
import { renderStalledTable } from '../../src/render/stalled-report.js';
import { PLAIN } from '../../src/render/style.js';

function stalledRow(id: string, owner: string): StalledRow {
  const row = {
    id,
    shortId: id,
    dir: `/c/tasks/${id}`,
    counts: { pending: 0, in_progress: 1, completed: 0 },
    total: 1,
    problems: 0,
    changedAt: 0,
    kind: 'tasks',
    sessions: [],
  } as ListOverview;
  const task = {
    id: '1',
    subject: 'Run the integration suite',
    description: '',
    status: 'in_progress',
    owner,
    blocks: [],
    blockedBy: [],
  } as Task;
  return { row, stalled: [{ task, idleMs: 2 * 3_600_000 }], waiting: [], untimed: [] };
}

describe('lists --stalled in a terminal', () => {
  it('a list named at length and a long owner are cut, so that no line runs past the width and UNCHANGED stays', () => {
    const rows = [stalledRow(`build-${'feature-very-long-branch-name-'.repeat(4)}0123abcd`, 'an-owner-with-a-very-long-name-indeed-xyz')];
    const table = renderStalledTable(rows, { style: PLAIN, width: 80 });
    const lines = table.split('\n');
    for (const line of lines) expect([...line].length, table).toBeLessThanOrEqual(80);
    expect(lines[0]).toMatch(/^LIST\s+TASK\s+OWNER\s+UNCHANGED/);
    expect(lines[1]).toMatch(/^build-feature-.*…\s+#1 Run the .*\s+2h 00m$/);
  });
});
