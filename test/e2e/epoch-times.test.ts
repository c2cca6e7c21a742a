/**
 * A list unpacked from a tar or zip made without times has task files dated 1970-01-01
 * (mtime 0). Their age is the clock's, not the files': the terminal says the date, never
 * "20793 d ago" (nor "0s ago").
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfig, writeTask } from '../helpers/cli.js';
import { runInTmux, tmuxAvailable } from '../helpers/tmux.js';

function epochList(): string {
  const config = tempConfig();
  const dir = path.join(config, 'tasks', 'old');
  for (const id of ['1', '2']) {
    writeTask(dir, { id, subject: `Task ${id}`, description: '', status: 'pending', blocks: [], blockedBy: [] });
    fs.utimesSync(path.join(dir, `${id}.json`), 0, 0);
  }
  fs.utimesSync(dir, 0, 0);
  return config;
}

describe.skipIf(!tmuxAvailable())('task files dated 1970 (no times kept)', () => {
  it('list and lists in a terminal say the date, not an age of 56 years or none', async () => {
    const config = epochList();
    const list = await runInTmux(config, ['-l', 'old', 'list'], { width: 100, height: 10 });
    const row = list.split('\n').find((l) => l.includes('#1')) ?? '';
    expect(row).toMatch(/Task 1\s+1970-01-01\s*$/);
    expect(list).not.toMatch(/ d ago|0s ago/);
    const lists = await runInTmux(config, ['lists'], { width: 100, height: 10 });
    expect(lists.split('\n').find((l) => l.includes('old'))).toMatch(/old\s+0\/2\s+1970-01-01\s*$/);
    expect(lists).not.toMatch(/ d ago|0s ago/);
  });
});
