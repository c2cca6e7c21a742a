import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, fixtureConfig, readJson, snapshotDir, stderrText, tempConfig } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';

const sample = (name: string) => path.join(FIXTURES, name);
const listDir = (config: string, id: string) => path.join(config, 'tasks', id);
const file = (config: string, list: string, id: string) => fs.readFileSync(path.join(listDir(config, list), `${id}.json`), 'utf8');
const todoTask = (id: string, subject: string, activeForm: string, status: string) =>
  JSON.stringify({ id, subject, description: '', activeForm, status, blocks: [], blockedBy: [] }, null, 2);

describe('import from the real samples', () => {
  it('the TodoWrite stream: its last snapshot, statuses kept, files as agents write them', async () => {
    const config = tempConfig();
    const r = await runInProcess(config, ['-l', 'work', 'import', sample('stream-json-todowrite-v1.jsonl')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      'new list "work"\ndetected stream-json: the last TodoWrite snapshot, line 4 (3 todos; 1 earlier snapshot superseded)\nimported 3 tasks into list "work" (#1-#3)\n',
    );
    expect(r.stdout).toBe(
      ['created  #1  completed    Analyse code', 'created  #2  in_progress  Refactor auth', 'created  #3  pending      Run tests', ''].join(
        '\n',
      ),
    );
    expect(file(config, 'work', '1')).toBe(todoTask('1', 'Analyse code', 'Analysing code', 'completed'));
    expect(file(config, 'work', '2')).toBe(todoTask('2', 'Refactor auth', 'Refactoring auth', 'in_progress'));
    expect(file(config, 'work', '3')).toBe(todoTask('3', 'Run tests', 'Running tests', 'pending'));
    expect(fs.readdirSync(listDir(config, 'work')).sort()).toEqual(['.lock', '.tasks-journal.jsonl', '1.json', '2.json', '3.json']);
  });

  it('the transcript gives the same tasks; importing it after the stream creates nothing', async () => {
    const config = tempConfig();
    const first = await runInProcess(config, ['-l', 'work', 'import', sample('transcript-todowrite-v1.jsonl'), '--json']);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(
      /^\{"note":\{"code":"import_detected","message":"detected transcript: the last TodoWrite snapshot, line 23 \(3 todos/,
    );
    const report = JSON.parse(first.stdout);
    expect(report).toMatchObject({ list: 'work', format: 'transcript', skipped: [], updated: [], warnings: [] });
    expect(report).not.toHaveProperty('dryRun');
    expect(report.created.map((t: { id: string; status: string }) => [t.id, t.status])).toEqual([
      ['1', 'completed'],
      ['2', 'in_progress'],
      ['3', 'pending'],
    ]);
    expect(report.created[0]).toEqual({ ...JSON.parse(file(config, 'work', '1')), updatedAt: expect.any(String) });

    const before = snapshotDir(listDir(config, 'work'));
    const again = await runInProcess(config, ['-l', 'work', 'import', sample('stream-json-todowrite-v1.jsonl')]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(
      [
        'skipped  #1  completed    Analyse code (already in the list)',
        'skipped  #2  in_progress  Refactor auth (already in the list)',
        'skipped  #3  pending      Run tests (already in the list)',
        '',
      ].join('\n'),
    );
    expect(again.stderr).toMatch(/nothing to import into list "work"; 3 already there, skipped\n$/);
    expect(snapshotDir(listDir(config, 'work'))).toEqual(before);
  });

  it('the Task-tools stream rebuilds the list that run left on disk, under its own ids, byte for byte', async () => {
    const config = tempConfig();
    const r = await runInProcess(config, ['-l', 'rebuilt', 'import', sample('stream-json-tasks-v2.jsonl')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      [
        'new list "rebuilt"',
        'detected stream-json: Task tool calls (5 created, 5 updated, 1 deleted); the list they ended with: 4 tasks',
        'imported 4 tasks into list "rebuilt" (#1-#5), each under its own id',
        '',
      ].join('\n'),
    );
    // The agent's list: 1, 2, 4, 5 (3 was deleted): the same ids, the same bytes.
    for (const id of ['1', '2', '4', '5']) {
      expect(file(config, 'rebuilt', id)).toBe(fs.readFileSync(path.join(FIXTURES, 'tasks', 'refactor-auth', `${id}.json`), 'utf8'));
    }
    expect(fs.readdirSync(listDir(config, 'rebuilt')).filter((f) => f.endsWith('.json'))).toHaveLength(4);
    const list = await runInProcess(config, ['-l', 'rebuilt', 'list']);
    expect(list.stdout).toBe(
      [
        '1\tcompleted\tresearcher\t-\tAnalyse code',
        '2\tpending\t-\t-\tRefactor auth',
        '4\tpending\t-\t2\tRun tests',
        '5\tpending\t-\t-\tWrite changelog',
        '',
      ].join('\n'),
    );
  });

  it('--renumber: the same stream, every task under a new id, edges following them', async () => {
    const config = tempConfig();
    const r = await runInProcess(config, ['-l', 'rebuilt', 'import', sample('stream-json-tasks-v2.jsonl'), '--renumber', '--json']);
    expect(r.code).toBe(0);
    expect(stderrText(r.stderr)).toMatch(/imported 4 tasks into list "rebuilt" \(#1-#4\); 2 new ids: #4 -> #3, #5 -> #4\n$/);
    const renumber: Record<string, string> = { '1': '1', '2': '2', '4': '3', '5': '4' };
    expect(JSON.parse(r.stdout).ids).toEqual(renumber);
    for (const [oldId, newId] of Object.entries(renumber)) {
      const agent = readJson(path.join(FIXTURES, 'tasks', 'refactor-auth', `${oldId}.json`)) as Record<string, unknown>;
      const expected = {
        ...agent,
        id: newId,
        blocks: (agent.blocks as string[]).map((b) => renumber[b]),
        blockedBy: (agent.blockedBy as string[]).map((b) => renumber[b]),
      };
      // Byte for byte: same keys, same order, same serialization as the agent's file.
      expect(file(config, 'rebuilt', newId)).toBe(JSON.stringify(expected, null, 2));
    }
  });

  it('a second real Task-tools run (edges both ways, a delete, merges): the same list, the same ids', async () => {
    const config = tempConfig();
    const r = await runInProcess(config, ['-l', 'rebuilt', 'import', sample('import/stream-json-tasks-edges.jsonl')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Task tool calls \(6 created, 8 updated, 1 deleted\); the list they ended with: 5 tasks/);
    for (const id of ['1', '2', '3', '4', '6']) {
      const agent = readJson(path.join(FIXTURES, 'import', 'tasks-edges', `${id}.json`));
      // The agent's files are in update order (keys appended); ours in schema order: compare content.
      expect(JSON.parse(file(config, 'rebuilt', id))).toEqual(agent);
    }
  });

  it('into a list with tasks: ids after the high-water mark, matches skipped and left out of the chain', async () => {
    const { config, list } = fixtureConfig();
    const input = path.join(config, 'todos.json');
    fs.writeFileSync(
      input,
      JSON.stringify({
        todos: [
          { content: 'Refactor auth', status: 'completed', activeForm: 'Refactoring auth' },
          { content: 'Review PR', status: 'pending', activeForm: 'Reviewing PR' },
          { content: 'Run tests', status: 'pending', activeForm: 'Running tests' },
        ],
      }),
    );
    const r = await runInProcess(config, ['import', input, '--chain']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'created  #6  pending      Review PR',
        'skipped  #2  pending      Refactor auth (already in the list; the import says completed)',
        'skipped  #4  pending      Run tests (already in the list)',
        '',
      ].join('\n'),
    );
    expect(readJson(path.join(list, '6.json'))).toMatchObject({ blockedBy: [], blocks: [] });
    expect(readJson(path.join(list, '2.json'))).toMatchObject({ status: 'pending', blocks: ['4'] });
    expect(readJson(path.join(list, '4.json'))).toMatchObject({ blockedBy: ['2'] });
  });
});

describe('--chain, --dry-run, stdin', () => {
  const todos = JSON.stringify([
    { content: 'Plan', status: 'completed', activeForm: 'Planning' },
    { content: 'Build', status: 'in_progress', activeForm: 'Building' },
    { content: 'Ship', status: 'pending', activeForm: 'Shipping' },
  ]);

  it('todos one a line (jq -c ".[]" of a todos array): the same tasks as the array gives', async () => {
    const config = tempConfig();
    const lines = `${(JSON.parse(todos) as unknown[]).map((t) => JSON.stringify(t)).join('\n')}\n`;
    const byLine = await runInProcess(config, ['-l', 'lines', 'import', '-'], { input: lines });
    expect(byLine.code).toBe(0);
    expect(byLine.stderr).toBe(
      'new list "lines"\ndetected todowrite: todos, one a line (3 todos)\nimported 3 tasks into list "lines" (#1-#3)\n',
    );
    const whole = await runInProcess(config, ['-l', 'array', 'import', '-'], { input: todos });
    expect(whole.code).toBe(0);
    for (const id of ['1', '2', '3']) expect(file(config, 'lines', id)).toBe(file(config, 'array', id));
  });

  it('--chain makes each task blocked by the one before, both sides written', async () => {
    const config = tempConfig();
    const r = await runInProcess(config, ['-l', 'c', 'import', '-', '--chain'], { input: todos });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^new list "c"\ndetected todowrite: a todos array \(3 todos\)\n/);
    const t = (id: string) => readJson(path.join(listDir(config, 'c'), `${id}.json`));
    expect([t('1'), t('2'), t('3')].map((x) => [(x as { blockedBy: string[] }).blockedBy, (x as { blocks: string[] }).blocks])).toEqual([
      [[], ['2']],
      [['1'], ['3']],
      [['2'], []],
    ]);
  });

  it('--dry-run prints the plan and writes nothing, not even the list folder; its ids are the ones a run gets', async () => {
    const config = tempConfig();
    const dry = await runInProcess(config, ['-l', 'd', 'import', '-', '--chain', '--dry-run'], { input: todos });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toBe(
      [
        'create  #1  completed    Plan',
        'create  #2  in_progress  Build (blocked by #1)',
        'create  #3  pending      Ship (blocked by #2)',
        '',
      ].join('\n'),
    );
    expect(dry.stderr).toMatch(/dry run: would import 3 tasks into list "d" \(#1-#3\); nothing written\n$/);
    expect(fs.existsSync(path.join(config, 'tasks'))).toBe(false);

    const plan = JSON.parse(
      (await runInProcess(config, ['-l', 'd', 'import', '-', '--chain', '--dry-run', '--json'], { input: todos })).stdout,
    );
    expect(plan.dryRun).toBe(true);
    const real = JSON.parse((await runInProcess(config, ['-l', 'd', 'import', '-', '--chain', '--json'], { input: todos })).stdout);
    // A dry run is flagged; the real run has the same shape without the flag.
    expect(real).not.toHaveProperty('dryRun');
    const written = (ts: Array<Record<string, unknown>>) => ts.map(({ updatedAt: _, ...t }) => t);
    expect(written(real.created)).toEqual(written(plan.created));
    expect(plan.created.every((t: { updatedAt: unknown }) => t.updatedAt === null)).toBe(true);
  });

  it('--dry-run on a list with tasks changes nothing in it', async () => {
    const { config, list } = fixtureConfig();
    const before = snapshotDir(list);
    const r = await runInProcess(config, ['import', sample('stream-json-tasks-v2.jsonl'), '-n', '--chain']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^skip /m);
    expect(snapshotDir(list)).toEqual(before);
  });
});

describe('import: bad input', () => {
  const cut = () => {
    const text = fs.readFileSync(sample('stream-json-tasks-v2.jsonl'), 'utf8');
    return text.slice(0, text.indexOf('\n', 3000) + 200);
  };
  const cases: Array<{ name: string; content?: string; stdin?: string; args?: string[]; message: RegExp }> = [
    { name: 'truncated JSON Lines', content: cut(), message: /in\.jsonl: line \d+: not valid JSON \(.*\); the input looks cut short$/ },
    { name: 'a wrong shape', content: '{"items": [1, 2]}', message: /in\.jsonl: unrecognised input: an object with keys items; expected/ },
    {
      name: 'a todo with a bad status',
      content: '[{"content": "a", "status": "finished"}]',
      message: /in\.jsonl: item 1: status: expected pending, in_progress, completed, got "finished"$/,
    },
    { name: 'an empty file', content: '', message: /in\.jsonl: the input is empty$/ },
    {
      name: 'a file that does not exist',
      args: ['import', '/nonexistent/todos.json'],
      message: /^error: cannot read \/nonexistent\/todos\.json: no such file$/,
    },
    { name: 'a folder', args: ['import', FIXTURES], message: /cannot read .*: it is a folder$/ },
    {
      name: 'bad stdin',
      stdin: '{"todos": [{"content": "x", "status": "pending"}, {"content": ""}]}',
      args: ['import', '-'],
      message: /^error: stdin: todos\[1\]\.content: must not be empty$/,
    },
    { name: 'empty stdin', stdin: '', args: ['import', '-'], message: /^error: stdin: the input is empty$/ },
    { name: 'an unknown --format', content: '[]', args: ['import', 'IN', '--format', 'yaml'], message: /argument 'yaml' is invalid/ },
    {
      name: 'JSON Lines mixing todos and tasks',
      content:
        '{"content":"a","status":"pending","activeForm":"A"}\n{"id":"1","subject":"b","description":"","blocks":[],"blockedBy":[]}\n',
      message: /in\.jsonl: the lines mix todos and tasks \(line 1 is a todo, line 2 a task\): import one kind at a time$/,
    },
    {
      name: 'JSON Lines given as --format todowrite',
      content: '{"type":"a"}\n{"type":"b"}',
      args: ['import', 'IN', '--format', 'todowrite'],
      message: /the input is JSON Lines/,
    },
    {
      name: 'a dependency cycle in exported tasks',
      content: JSON.stringify([
        { id: '1', subject: 'A', description: '', status: 'pending', blocks: [], blockedBy: ['2'] },
        { id: '2', subject: 'B', description: '', status: 'pending', blocks: [], blockedBy: ['1'] },
      ]),
      message: /^error: the import would make a dependency cycle: "A" -> "B" -> "A"$/,
    },
  ];

  for (const c of cases) {
    it(`${c.name}: one line on stderr, nothing written`, async () => {
      const { config, list } = fixtureConfig();
      const input = path.join(config, 'in.jsonl');
      if (c.content !== undefined) fs.writeFileSync(input, c.content);
      const before = snapshotDir(list);
      const args = (c.args ?? ['import', input]).map((a) => (a === 'IN' ? input : a));
      const r = await runInProcess(config, args, c.stdin !== undefined ? { input: c.stdin } : {});
      expect(r.code).toBe(c.name.includes('cycle') ? 4 : 2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr.trimEnd()).toMatch(c.message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(snapshotDir(list)).toEqual(before);
      expect(fs.readdirSync(path.join(config, 'tasks'))).toEqual(['refactor-auth']);
    });
  }

  it('with --json the error is JSON on stderr, stdout empty', async () => {
    const config = tempConfig();
    const r = await runInProcess(config, ['-l', 'x', 'import', '-', '--json'], { input: '{"type":"system"}\n{"type":' });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toEqual({ error: { code: 'usage', message: expect.stringMatching(/^stdin: line 2: not valid JSON/) } });
    expect(fs.existsSync(path.join(config, 'tasks'))).toBe(false);
  });

  it('an empty list folder is not created for a refused import', async () => {
    const config = tempConfig();
    expect((await runInProcess(config, ['-l', 'new', 'import', '-'], { input: '[{"content": 1, "status": "pending"}]' })).code).toBe(2);
    expect(fs.existsSync(path.join(config, 'tasks'))).toBe(false);
  });
});

describe('--chain with a task that already exists', () => {
  it('chains only the tasks this import created; the existing task is left alone', async () => {
    const config = tempConfig();
    await runInProcess(config, ['-l', 'c', 'create', 'Build']);
    const dir = listDir(config, 'c');
    const existing = fs.readFileSync(path.join(dir, '1.json'), 'utf8');
    const todos = JSON.stringify([
      { content: 'Plan', status: 'completed', activeForm: 'Planning' },
      { content: 'Build', status: 'pending', activeForm: 'Building' },
      { content: 'Ship', status: 'pending', activeForm: 'Shipping' },
    ]);
    const r = await runInProcess(config, ['-l', 'c', 'import', '-', '--chain'], { input: todos });
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(dir, '1.json'), 'utf8')).toBe(existing);
    const t = (id: string) => readJson(path.join(dir, `${id}.json`)) as { subject: string; blocks: string[]; blockedBy: string[] };
    expect([t('2'), t('3')].map((x) => [x.subject, x.blockedBy, x.blocks])).toEqual([
      ['Plan', [], ['3']],
      ['Ship', ['2'], []],
    ]);
  });
});
