import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJson, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { writeTranscript } from '../helpers/session-files.mjs';
import { writeTaskTranscript } from '../helpers/task-transcript.js';

const ENV = { USER: 'alice' };
const journalOf = (config: string, list: string) => path.join(config, 'tasks', list, '.tasks-journal.jsonl');
type Entry = { actor: { kind: string; name: string }; command: string; txn: string; changes: Array<Record<string, unknown>> };
const lines = (config: string, list = 'h') =>
  fs
    .readFileSync(journalOf(config, list), 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Entry);
/** The journal's lines (one a write) grouped by command, in order. */
const entries = (config: string, list = 'h') => {
  const byTxn = new Map<string, Entry>();
  for (const line of lines(config, list)) {
    const seen = byTxn.get(line.txn);
    if (seen) seen.changes.push(...line.changes);
    else byTxn.set(line.txn, { ...line, changes: [...line.changes] });
  }
  return [...byTxn.values()];
};

/** `log --json`: one document, the changes as an array. */
const jsonOf = (text: string) => JSON.parse(text) as Array<Record<string, unknown>>;

function tasks(config: string, ...args: string[]) {
  return runInProcessSync(config, ['-l', 'h', ...args], { env: ENV });
}

describe("the journal of tasks' own changes", () => {
  it('records each change once: who, which command, every field before and after; reads record nothing', () => {
    const config = tempConfig();
    tasks(config, 'create', 'Build', '-d', 'make it');
    tasks(config, 'create', 'Ship', '--blocked-by', '1');
    tasks(config, 'update', '1', '--status', 'in_progress', '--owner', 'bob', '--meta', 'p=high');
    tasks(config, 'create', 'Free');
    tasks(config, 'claim', '3', '--as', 'worker-1');
    tasks(config, 'list');
    tasks(config, 'get', '1');
    tasks(config, 'delete', '1');
    const log = entries(config);
    expect(log.map((e) => [e.command, e.actor.kind, e.actor.name])).toEqual([
      ['create', 'person', 'alice'],
      ['create', 'person', 'alice'],
      ['update', 'person', 'alice'],
      ['create', 'person', 'alice'],
      ['claim', 'agent', 'worker-1'],
      ['delete', 'person', 'alice'],
    ]);
    expect(log[1]!.changes).toEqual([
      { id: '2', op: 'create', task: { id: '2', subject: 'Ship', description: '', status: 'pending', blocks: [], blockedBy: ['1'] } },
      { id: '1', op: 'update', fields: { blocks: { old: [], new: ['2'] } } },
    ]);
    expect(log[2]!.changes).toEqual([
      {
        id: '1',
        op: 'update',
        fields: { status: { old: 'pending', new: 'in_progress' }, owner: { new: 'bob' }, metadata: { new: { p: 'high' } } },
      },
    ]);
    // A delete: the whole task, and the references it cleaned.
    expect(log[5]!.changes).toEqual([
      {
        id: '1',
        op: 'delete',
        task: {
          id: '1',
          subject: 'Build',
          description: 'make it',
          owner: 'bob',
          status: 'in_progress',
          blocks: ['2'],
          blockedBy: [],
          metadata: { p: 'high' },
        },
      },
      { id: '2', op: 'update', fields: { blockedBy: { old: ['1'], new: [] } } },
    ]);
    // Invisible to agents: not a *.json file; and check finds nothing wrong with it.
    expect(runInProcessSync(config, ['-l', 'h', 'check'])).toMatchObject({ code: 0 });
  });

  it('keeps a 100 KB value cut, with its length and digest; one line per write', () => {
    const config = tempConfig();
    const long = 'x'.repeat(100_000);
    expect(tasks(config, 'create', 'Big', '-d', long).code).toBe(0);
    const text = fs.readFileSync(journalOf(config, 'h'), 'utf8');
    expect(text.split('\n').filter(Boolean)).toHaveLength(1);
    expect(text.length).toBeLessThan(10_000);
    const [entry] = entries(config);
    expect((entry!.changes[0]!.task as { description: unknown }).description).toEqual({
      $cut: { length: 100_000, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), head: 'x'.repeat(200) },
    });
    // The task itself is whole.
    expect(readJson(path.join(config, 'tasks', 'h', '1.json'))).toMatchObject({ description: long });
    // An undo that needs the cut value refuses rather than restore a part.
    tasks(config, 'delete', '1');
    expect(tasks(config, 'undo')).toMatchObject({
      code: 4,
      stderr: 'error: cannot undo delete by alice: the journal keeps only part of a long value of task #1\n',
    });
  });

  it('a journal that cannot be written never blocks the change: a warning, exit 0', () => {
    const config = tempConfig();
    tasks(config, 'create', 'One');
    fs.rmSync(journalOf(config, 'h'));
    fs.mkdirSync(journalOf(config, 'h'));
    const r = tasks(config, 'update', '1', '--status', 'completed');
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^warning: could not record this change in .*\.tasks-journal\.jsonl: .*; the change itself is made\n$/);
    expect(readJson(path.join(config, 'tasks', 'h', '1.json'))).toMatchObject({ status: 'completed' });
  });
});

