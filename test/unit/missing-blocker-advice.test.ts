/**
 * A blocker that names no task shows as `#n?` with advice on removing it. Written by hand,
 * it may be no task id at all (`x/../2`): `unblock --by x/../2` refuses such an id, so the
 * advice must be one that works (`check --fix` drops it from the file).
 */
import { describe, expect, it } from 'vitest';
import { PLAIN } from '../../src/render/style.js';
import { renderMissingLegend } from '../../src/render/task-table.js';

describe('the advice under a table with a blocker that names no task', () => {
  it('names unblock --by for a missing task id', () => {
    const legend = renderMissingLegend(PLAIN, [{ id: '1', missing: ['9'] }]);
    expect(legend).toContain('tasks unblock <id> --by n removes it');
  });

  it('never gives unblock --by for an id unblock refuses: says it is no task id, and check --fix removes it', () => {
    const legend = renderMissingLegend(PLAIN, [{ id: '1', missing: ['x/../2'] }]);
    expect(legend).not.toContain('--by');
    expect(legend).toContain('#x/../2? is not a task id');
    expect(legend).toContain('tasks check --fix');
  });
});
