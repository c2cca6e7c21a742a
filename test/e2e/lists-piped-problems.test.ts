/**
 * `tasks lists` piped keeps its columns (scripts read them), and a list whose task files
 * cannot be read or are not valid tasks is not hidden behind counts of 0: a warning on
 * stderr names it, with its code, as a terminal's "(2 unreadable)" and --json's
 * "problems" do. A list with none gets no word.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempConfig, writeTask } from '../helpers/cli.js';

describe('lists piped, a list with unreadable task files', () => {
  it('keeps the columns and warns on stderr with a code', () => {
    const config = tempConfig();
    fs.mkdirSync(path.join(config, 'tasks', 'bad'), { recursive: true });
    fs.writeFileSync(path.join(config, 'tasks', 'bad', '1.json'), '{bad');
    fs.writeFileSync(path.join(config, 'tasks', 'bad', '2.json'), 'nope');
    writeTask(path.join(config, 'tasks', 'good'), { id: '1', subject: 'A', description: '', status: 'pending', blocks: [], blockedBy: [] });
    const r = run(config, ['lists']);
    expect(r.code).toBe(0);
    // By name: rows come newest first, and the two lists were written within the same moment.
    const lines = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'))
      .sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? ''));
    expect(lines.map((l) => l.slice(0, 5))).toEqual([
      ['bad', '0', '0', '0', '0'],
      ['good', '1', '0', '0', '1'],
    ]);
    expect(lines.every((l) => l.length === 16)).toBe(true);
    expect(r.stderr).toBe('warning: list bad: 2 unreadable, left out of its counts; tasks -l bad check names them\n');
    // --json says it in its rows, and so stays quiet on stderr.
    const json = run(config, ['lists', '--json']);
    expect(json.stderr).toBe('');
    const rows = (JSON.parse(json.stdout) as Array<{ id: string }>).sort((a, b) => a.id.localeCompare(b.id));
    expect(rows).toMatchObject([
      { id: 'bad', problems: 2 },
      { id: 'good', problems: 0 },
    ]);
  });
});
