import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarizeList } from '../../src/core/lists/list-summary.js';
import { tempConfig, writeTask } from '../helpers/cli.js';

describe('summarizeList', () => {
  it('counts a list by status', () => {
    const config = tempConfig();
    const dir = path.join(config, 'tasks', 'demo');
    writeTask(dir, { id: '1', subject: 'a', description: '', status: 'completed', blocks: [], blockedBy: [] });
    writeTask(dir, { id: '2', subject: 'b', description: '', status: 'pending', blocks: [], blockedBy: [] });
    expect(summarizeList(config, 'demo')).toMatchObject({ total: 2, problems: 0, counts: { completed: 1, pending: 1, in_progress: 0 } });
  });

  it('a list replaced by a FIFO or a file since it was listed: one problem of its row, not an error (the board reads rows from timers)', () => {
    const config = tempConfig();
    fs.mkdirSync(path.join(config, 'tasks'), { recursive: true });
    spawnSync('mkfifo', [path.join(config, 'tasks', 'fifo')]);
    fs.writeFileSync(path.join(config, 'tasks', 'file'), 'x');
    for (const id of ['fifo', 'file']) expect(summarizeList(config, id)).toMatchObject({ id, total: 0, problems: 1 });
  });
});
