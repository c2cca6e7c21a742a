/**
 * tasks carry: the unfinished work of an earlier list into the list in use. New ids from
 * the target, old -> new said; dependencies across carried and left tasks; owners whose
 * session is over cleared; the source marked or emptied; a live source refused.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readJson, snapshotDir, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { writeClearedTranscript, writeLiveSession, writeTranscript } from '../helpers/session-files.mjs';

const A = '2d483082-5eaa-461a-bfdf-3e104fbfeff7';
const B = '7baec0ff-1111-4a4a-8b8b-000000000002';
const C = '9a0b1c2d-3333-4a4a-8b8b-000000000004';
const MIN = 60_000;

/** A task file's fields (a type, not an interface: writeTask takes any record). */
type FileTask = {
  id: string;
  subject: string;
  status: string;
  owner?: string;
  blocks: string[];
  blockedBy: string[];
  metadata?: Record<string, unknown>;
};

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

function liveProcess(): number {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  children.push(child);
  return child.pid as number;
}

const task = (id: string, subject: string, extra: Partial<FileTask> = {}): FileTask =>
  ({
    id,
    subject,
    description: '',
    status: 'pending',
    blocks: [],
    blockedBy: [],
    ...extra,
  }) as FileTask;

function world() {
  const config = tempConfig();
  const proj = path.join(config, 'home', 'work', 'web');
  fs.mkdirSync(proj, { recursive: true });
  const listDir = (id: string) => path.join(config, 'tasks', id);
  const tasks = (id: string) =>
    fs
      .readdirSync(listDir(id))
      .filter((f) => f.endsWith('.json'))
      .map((f) => readJson(path.join(listDir(id), f)) as FileTask)
      .sort((a, b) => Number(a.id) - Number(b.id));
  const tasksCli = (args: string[], cwd = proj) => runInProcessSync(config, args, { cwd });
  return { config, proj, listDir, tasks, tasksCli };
}

/**
 * Session A ran in the project, made its list and was /clear-ed: its process goes on as B
 * (live, no task yet). A's list: #1 done; #2 in progress by worker-1, blocked by #1;
 * #3 waits for #2; #4 waits for #1 only; #5 internal; #6 waits for a missing #9.
 */
function clearedWorld() {
  const w = world();
  const started = Date.now() - 30 * MIN;
  writeTranscript(w.config, {
    sessionId: A,
    cwd: w.proj,
    prompt: 'before the clear',
    start: started + 1000,
    end: started + 10 * MIN,
    todos: false,
  });
  const dir = w.listDir(A);
  writeTask(dir, task('1', 'Plan', { status: 'completed', blocks: ['2', '4'] }));
  writeTask(dir, task('2', 'Build', { status: 'in_progress', owner: 'worker-1', blockedBy: ['1'], blocks: ['3'] }));
  writeTask(dir, task('3', 'Ship', { blockedBy: ['2'] }));
  writeTask(dir, task('4', 'Docs', { blockedBy: ['1'] }));
  writeTask(dir, task('5', 'Keep alive', { metadata: { _internal: true } }));
  writeTask(dir, task('6', 'Orphan', { blockedBy: ['9'] }));
  // B's transcript, as /clear writes it, after its first prompt (whose entries name A: the same process).
  writeClearedTranscript(w.config, { sessionId: B, cwd: w.proj, at: started + 10 * MIN, firstSession: A });
  writeLiveSession(w.config, { pid: liveProcess(), sessionId: B, cwd: w.proj, status: 'idle', start: started });
  return w;
}

