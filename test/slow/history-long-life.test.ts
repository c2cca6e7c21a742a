/**
 * A list's long life, through the built binary: past 16 MB its journal is rotated, and
 * log, get and undo read across both generations. Slow by its size (17 MB of history).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJson, run, tempConfig } from '../helpers/cli.js';

const ENV = { USER: 'alice' };
const dirOf = (config: string, list = 'L') => path.join(config, 'tasks', list);
const t = (config: string, ...args: string[]) => run(config, ['-l', 'L', ...args], { env: ENV });
const file = (config: string, id: string, list = 'L') => readJson(path.join(dirOf(config, list), `${id}.json`)) as Record<string, unknown>;
const exists = (config: string, id: string) => fs.existsSync(path.join(dirOf(config), `${id}.json`));
/** `log --json`: one document, an array of changes. */
const logOf = (text: string) => JSON.parse(text) as Array<Record<string, unknown>>;

describe('a long life', () => {
  it('past 16 MB the journal is rotated; log and undo read both generations; get reads only their ends', () => {
    const config = tempConfig();
    t(config, 'create', 'Old');
    t(config, 'update', '1', '--subject', 'Old, renamed');
    // An old history of 17 MB, as a busy list's journal grows (other tasks' changes).
    const journal = path.join(dirOf(config), '.tasks-journal.jsonl');
    // #1 was made and renamed ten seconds ago (its record and its file say so).
    const journal0 = path.join(dirOf(config), '.tasks-journal.jsonl');
    const tenAgo = new Date(Date.now() - 10_000).toISOString();
    fs.writeFileSync(journal0, fs.readFileSync(journal0, 'utf8').replace(/"at":"[^"]+"/g, `"at":"${tenAgo}"`));
    fs.utimesSync(path.join(dirOf(config), '1.json'), new Date(tenAgo), new Date(tenAgo));
    // Appended in time order, as journals are: after #1's rename, before what comes next.
    const base = Date.now() - 5000;
    const line = (i: number) =>
      `${JSON.stringify({ v: 1, at: new Date(base + Math.floor(i / 1000)).toISOString(), actor: { kind: 'person', name: 'alice' }, command: 'update', txn: `old-${i}`, changes: [{ id: '999', op: 'update', fields: { note: { old: 'a', new: 'b' } } }] })}\n`;
    let text = '';
    for (let i = 0; text.length < 17 * 1024 * 1024; i++) text += line(i);
    fs.appendFileSync(journal, text);
    // The next change is recorded, then the journal rotated.
    expect(t(config, 'create', 'New').code).toBe(0);
    expect(fs.statSync(path.join(dirOf(config), '.tasks-journal.1.jsonl')).size).toBeGreaterThan(16 * 1024 * 1024);
    expect(fs.existsSync(journal)).toBe(false);
    t(config, 'update', '2', '--subject', 'New, renamed');
    expect(fs.readFileSync(journal, 'utf8').trimEnd().split('\n')).toHaveLength(1);
    // log reads both generations (it names the first create, in the generation before).
    const log = t(config, 'log', '1');
    expect(log.stdout).toContain('created Old');
    // get finds #1's last change in the generation before.
    expect(t(config, 'get', '1').stdout).toMatch(/last changed \d+s ago by alice \(person\): subject Old → "?Old, renamed"?\n$/);
    // undo steps back (#2's rename, #2's create), and reaches into the generation before (#1's rename).
    expect(t(config, 'undo').stdout).toMatch(/^Undid update/);
    expect(t(config, 'undo').stdout).toMatch(/^Undid create/);
    expect(exists(config, '2')).toBe(false);
    const rename = logOf(t(config, 'log', '1', '--json').stdout).find((e) => e.op === 'update')?.txn as string;
    expect(t(config, 'undo', '--txn', rename).code).toBe(0);
    expect(file(config, '1').subject).toBe('Old');
  });
});
