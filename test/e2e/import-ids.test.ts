/**
 * Import keeps ids: tasks that come with ids (an export, a Task-tools run) keep each id
 * that is free in the list (no task there has it, and it was not used before: above the
 * high-water mark); the others get new ids above every id still wanted, their edges
 * follow them, and old -> new is reported (stderr, --json "ids").
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJson, runAsync, snapshotDir, stderrText, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';

interface FileTask {
  id: string;
  subject: string;
  status: string;
  blocks: string[];
  blockedBy: string[];
  [key: string]: unknown;
}

const task = (id: string, subject: string, extra: Partial<FileTask> = {}): FileTask => ({
  id,
  subject,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

function exportFile(config: string, tasks: FileTask[]): string {
  const file = path.join(config, `export-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, JSON.stringify(tasks));
  return file;
}

const listFiles = (config: string, list: string) =>
  fs
    .readdirSync(path.join(config, 'tasks', list))
    .filter((f) => f.endsWith('.json'))
    .map((f) => readJson(path.join(config, 'tasks', list, f)) as FileTask)
    .sort((a, b) => Number(a.id) - Number(b.id));

describe('import keeps ids where they are free', () => {
  it('a taken id and one used before get new ids above every id still wanted; edges follow; the dry run says the same', () => {
    const config = tempConfig();
    const dir = path.join(config, 'tasks', 'target');
    // In the target: #2 exists; #3 was deleted (mark 3). Free: 4 and up.
    writeTask(dir, task('2', 'Already here'));
    fs.writeFileSync(path.join(dir, '.highwatermark'), '3');
    const input = exportFile(config, [
      task('1', 'Old one', { blocks: ['2'] }),
      task('2', 'Old two', { blockedBy: ['1'], blocks: ['5'] }),
      task('3', 'Old three'),
      task('5', 'Old five', { blockedBy: ['2'] }),
    ]);
    const before = snapshotDir(dir);
    const dry = runInProcessSync(config, ['-l', 'target', 'import', input, '--dry-run', '--json']);
    expect(dry.code).toBe(0);
    expect(snapshotDir(dir)).toEqual(before);
    const planned = JSON.parse(dry.stdout) as { ids: Record<string, string>; created: FileTask[] };

    const r = runInProcessSync(config, ['-l', 'target', 'import', input, '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { ids: Record<string, string>; created: FileTask[] };
    // #5 is free and kept; #1 (free? no: at or below the mark 3), #2 (taken) and #3 (at the mark) move above 5.
    expect(report.ids).toEqual({ '1': '6', '2': '7', '3': '8', '5': '5' });
    expect(planned.ids).toEqual(report.ids);
    // The dry run predicts the files; only their times (updatedAt: null) are unknown before.
    expect(planned.created).toEqual(report.created.map((t) => ({ ...t, updatedAt: null })));
    expect(stderrText(r.stderr)).toMatch(/imported 4 tasks into list "target" \(#5-#8\); 3 new ids: #1 -> #6, #2 -> #7, #3 -> #8\n$/);
    const files = listFiles(config, 'target');
    expect(files.map((t) => [t.id, t.subject, t.blockedBy, t.blocks])).toEqual([
      ['2', 'Already here', [], []],
      ['5', 'Old five', ['7'], []],
      ['6', 'Old one', [], ['7']],
      ['7', 'Old two', ['6'], ['5']],
      ['8', 'Old three', [], []],
    ]);
    // The list's own next id is above all of them.
    expect(runInProcessSync(config, ['-l', 'target', 'create', 'Next']).stdout.trim()).toBe('9');
  });

  it('--renumber gives every task a new id; todos (no ids) have no map', () => {
    const config = tempConfig();
    const input = exportFile(config, [task('7', 'Seven'), task('9', 'Nine', { blockedBy: ['7'] })]);
    const r = runInProcessSync(config, ['-l', 'fresh', 'import', input, '--renumber', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).ids).toEqual({ '7': '1', '9': '2' });
    expect(listFiles(config, 'fresh').map((t) => [t.id, t.blockedBy])).toEqual([
      ['1', []],
      ['2', ['1']],
    ]);
    const todos = path.join(config, 'todos.json');
    fs.writeFileSync(todos, JSON.stringify([{ content: 'A todo', status: 'pending', activeForm: 'Doing a todo' }]));
    const t = runInProcessSync(config, ['-l', 'fresh', 'import', todos, '--json']);
    expect(t.code).toBe(0);
    expect(JSON.parse(t.stdout)).not.toHaveProperty('ids');
    expect(stderrText(t.stderr)).toMatch(/imported 1 task into list "fresh" \(#3\)\n$/);
  });

  it('an id past what agents count exactly is never kept: it gets a new one', () => {
    const config = tempConfig();
    const input = exportFile(config, [task('9007199254740993', 'Too high'), task('4', 'Fine')]);
    const r = runInProcessSync(config, ['-l', 'big', 'import', input, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).ids).toEqual({ '9007199254740993': '5', '4': '4' });
  });

  it('matched subjects are skipped and map to the task they matched; importing the same export twice writes nothing', () => {
    const config = tempConfig();
    const dir = path.join(config, 'tasks', 'twice');
    writeTask(dir, task('3', 'Shared subject'));
    const input = exportFile(config, [task('1', 'Shared subject'), task('2', 'New one', { blockedBy: ['1'] })]);
    const first = runInProcessSync(config, ['-l', 'twice', 'import', input, '--json']);
    expect(first.code).toBe(0);
    // #2 is below the list's highest id, yet no task ever had it: free.
    expect(JSON.parse(first.stdout).ids).toEqual({ '1': '3', '2': '2' });
    expect(listFiles(config, 'twice').map((t) => [t.id, t.blockedBy, t.blocks])).toEqual([
      ['2', ['3'], []],
      ['3', [], ['2']],
    ]);
    const before = snapshotDir(dir);
    const again = runInProcessSync(config, ['-l', 'twice', 'import', input]);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/nothing to import into list "twice"; 2 already there, skipped\n$/);
    const { '.tasks-journal.jsonl': _journal, ...files } = snapshotDir(dir);
    const { '.tasks-journal.jsonl': _before, ...filesBefore } = before;
    expect(files).toEqual(filesBefore);
  });

  it('bad input is refused with nothing written: a duplicate id, a task that is not a task', () => {
    const config = tempConfig();
    const dup = exportFile(config, [task('1', 'A'), task('1', 'B')]);
    const r = runInProcessSync(config, ['-l', 'bad', 'import', dup]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: .*item 2: task id "1" appears twice \(also item 1\)\n$/);
    const notTask = exportFile(config, [task('1', 'A'), { ...task('2', 'B'), status: 'finished' }]);
    const n = runInProcessSync(config, ['-l', 'bad', 'import', notTask]);
    expect(n.code).toBe(2);
    expect(n.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(fs.existsSync(path.join(config, 'tasks', 'bad'))).toBe(false);
  });

  it('two imports of different exports at once into one list: every id once, no file written over', async () => {
    const config = tempConfig();
    fs.mkdirSync(path.join(config, 'tasks', 'shared'), { recursive: true });
    const a = exportFile(
      config,
      Array.from({ length: 40 }, (_, i) => task(String(i + 1), `A${i + 1}`)),
    );
    const b = exportFile(
      config,
      Array.from({ length: 40 }, (_, i) => task(String(i + 1), `B${i + 1}`)),
    );
    const [ra, rb] = await Promise.all([
      // The binary: two imports at once, in two processes.
      runAsync(config, ['-l', 'shared', 'import', a, '--json']),
      runAsync(config, ['-l', 'shared', 'import', b, '--json']),
    ]);
    expect([ra.code, rb.code]).toEqual([0, 0]);
    const files = listFiles(config, 'shared');
    expect(files).toHaveLength(80);
    expect(new Set(files.map((t) => t.id)).size).toBe(80);
    const idsA = JSON.parse(ra.stdout).ids as Record<string, string>;
    const idsB = JSON.parse(rb.stdout).ids as Record<string, string>;
    // Each report names the files its own tasks ended up in.
    for (const [old, id] of Object.entries(idsA)) expect(files.find((t) => t.id === id)?.subject).toBe(`A${old}`);
    for (const [old, id] of Object.entries(idsB)) expect(files.find((t) => t.id === id)?.subject).toBe(`B${old}`);
  });
});