describe('tasks carry', () => {
  it("after /clear: the predecessor's unfinished work into the live session's list, before its first task", () => {
    const w = clearedWorld();
    const before = snapshotDir(w.listDir(A));
    const dry = w.tasksCli(['carry', '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(snapshotDir(w.listDir(A))).toEqual(before);
    expect(fs.existsSync(w.listDir(B))).toBe(false);

    const r = w.tasksCli(['carry', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    // The dry run is the real run's document with dryRun, its tasks' times unknown.
    const planned = JSON.parse(dry.stdout);
    expect(planned.dryRun).toBe(true);
    expect(out).not.toHaveProperty('dryRun');
    const { dryRun: _dry, ...plannedRest } = planned;
    expect(plannedRest).toEqual({ ...out, created: out.created.map((t: object) => ({ ...t, updatedAt: null })) });
    expect(out).toMatchObject({
      target: B,
      move: false,
      from: [
        {
          list: A,
          why: 'cleared',
          ids: { '2': '1', '3': '2', '4': '3', '6': '4' },
          left: { completed: 1, carriedBefore: 0, internal: 1 },
          changed: [],
        },
      ],
    });
    expect(out.from[0].carried.find((c: { id: string }) => c.id === '2')).toMatchObject({ ownerCleared: 'worker-1', newId: '1' });
    expect(out.from[0].dropped).toEqual(
      expect.arrayContaining([
        { task: '2', other: '1', side: 'blockedBy', why: 'completed' },
        { task: '4', other: '1', side: 'blockedBy', why: 'completed' },
        { task: '6', other: '9', side: 'blockedBy', why: 'missing' },
      ]),
    );
    // In the new list: the same work, its own ids, the dependency between carried tasks kept.
    expect(w.tasks(B).map((t) => [t.id, t.subject, t.status, t.owner, t.blockedBy, t.blocks, t.metadata])).toEqual([
      ['1', 'Build', 'pending', undefined, [], ['2'], { carriedFrom: { list: A, id: '2' } }],
      ['2', 'Ship', 'pending', undefined, ['1'], [], { carriedFrom: { list: A, id: '3' } }],
      ['3', 'Docs', 'pending', undefined, [], [], { carriedFrom: { list: A, id: '4' } }],
      ['4', 'Orphan', 'pending', undefined, [], [], { carriedFrom: { list: A, id: '6' } }],
    ]);
    // In the old list: each carried task marked, nothing else changed.
    const old = w.tasks(A);
    expect(old.map((t) => [t.id, t.status, t.metadata?.carriedTo])).toEqual([
      ['1', 'completed', undefined],
      ['2', 'in_progress', { list: B, id: '1' }],
      ['3', 'pending', { list: B, id: '2' }],
      ['4', 'pending', { list: B, id: '3' }],
      ['5', 'pending', undefined],
      ['6', 'pending', { list: B, id: '4' }],
    ]);
    const text = w.tasksCli(['carry']);
    expect(text.code).toBe(0);
    expect(text.stderr).toMatch(
      /nothing to carry from the list of session 2d483082 \(cleared -> 7baec0ff\): 1 completed, 4 carried before, 1 internal\n$/,
    );
  });

  it('the text: old -> new per task, owners cleared said, the summary on stderr', () => {
    const w = clearedWorld();
    const r = w.tasksCli(['carry']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        'carried  2d483082 #2 -> #1  pending      Build (owner worker-1 cleared: its session is over)',
        'carried  2d483082 #3 -> #2  pending      Ship (blocked by #1)',
        'carried  2d483082 #4 -> #3  pending      Docs',
        'carried  2d483082 #6 -> #4  pending      Orphan',
        '',
      ].join('\n'),
    );
    expect(r.stderr).toContain('warning: 2d483082: #6 waited for #9, a task no longer there: that edge is not carried\n');
    expect(r.stderr).toMatch(
      /carried 4 tasks from the list of session 2d483082 \(cleared -> 7baec0ff\) into the list of session 7baec0ff \(#1-#4\); marked there as carried \(metadata.carriedTo\); left 1 completed, 1 internal\n$/,
    );
  });

  it("a session's list named from another folder: the earlier lists of that session's project", () => {
    const w = world();
    const started = Date.now() - 60 * MIN;
    writeTranscript(w.config, { sessionId: A, cwd: w.proj, prompt: 'first', start: started, end: started + 10 * MIN, todos: false });
    writeTask(w.listDir(A), task('1', 'Left over'));
    writeTranscript(w.config, {
      sessionId: C,
      cwd: w.proj,
      prompt: 'second',
      start: started + 20 * MIN,
      end: started + 30 * MIN,
      todos: false,
    });
    writeTask(w.listDir(C), task('1', 'Its own', { status: 'completed' }));
    for (const args of [
      ['-l', C],
      ['--session', C.slice(0, 8)],
    ]) {
      const r = w.tasksCli([...args, 'carry', '--dry-run'], w.config);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('carry    2d483082 #1 -> #2  pending      Left over\n');
    }
  });

  it('named tasks bring the unfinished tasks they wait for; a task carried before is followed there', () => {
    const w = world();
    const from = w.listDir('from');
    writeTask(from, task('1', 'Base', { blocks: ['2'] }));
    writeTask(from, task('2', 'Middle', { blockedBy: ['1'], blocks: ['3'] }));
    writeTask(from, task('3', 'Top', { blockedBy: ['2'] }));
    writeTask(from, task('4', 'Other'));
    const first = w.tasksCli(['-l', 'to', 'carry', '--from', 'from', '1', '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).from[0].ids).toEqual({ '1': '1' });
    const second = w.tasksCli(['-l', 'to', 'carry', '--from', 'from', '3', '--json']);
    expect(second.code, second.stderr).toBe(0);
    const out = JSON.parse(second.stdout).from[0];
    expect(out.ids).toEqual({ '2': '2', '3': '3' });
    expect(out.carried.find((c: { id: string }) => c.id === '2')).toMatchObject({ reason: 'blocker', pulledBy: '3' });
    // #2 waited for #1, carried before to "to" #1: the edge follows it there, both sides.
    expect(w.tasks('to').map((t) => [t.id, t.subject, t.blockedBy, t.blocks])).toEqual([
      ['1', 'Base', [], ['2']],
      ['2', 'Middle', ['1'], ['3']],
      ['3', 'Top', ['2'], []],
    ]);
    expect(w.tasksCli(['-l', 'to', 'carry', '--from', 'from', '1'])).toMatchObject({
      code: 4,
      stderr: expect.stringMatching(/^error: task #1 of list "from" was carried already, to to #1\n/),
    });
  });

  it('--move: the carried tasks leave their list (references cleaned, the mark raised)', () => {
    const w = world();
    const from = w.listDir('from');
    writeTask(from, task('1', 'Done', { status: 'completed', blocks: ['2'] }));
    writeTask(from, task('2', 'Open', { blockedBy: ['1'] }));
    const r = w.tasksCli(['-l', 'to', 'carry', '--from', 'from', '--move']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^moved {4}from #2 -> #1 {2}pending/);
    expect(r.stderr).toMatch(/moved 1 task from list "from" into list "to" \(#1\); deleted there; left 1 completed\n$/);
    expect(w.tasks('from').map((t) => [t.id, t.blocks])).toEqual([['1', []]]);
    expect(fs.readFileSync(path.join(from, '.highwatermark'), 'utf8')).toBe('2');
    expect(w.tasks('to').map((t) => [t.id, t.subject, t.blockedBy])).toEqual([['1', 'Open', []]]);
  });

  it('a list a live agent works on is refused without --force (exit 4, nothing written); a dry run says what a real run needs', () => {
    const w = world();
    const started = Date.now() - 5 * MIN;
    writeTranscript(w.config, { sessionId: C, cwd: w.proj, prompt: 'still working', start: started, end: Date.now(), todos: false });
    writeLiveSession(w.config, { pid: liveProcess(), sessionId: C, cwd: w.proj, status: 'busy', start: started });
    writeTask(w.listDir(C), task('1', 'In hand', { status: 'in_progress', owner: 'main' }));
    const before = snapshotDir(w.listDir(C));
    const r = w.tasksCli(['-l', 'elsewhere', 'carry', '--from', C]);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(
      /^error: the list of session 9a0b1c2d is in use by a live agent \(session 9a0b1c2d is live\): carrying would take its work; nothing carried \(--force carries all the same\)$/m,
    );
    expect(snapshotDir(w.listDir(C))).toEqual(before);
    expect(fs.existsSync(w.listDir('elsewhere'))).toBe(false);
    const dry = w.tasksCli(['-l', 'elsewhere', 'carry', '--from', C, '-n']);
    expect(dry.code).toBe(0);
    expect(dry.stderr).toContain(
      'a real run needs --force: the list of session 9a0b1c2d is in use by a live agent (session 9a0b1c2d is live)',
    );
    const forced = w.tasksCli(['-l', 'elsewhere', 'carry', '--from', C, '--force', '--json']);
    expect(forced.code, forced.stderr).toBe(0);
    // Nothing left to carry: the real run is refused all the same, and the dry run says so.
    const refusedAgain = w.tasksCli(['-l', 'other', 'carry', '--from', C]);
    expect(refusedAgain.code).toBe(4);
    const dryAgain = w.tasksCli(['-l', 'other', 'carry', '--from', C, '-n']);
    expect(dryAgain.code).toBe(0);
    expect(dryAgain.stderr).toContain('nothing to carry from the list of session 9a0b1c2d');
    expect(dryAgain.stderr).toContain(
      'a real run needs --force: the list of session 9a0b1c2d is in use by a live agent (session 9a0b1c2d is live)',
    );
    // A live agent's claim is no gone owner's: it keeps it.
    expect(w.tasks('elsewhere').map((t) => [t.status, t.owner])).toEqual([['in_progress', 'main']]);
  });

  it('an exported list imported elsewhere is new work there: the carry marks (carriedTo, carriedFrom) stay behind', () => {
    const w = world();
    writeTask(w.listDir('from'), task('1', 'A'));
    writeTask(w.listDir('from'), task('2', 'B', { metadata: { kept: true } }));
    expect(w.tasksCli(['-l', 'to', 'carry', '--from', 'from']).code).toBe(0);
    for (const list of ['from', 'to']) {
      const exported = w.tasksCli(['-l', list, 'export', '-f', 'json']);
      expect(exported.code, exported.stderr).toBe(0);
      const imported = runInProcessSync(w.config, ['-l', `copy-of-${list}`, 'import', '-'], { input: exported.stdout });
      expect(imported.code, imported.stderr).toBe(0);
      expect(w.tasks(`copy-of-${list}`).map((t) => t.metadata)).toEqual([undefined, { kept: true }]);
    }
    // Not carried: a carry from the imported copy takes both.
    const carried = w.tasksCli(['-l', 'third', 'carry', '--from', 'copy-of-from', '--json']);
    expect(carried.code, carried.stderr).toBe(0);
    expect(Object.keys((JSON.parse(carried.stdout) as { from: Array<{ ids: object }> }).from[0]?.ids ?? {})).toEqual(['1', '2']);
  });

  it('bad input: one line, the right exit code, nothing written', () => {
    const w = world();
    writeTask(w.listDir('from'), task('1', 'A'));
    fs.mkdirSync(w.listDir('to'), { recursive: true });
    const cases: Array<[string[], number, RegExp]> = [
      [['-l', 'to', 'carry', '--from', 'nope'], 3, /^error: --from: no list or session "nope" under /],
      [['-l', 'to', 'carry', '--from', ''], 2, /^error: --from: the list or session is empty/],
      [['-l', 'to', 'carry', '--from', 'to'], 2, /^error: --from: list "to" is the list in use/],
      [['-l', 'to', 'carry', '--from', 'from', '7'], 3, /^error: task #7 not found in list "from"/],
      [['-l', 'to', 'carry', '--from', 'from', 'x'], 2, /^error: invalid task id "x"/],
      [['-l', 'to', 'carry', '--from', 'from', '--from', 'from', '1'], 2, /^error: task ids go with one --from list/],
      [['-l', 'to', 'carry'], 3, /^error: no earlier list of this project to carry work from/],
    ];
    for (const [args, code, message] of cases) {
      const r = w.tasksCli(args, w.config);
      expect({ args, code: r.code }).toEqual({ args, code });
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n {4}at /);
    }
    expect(fs.readdirSync(w.listDir('to'))).toEqual([]);
    expect(w.tasks('from')[0]?.metadata).toBeUndefined();
  });
});