describe('tasks log', () => {
  it('one timeline from the journal and the session transcript, oldest first, with who and what', () => {
    const config = tempConfig();
    const home = path.join(config, 'home');
    const proj = path.join(home, 'proj');
    fs.mkdirSync(proj, { recursive: true });
    const session = '2d483082-5eaa-461a-bfdf-3e104fbfeff7';
    const list = path.join(config, 'tasks', session);
    // The agent's changes, as its transcript records them (TaskCreate #1, then TaskUpdate #1).
    const start = Date.now() - 10 * 60_000;
    const file = writeTranscript(config, { sessionId: session, cwd: proj, prompt: 'plan', start, end: start + 1000 });
    const at = (ms: number) => new Date(start + ms).toISOString();
    const lines = [
      {
        type: 'assistant',
        timestamp: at(100),
        sessionId: session,
        message: {
          content: [{ type: 'tool_use', id: 'toolu_a', name: 'TaskCreate', input: { subject: 'Run tests', description: 'npm test' } }],
        },
      },
      {
        type: 'user',
        timestamp: at(200),
        sessionId: session,
        toolUseResult: { task: { id: '1', subject: 'Run tests' } },
        message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_a', content: 'Task #1 created successfully: Run tests' }] },
      },
      {
        type: 'assistant',
        timestamp: at(300),
        sessionId: session,
        message: {
          content: [
            { type: 'tool_use', id: 'toolu_b', name: 'TaskUpdate', input: { taskId: '1', status: 'in_progress', owner: 'tester' } },
          ],
        },
      },
      {
        type: 'user',
        timestamp: at(400),
        sessionId: session,
        toolUseResult: {
          success: true,
          taskId: '1',
          updatedFields: ['owner', 'status'],
          statusChange: { from: 'pending', to: 'in_progress' },
        },
        message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_b', content: 'Updated task #1 owner, status' }] },
      },
    ];
    fs.appendFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    fs.mkdirSync(list, { recursive: true });
    writeTask(list, {
      id: '1',
      subject: 'Run tests',
      description: 'npm test',
      owner: 'tester',
      status: 'in_progress',
      blocks: [],
      blockedBy: [],
    });
    writeTask(list, { id: '2', subject: 'Older', description: '', status: 'pending', blocks: [], blockedBy: [] });
    const t = (...args: string[]) => runInProcessSync(config, ['-l', session, ...args], { env: ENV });
    expect(t('update', '1', '--owner', 'bob').code).toBe(0);
    const text = t('log');
    expect(text.code).toBe(0);
    // Piped: tab-separated, one change a line, nothing padded.
    expect(
      text.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t').slice(1)),
    ).toEqual([
      ['#1', 'agent of session 2d483082', 'created Run tests'],
      ['#1', 'agent of session 2d483082', 'status pending → in_progress, owner (none) → tester'],
      ['#1', 'alice (person)', 'owner tester → bob'],
    ]);
    expect(text.stdout.split('\n')[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\t/);
    expect(text.stderr).toMatch(
      /^history from \S+ \S+ \(the journal of tasks' own changes, and 1 transcript of this list's sessions\)\nno record of the creation of #2 \(made before the record starts, or by a session that is not known\)\n$/,
    );
    const json = JSON.parse(t('log', '1', '--json').stdout);
    expect(json).toEqual([
      {
        at: at(200),
        list: session,
        task: '1',
        op: 'create',
        who: { kind: 'agent', name: null, session },
        changes: { subject: { new: 'Run tests' }, description: { new: 'npm test' }, status: { new: 'pending' } },
        source: 'transcript',
        command: null,
        txn: null,
      },
      {
        at: at(400),
        list: session,
        task: '1',
        op: 'update',
        who: { kind: 'agent', name: null, session },
        // The owner was absent before (the agent's create showed no owner): no `old`, as in a task.
        changes: { status: { old: 'pending', new: 'in_progress' }, owner: { new: 'tester' } },
        source: 'transcript',
        command: null,
        txn: null,
      },
      {
        at: expect.any(String),
        list: session,
        task: '1',
        op: 'update',
        who: { kind: 'person', name: 'alice', session: null },
        changes: { owner: { old: 'tester', new: 'bob' } },
        source: 'journal',
        command: 'update',
        txn: expect.stringMatching(/^\S+$/),
      },
    ]);
    expect(jsonOf(t('log', '--limit', '1', '--json').stdout)).toHaveLength(1);
    expect(jsonOf(t('log', '--since', '1m', '--json').stdout)).toHaveLength(1);
    // get ends with the last change.
    expect(t('get', '1').stdout).toMatch(/\nlast changed \d+s ago by alice \(person\): owner tester → bob\n$/);
    // A hand edit: the record no longer explains the file.
    writeTask(list, {
      id: '1',
      subject: 'Run tests',
      description: 'npm test',
      owner: 'carol',
      status: 'in_progress',
      blocks: [],
      blockedBy: [],
    });
    const later = Date.now() / 1000 + 10;
    fs.utimesSync(path.join(list, '1.json'), later, later);
    // An entry of its own, with its likely cause (the session's transcript is known: a hand edit).
    expect(t('log').stdout.trimEnd().split('\n').at(-1)?.split('\t').slice(1)).toEqual([
      '#1',
      '(no record)',
      'changed with no record: owner bob → carol (likely a hand edit)',
    ]);
    expect(jsonOf(t('log', '--json').stdout).at(-1)).toMatchObject({
      task: '1',
      op: 'unrecorded',
      who: { kind: 'unknown', name: null, session: null },
      changes: { owner: { old: 'bob', new: 'carol' } },
      source: 'files',
      cause: 'hand-edit',
    });
    // The file's time is 10 s ahead of the clock (a later edit, made now): said so, never "0s ago".
    expect(t('get', '1').stdout).toMatch(
      /\nchanged since then, at \S+ \S+, \d+s in the future \(ahead of this machine's clock\), by a change no record shows \(likely a hand edit\)\n$/,
    );
    expect(t('log', '99')).toMatchObject({
      code: 3,
      stderr: expect.stringContaining('error: task #99 not found, and no change to it is recorded'),
    });
    expect(t('log', '--limit', '0x2').code).toBe(2);
    expect(t('log', '--limit', '0')).toMatchObject({ code: 2, stderr: 'error: invalid --limit "0": expected a whole number above 0\n' });
  });

  it('a damaged journal line is skipped with a warning, never fatal', () => {
    const config = tempConfig();
    tasks(config, 'create', 'One');
    fs.appendFileSync(journalOf(config, 'h'), '{"v":1,"at":"2026-1\n\u0000\u0001garbage\n{"v":2}\n');
    tasks(config, 'update', '1', '--status', 'completed');
    const r = tasks(config, 'log');
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(r.stderr).toContain('warning: skipped line 2 of .tasks-journal.jsonl: not JSON\n');
    expect(r.stderr).toContain('warning: skipped line 4 of .tasks-journal.jsonl: not a journal entry\n');
    expect(tasks(config, 'undo').code).toBe(0);
  });
});

describe('tasks undo', () => {
  it('after update, claim, block and import; refused when an agent changed the task since; redo applies again', () => {
    const config = tempConfig();
    const dir = path.join(config, 'tasks', 'h');
    const file = (id: string) => readJson(path.join(dir, `${id}.json`)) as Record<string, unknown>;
    tasks(config, 'create', 'A');
    tasks(config, 'create', 'B');
    // update
    tasks(config, 'update', '1', '--owner', 'bob', '--status', 'in_progress');
    const dry = tasks(config, 'undo', '--dry-run');
    expect(dry).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(
        /^Would undo update by alice at \S+ \S+:\n {2}#1 status "?in_progress"? → "?pending"?, owner "?bob"? → \(none\)\n$/,
      ),
    });
    expect(file('1')).toMatchObject({ owner: 'bob' });
    expect(tasks(config, 'undo').code).toBe(0);
    expect(file('1')).not.toHaveProperty('owner');
    expect(file('1')).toMatchObject({ status: 'pending' });
    // redo: the update again.
    expect(tasks(config, 'redo').code).toBe(0);
    expect(file('1')).toMatchObject({ owner: 'bob', status: 'in_progress' });
    // claim
    tasks(config, 'claim', '2', '--as', 'w1');
    const undoClaim = JSON.parse(tasks(config, 'undo', '--json').stdout);
    expect(undoClaim).toMatchObject({
      action: 'undo',
      txn: expect.any(String),
      finishing: false,
      commands: [{ command: 'claim', actor: { kind: 'agent', name: 'w1' } }],
    });
    // The owner goes: absent after, so no `new` (never null), as in a task.
    expect(undoClaim.steps).toEqual([{ kind: 'update', id: '2', fields: { owner: { old: 'w1' } } }]);
    expect(file('2')).not.toHaveProperty('owner');
    // block: both sides go back.
    tasks(config, 'block', '2', '--by', '1');
    expect(tasks(config, 'undo').code).toBe(0);
    expect([file('1').blocks, file('2').blockedBy]).toEqual([[], []]);
    // import: every task it created goes.
    const r = runInProcessSync(config, ['-l', 'h', 'import', '-', '--chain'], {
      env: ENV,
      input: JSON.stringify([
        { content: 'x', status: 'pending', activeForm: 'x' },
        { content: 'y', status: 'pending', activeForm: 'y' },
      ]),
    });
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(dir, '4.json'))).toBe(true);
    expect(tasks(config, 'undo').code).toBe(0);
    expect(['3', '4'].map((id) => fs.existsSync(path.join(dir, `${id}.json`)))).toEqual([false, false]);
    // An agent changed the task since: refused, exit 4, nothing done.
    tasks(config, 'update', '2', '--status', 'in_progress');
    const agentEdit = { ...file('2'), status: 'completed' };
    fs.writeFileSync(path.join(dir, '2.json'), JSON.stringify(agentEdit, null, 2));
    const refused = tasks(config, 'undo');
    expect(refused).toMatchObject({
      code: 4,
      stdout: '',
      stderr: 'error: cannot undo update by alice: #2 status is "completed" now (the change set "in_progress")\n',
    });
    expect(file('2')).toMatchObject({ status: 'completed' });
  });

  it("undo of a change to an agent's owner puts the owner back as the agent's, gone with its session; the undo is the person's", () => {
    const config = tempConfig();
    const session = '0a1b2c3d-1111-4222-8333-944455556666';
    const cwd = path.join(config, 'home', 'proj');
    const start = Date.now() - 7_200_000;
    writeTaskTranscript(config, {
      sessionId: session,
      cwd,
      start,
      calls: [{ create: { id: '1', subject: 'Parse' } }, { update: { taskId: '1', owner: 'worker-a', status: 'in_progress' } }],
    });
    expect(runInProcessSync(config, ['restore', '--session', session]).code).toBe(0);
    const dir = path.join(config, 'tasks', session);
    const t = (...args: string[]) => runInProcessSync(config, ['-l', session, ...args], { env: ENV });
    const owner = () => t('get', '1').stdout.match(/^Owner: +(.*)$/m)?.[1];
    const gone = 'worker-a (gone: session 0a1b2c3d ended)';
    expect(owner()).toBe(gone);
    const before = readJson(path.join(dir, '1.json'));

    // A person's owner, taken back: the agent's again, exactly as it was.
    expect(t('update', '1', '--owner', 'bob').code).toBe(0);
    expect(owner()).toBe('bob');
    const undo = t('undo');
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toMatch(/^Undid update by alice at .*:\n {2}#1 owner "?bob"? → "?worker-a"?\n$/);
    expect(readJson(path.join(dir, '1.json'))).toEqual(before);
    expect(owner()).toBe(gone);
    expect(t('log').stdout).toMatch(/\t#1\talice \(person\)\tundo: owner bob → worker-a\n$/);
    expect(t('release', '--gone', '--dry-run').stdout).toMatch(/^Would release task #1 from worker-a /);
    // Redo gives the person's owner again; a second undo, the agent's.
    expect(t('redo').code).toBe(0);
    expect(owner()).toBe('bob');
    expect(t('undo').code).toBe(0);
    expect(owner()).toBe(gone);

    // An owner an agent gave with tasks (--as), replaced by a person and put back: an agent's still.
    expect(t('update', '1', '--owner', 'worker-b', '--as', 'worker-b').code).toBe(0);
    expect(t('update', '1', '--owner', 'carol').code).toBe(0);
    expect(t('undo').code).toBe(0);
    expect(owner()).toBe('worker-b (gone: session 0a1b2c3d ended)');
    const released = t('release', '--gone');
    expect(released.code, released.stderr).toBe(0);
    expect(readJson(path.join(dir, '1.json'))).not.toHaveProperty('owner');
  });

  it('after delete: the task comes back under its own id with the references the delete removed', () => {
    const config = tempConfig();
    const dir = path.join(config, 'tasks', 'h');
    tasks(config, 'create', 'A');
    tasks(config, 'create', 'B', '--blocked-by', '1');
    tasks(config, 'create', 'C');
    const before = readJson(path.join(dir, '1.json'));
    tasks(config, 'delete', '1');
    expect(fs.existsSync(path.join(dir, '1.json'))).toBe(false);
    const r = tasks(config, 'undo');
    expect(r).toMatchObject({ code: 0, stdout: expect.stringContaining('#1 restored: A') });
    expect(readJson(path.join(dir, '1.json'))).toEqual(before);
    expect(readJson(path.join(dir, '2.json'))).toMatchObject({ blockedBy: ['1'] });
    // Ids are never handed out again: the next create is #4.
    expect(tasks(config, 'create', 'D').stdout).toBe('4\n');
    expect(runInProcessSync(tempConfig(), ['-l', 'h', 'undo'])).toMatchObject({ code: 3 });
  });
});
