import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { todoItemSchema } from '../../src/core/snapshots/todo-schema.js';
import { FIXTURES, fixtureConfig, readJson, snapshotDir, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';

interface FileTask {
  id: string;
  subject: string;
  blocks: string[];
  blockedBy: string[];
  [key: string]: unknown;
}

describe('export', () => {
  it('todowrite (the default): valid TodoWrite input in id order, activeForm derived when missing', async () => {
    const { config, list } = fixtureConfig();
    const before = snapshotDir(list);
    const r = await runInProcess(config, ['export']);
    expect(r.code).toBe(0);
    // What the format has no place for is said, not dropped without a word.
    expect(r.stderr).toBe(
      'the TodoWrite format holds a subject, a status and an activeForm a task: left out 4 descriptions, 1 owner, 2 blockers and 1 task with metadata (--format json keeps everything)\n',
    );
    expect(JSON.parse(r.stdout)).toEqual({
      todos: [
        { content: 'Analyse code', status: 'completed', activeForm: 'Analysing code' },
        { content: 'Refactor auth', status: 'pending', activeForm: 'Refactoring auth' },
        { content: 'Run tests', status: 'pending', activeForm: 'Running tests' },
        { content: 'Write changelog', status: 'pending', activeForm: 'Writing changelog' },
      ],
    });
    for (const t of JSON.parse(r.stdout).todos) expect(todoItemSchema().strict().safeParse(t).success).toBe(true);
    expect(snapshotDir(list)).toEqual(before);
  });

  it('says so when several tasks are in progress, and keeps their statuses', async () => {
    const { config } = fixtureConfig();
    await runInProcess(config, ['update', '2', '--status', 'in_progress']);
    await runInProcess(config, ['update', '5', '--status', 'in_progress']);
    const r = await runInProcess(config, ['export', '--status', 'in_progress']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).todos.map((t: { status: string }) => t.status)).toEqual(['in_progress', 'in_progress']);
    expect(r.stderr.split('\n')[0]).toBe('warning: 2 tasks are in_progress (#2, #5); TodoWrite expects at most one, exported as they are');
  });

  it('names ten of the tasks in progress and counts the rest', async () => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'busy');
    for (let i = 1; i <= 25; i++)
      writeTask(list, { id: String(i), subject: `T${i}`, description: '', status: 'in_progress', blocks: [], blockedBy: [] });
    const r = await runInProcess(config, ['-l', 'busy', 'export']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      'warning: 25 tasks are in_progress (#1, #2, #3, #4, #5, #6, #7, #8, #9, #10 and 15 more); TodoWrite expects at most one, exported as they are\n',
    );
  });

  it('todowrite of tasks that hold nothing more than it keeps: no note', async () => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'plain');
    writeTask(list, { id: '1', subject: 'One', description: '', status: 'pending', blocks: [], blockedBy: [] });
    const quiet = await runInProcess(config, ['-l', 'plain', 'export']);
    expect([quiet.code, quiet.stderr]).toEqual([0, '']);
  });

  it('json and jsonl: the tasks as stored; --json means json', async () => {
    const { config, list } = fixtureConfig();
    // As stored, with each file's change time.
    const stored = ['1', '2', '4', '5'].map((id) => ({
      ...(readJson(path.join(list, `${id}.json`)) as object),
      updatedAt: expect.any(String),
    }));
    expect(JSON.parse((await runInProcess(config, ['export', '--format', 'json'])).stdout)).toEqual(stored);
    expect(JSON.parse((await runInProcess(config, ['export', '--json'])).stdout)).toEqual(stored);
    const lines = (await runInProcess(config, ['export', '-f', 'jsonl'])).stdout;
    expect(
      lines
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(stored);
    const bad = await runInProcess(config, ['export', '--json', '-f', 'markdown']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stderr).error.message).toBe('--json prints JSON; it cannot be combined with --format markdown');
  });

  it('markdown: a checklist with statuses, owners and dependencies', async () => {
    const { config } = fixtureConfig();
    const r = await runInProcess(config, ['export', '--format', 'markdown']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        '### Tasks: refactor-auth',
        '',
        '**1/4 done** · 0 in progress · 3 pending (1 blocked)',
        '',
        '- [x] `#1` Analyse code — done · owner `researcher`',
        '- [ ] `#2` Refactor auth — pending · depends on `#1` (done)',
        '- [ ] `#4` Run tests — pending · blocked · depends on `#2` (pending)',
        '- [ ] `#5` Write changelog — pending',
        '',
      ].join('\n'),
    );
    expect((await runInProcess(config, ['export', '-f', 'markdown', '--title', 'Agents'])).stdout.split('\n')[0]).toBe('### Agents');
  });

  it('-o writes the file (atomically, with a final newline) and says so on stderr', async () => {
    const { config } = fixtureConfig();
    const out = path.join(config, 'snapshot.json');
    const r = await runInProcess(config, ['export', '--output', out]);
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(r.stderr).toBe(
      `the TodoWrite format holds a subject, a status and an activeForm a task: left out 4 descriptions, 1 owner, 2 blockers and 1 task with metadata (--format json keeps everything)\nwrote 4 tasks (todowrite) to ${out}\n`,
    );
    expect(fs.readFileSync(out, 'utf8')).toBe((await runInProcess(config, ['export'])).stdout);
    expect(fs.readdirSync(config).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('a bad -o path is a bad value: exit 2, one line, nothing read or written', async () => {
    const { config } = fixtureConfig();
    fs.symlinkSync(path.join(config, 'elsewhere.json'), path.join(config, 'link.json'));
    const cases: Array<[string, RegExp]> = [
      [path.join(config, 'no', 'such', 'out.json'), /its folder .* does not exist$/],
      [config, /it is a folder$/],
      [path.join(config, 'link.json'), /it is a symbolic link; give its target instead$/],
    ];
    for (const [out, message] of cases) {
      const r = await runInProcess(config, ['export', '--output', out]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr.trimEnd()).toMatch(message);
    }
    expect(fs.existsSync(path.join(config, 'elsewhere.json'))).toBe(false);
  });

  it('-o never writes inside the task lists: a task file there is left as it was, and no new file appears', async () => {
    const config = tempConfig();
    for (const subject of ['a', 'b']) expect((await runInProcess(config, ['-l', 'L', 'create', subject])).code).toBe(0);
    const list = path.join(config, 'tasks', 'L');
    const before = snapshotDir(list);
    fs.symlinkSync(list, path.join(config, 'via-link'));
    // A list whose folder is a link to elsewhere: its real folder is a list's too.
    const elsewhere = fs.mkdtempSync(path.join(path.dirname(config), 'tasks-elsewhere-'));
    fs.symlinkSync(elsewhere, path.join(config, 'tasks', 'B'));
    const targets = [
      path.join(elsewhere, '1.json'),
      path.join(list, '2.json'),
      path.join(list, '99.json'),
      path.join(config, 'tasks', 'out.json'),
      path.join(config, 'via-link', '2.json'),
      path.join(list, '..', 'L', '3.json'),
    ];
    for (const out of targets) {
      const r = await runInProcess(config, ['-l', 'L', 'export', '--output', out]);
      expect(r.code, out).toBe(2);
      expect(r.stderr.trimEnd()).toMatch(/^error: cannot write .*: it is inside .*tasks, where the agents read every file as a task$/);
    }
    expect(snapshotDir(list)).toEqual(before);
    expect(fs.existsSync(path.join(config, 'tasks', 'out.json'))).toBe(false);
    const empty = await runInProcess(config, ['-l', 'L', 'export', '--output', '']);
    expect([empty.code, empty.stderr.trimEnd()]).toEqual([2, 'error: the output file name is empty']);
  });

  it("hides internal tasks unless -a, as agents' TaskList does", async () => {
    const { config, list } = fixtureConfig();
    writeTask(list, {
      id: '7',
      subject: 'hidden',
      description: '',
      status: 'pending',
      blocks: [],
      blockedBy: [],
      metadata: { _internal: true },
    });
    expect(JSON.parse((await runInProcess(config, ['export', '-f', 'json'])).stdout)).toHaveLength(4);
    expect(JSON.parse((await runInProcess(config, ['export', '-f', 'json', '-a'])).stdout)).toHaveLength(5);
  });

  it('an unknown list is "not found"', async () => {
    const { config } = fixtureConfig();
    const r = await runInProcess(config, ['-l', 'nope', 'export']);
    expect(r.code).toBe(3);
    expect(r.stderr.trim()).toMatch(/^error: list folder .*nope does not exist$/);
  });
});

describe('round trips', () => {
  it('export todowrite -> import into an empty list -> export: the same snapshot', async () => {
    const { config } = fixtureConfig();
    await runInProcess(config, ['update', '2', '--status', 'in_progress']);
    const first = (await runInProcess(config, ['export'])).stdout;
    const imported = await runInProcess(config, ['-l', 'copy', 'import', '-'], { input: first });
    expect(imported.code).toBe(0);
    expect(imported.stderr).toMatch(/^new list "copy"\ndetected todowrite: a TodoWrite input \{"todos": \[\.\.\.\]\} \(4 todos\)\n/);
    const second = (await runInProcess(config, ['-l', 'copy', 'export'])).stdout;
    expect(second).toBe(first);
  });

  it('export json from one list -> import into another: the same ids and every dependency', async () => {
    const { config } = fixtureConfig();
    // A richer graph first: 5 blocks 4 (a later id blocking an earlier one), 1 blocks 5.
    await runInProcess(config, ['update', '5', '--add-blocks', '4', '--add-blocked-by', '1']);
    const exported = (await runInProcess(config, ['export', '--format', 'json'])).stdout;
    const source = JSON.parse(exported) as FileTask[];
    const r = await runInProcess(config, ['-l', 'other', 'import', '-', '--json'], { input: exported });
    expect(r.code).toBe(0);
    expect(
      r.stderr
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).note?.message),
    ).toEqual(['detected tasks: 4 tasks (a JSON array)', 'imported 4 tasks into list "other" (#1-#5), each under its own id']);
    const report = JSON.parse(r.stdout) as { created: FileTask[]; ids: Record<string, string> };
    expect(report.ids).toEqual({ '1': '1', '2': '2', '4': '4', '5': '5' });
    const withoutTimes = (tasks: FileTask[]) => tasks.map(({ updatedAt: _u, ...t }: FileTask & { updatedAt?: unknown }) => t);
    const target = JSON.parse((await runInProcess(config, ['-l', 'other', 'export', '-f', 'json'])).stdout) as FileTask[];
    expect(withoutTimes(target)).toEqual(withoutTimes(source));
    expect(source.flatMap((s) => s.blockedBy)).toHaveLength(4);
  });

  it('export json -> import --renumber: new ids, every dependency rewritten to them', async () => {
    const { config } = fixtureConfig();
    await runInProcess(config, ['update', '5', '--add-blocks', '4', '--add-blocked-by', '1']);
    const exported = (await runInProcess(config, ['export', '--format', 'json'])).stdout;
    const source = JSON.parse(exported) as FileTask[];
    const r = await runInProcess(config, ['-l', 'other', 'import', '-', '--renumber', '--json'], { input: exported });
    expect(r.code).toBe(0);
    const { created, ids } = JSON.parse(r.stdout) as { created: FileTask[]; ids: Record<string, string> };
    expect(created.map((t) => t.id)).toEqual(['1', '2', '3', '4']);
    // Blockers are created first: 5 ("Write changelog") now blocks 4, so it gets the lower new id.
    expect(created.map((t) => t.subject)).toEqual(['Analyse code', 'Refactor auth', 'Write changelog', 'Run tests']);
    expect(ids).toEqual({ '1': '1', '2': '2', '5': '3', '4': '4' });
    const target = JSON.parse((await runInProcess(config, ['-l', 'other', 'export', '-f', 'json'])).stdout) as FileTask[];
    expect(target).toEqual(created);
    for (const s of source) {
      const t = target.find((x) => x.id === ids[s.id])!;
      const { id: _a, blocks: _b, blockedBy: _c, updatedAt: _g, ...sourceRest } = s as FileTask & { updatedAt?: string };
      const { id: _d, blocks: _e, blockedBy: _f, updatedAt: _h, ...targetRest } = t as FileTask & { updatedAt?: string };
      expect(targetRest).toEqual(sourceRest);
      expect([...t.blocks].sort()).toEqual(s.blocks.map((b) => ids[b]).sort());
      expect([...t.blockedBy].sort()).toEqual(s.blockedBy.map((b) => ids[b]).sort());
    }
    for (const t of target) for (const b of t.blocks) expect(target.find((x) => x.id === b)?.blockedBy).toContain(t.id);
  });

  it('jsonl round trip; a partial export drops edges to tasks left out, with a warning', async () => {
    const { config } = fixtureConfig();
    const pending = (await runInProcess(config, ['export', '-f', 'jsonl', '--status', 'pending'])).stdout;
    const r = await runInProcess(config, ['-l', 'part', 'import', '-'], { input: pending });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('detected tasks: 3 tasks (JSON Lines)');
    expect(r.stderr).toContain('warning: #2 names #1 in its blockedBy, which is not in the import: dropped');
    const part = JSON.parse((await runInProcess(config, ['-l', 'part', 'export', '-f', 'json'])).stdout) as FileTask[];
    expect(part.map((t) => [t.id, t.subject, t.blockedBy, t.blocks])).toEqual([
      ['2', 'Refactor auth', [], ['4']],
      ['4', 'Run tests', ['2'], []],
      ['5', 'Write changelog', [], []],
    ]);
  });

  it("the rebuilt Task-tools list exports as the agent's own list does (modulo ids)", async () => {
    const config = tempConfig();
    await runInProcess(config, ['-l', 'rebuilt', 'import', path.join(FIXTURES, 'stream-json-tasks-v2.jsonl')]);
    const agent = fixtureConfig();
    expect((await runInProcess(config, ['-l', 'rebuilt', 'export'])).stdout).toBe((await runInProcess(agent.config, ['export'])).stdout);
  });
});
