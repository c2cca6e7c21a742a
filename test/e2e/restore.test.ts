/**
 * tasks restore: a list Claude Code deleted or reset, rebuilt from its sessions'
 * transcripts. Each task under its own id wherever no file has it; nothing written over;
 * the high-water mark raised to the highest id recorded, never lowered; undone by undo.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, readJson, snapshotDir, stderrText, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { type Call, projectFolder, writeTaskTranscript } from '../helpers/task-transcript.js';

const NAMED = path.join(FIXTURES, 'sessions', 'transcript-tasks-named.jsonl');
const NAMED_SESSION = 'f7f775d4-e1d7-4aa0-a93e-9debb709c646';
const SESSION = '0a1b2c3d-1111-4222-8333-944455556666';

interface FileTask {
  id: string;
  subject: string;
  status: string;
  owner?: string;
  blocks: string[];
  blockedBy: string[];
}

/** The real transcript of a session that made #10 and #11 (and deleted #12), moved to `cwd`. */
function realTranscript(config: string, cwd: string): string {
  const dir = path.join(config, 'projects', projectFolder(cwd));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${NAMED_SESSION}.jsonl`);
  fs.writeFileSync(file, fs.readFileSync(NAMED, 'utf8').replaceAll('"/tmp/exp/p1/sub"', JSON.stringify(cwd)));
  return file;
}

const tasksOf = (config: string, list: string) =>
  fs
    .readdirSync(path.join(config, 'tasks', list))
    .filter((f) => f.endsWith('.json'))
    .map((f) => readJson(path.join(config, 'tasks', list, f)) as FileTask)
    .sort((a, b) => Number(a.id) - Number(b.id));
const mark = (config: string, list: string) => fs.readFileSync(path.join(config, 'tasks', list, '.highwatermark'), 'utf8');

describe('tasks restore', () => {
  it("a session's list whose folder was removed: restore brings it back under its ids, the mark at the highest id used", () => {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'proj');
    fs.mkdirSync(cwd, { recursive: true });
    realTranscript(config, cwd);
    // Its first TaskCreate got #10: it wrote into a list that was there before it (a named one), never its own.
    const gone = runInProcessSync(config, ['lists', '--all', '--json']);
    expect(gone.code).toBe(0);
    expect(JSON.parse(gone.stdout)).toEqual([]);
    expect(stderrText(gone.stderr)).toContain(`tasks -l <name> restore --from ${NAMED_SESSION}`);
    expect(JSON.parse(runInProcessSync(config, ['lists', '--json']).stdout)).toEqual([]);

    const dry = runInProcessSync(config, ['restore', '--session', 'f7f7', '--dry-run', '--json']);
    expect(dry.code).toBe(0);
    expect(fs.existsSync(path.join(config, 'tasks', NAMED_SESSION))).toBe(false);
    const r = runInProcessSync(config, ['restore', '--session', 'f7f7', '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      list: NAMED_SESSION,
      ids: { '10': '10', '11': '11' },
      mark: { before: '0', after: '12' },
      replay: { created: 3, deleted: 1, restarts: 0, highestId: '12' },
      sources: [{ sessionId: NAMED_SESSION, why: 'own', changes: 5 }],
    });
    expect(report).not.toHaveProperty('dryRun');
    const { dryRun, ...planned } = JSON.parse(dry.stdout);
    expect(dryRun).toBe(true);
    expect(planned).toEqual({ ...report, created: report.created.map((t: object) => ({ ...t, updatedAt: null })) });
    expect(stderrText(r.stderr)).toMatch(
      /restored 2 tasks into the list of session f7f775d4 \(#10-#11\) from 1 transcript; high-water mark 0 -> 12\n$/,
    );
    // As the agent left them (fixture sessions/shared-list/), content for content.
    for (const id of ['10', '11']) {
      expect(readJson(path.join(config, 'tasks', NAMED_SESSION, `${id}.json`))).toEqual(
        readJson(path.join(FIXTURES, 'sessions', 'shared-list', `${id}.json`)),
      );
    }
    expect(mark(config, NAMED_SESSION)).toBe('12');
    expect(runInProcessSync(config, ['-l', NAMED_SESSION, 'create', 'Next']).stdout.trim()).toBe('13');
    expect(JSON.parse(runInProcessSync(config, ['lists', '--all', '--json']).stdout)).toMatchObject([
      { id: NAMED_SESSION, kind: 'tasks', counts: { total: 3 } },
    ]);
  });

  it("a gone list named by the short id lists --all shows: its session's own folder, never a new one named by the short id", () => {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'proj');
    fs.mkdirSync(cwd, { recursive: true });
    writeTaskTranscript(config, {
      sessionId: SESSION,
      cwd,
      calls: [
        { create: { id: '1', subject: 'Plan' } },
        { create: { id: '2', subject: 'Build' } },
        { update: { taskId: '1', status: 'completed' } },
      ],
    });
    const short = SESSION.slice(0, 8);
    const all = JSON.parse(runInProcessSync(config, ['lists', '--all', '--json']).stdout) as Array<{
      id: string;
      shortId: string;
      kind: string;
    }>;
    expect(all).toMatchObject([{ id: SESSION, shortId: short, kind: 'gone' }]);
    // A read says the folder is gone, and how to bring it back; nothing is made.
    const read = runInProcessSync(config, ['-l', short, 'list']);
    expect(read.code).toBe(3);
    expect(read.stderr).toContain(path.join(config, 'tasks', SESSION));
    expect(read.stderr).toContain(`tasks -l ${short} restore`);
    expect(fs.existsSync(path.join(config, 'tasks', short))).toBe(false);
    const dry = runInProcessSync(config, ['-l', short, 'restore', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    const r = runInProcessSync(config, ['-l', short, 'restore']);
    expect(r.code, r.stderr).toBe(0);
    expect(fs.existsSync(path.join(config, 'tasks', short))).toBe(false);
    expect(tasksOf(config, SESSION).map((t) => [t.id, t.subject, t.status])).toEqual([
      ['1', 'Plan', 'completed'],
      ['2', 'Build', 'pending'],
    ]);
  });

  it('a gone list stays in lists --all after a later tasks use in its project: under its own id, never the list bound since', () => {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'proj');
    fs.mkdirSync(cwd, { recursive: true });
    writeTaskTranscript(config, {
      sessionId: SESSION,
      cwd,
      calls: [{ create: { id: '1', subject: 'Plan' } }, { create: { id: '2', subject: 'Build' } }],
    });
    const rows = () =>
      (JSON.parse(runInProcessSync(config, ['lists', '--all', '--json']).stdout) as Array<{ id: string; kind: string; unsure?: true }>).map(
        (r) => [r.id, r.kind, r.unsure ?? false],
      );
    expect(rows()).toEqual([[SESSION, 'gone', false]]);
    expect(runInProcessSync(config, ['use', 'other'], { cwd }).code).toBe(0);
    // The binding is newer than the session's writes: it may have come after it (it did), or
    // have been there (then its list was "other", gone too): its own list, marked unsure.
    expect(rows()).toEqual([[SESSION, 'gone', true]]);
    // Nor does a restore of the list bound since take its tasks: nothing records "other"; the session is named for --from.
    const into = runInProcessSync(config, ['restore', '--dry-run'], { cwd });
    expect(into.code).toBe(3);
    expect(into.stderr).toContain(`tasks -l other restore --from ${SESSION}`);
    expect(runInProcessSync(config, ['create', 'Next'], { cwd }).code).toBe(0);
    // "other" holds none of its tasks: its own list, for sure.
    expect(rows()).toEqual([
      ['other', 'tasks', false],
      [SESSION, 'gone', false],
    ]);
    const r = runInProcessSync(config, ['-l', SESSION, 'restore']);
    expect(r.code, r.stderr).toBe(0);
    expect(tasksOf(config, SESSION).map((t) => [t.id, t.subject])).toEqual([
      ['1', 'Plan'],
      ['2', 'Build'],
    ]);
    expect(tasksOf(config, 'other').map((t) => t.subject)).toEqual(['Next']);
  });

  it('a gone list stays in lists --all when a later session made the same tasks in a list still there', () => {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'proj');
    const start = Date.now() - 3_600_000;
    const plan: Call[] = [{ create: { id: '1', subject: 'Plan' } }, { create: { id: '2', subject: 'Build' } }];
    writeTaskTranscript(config, { sessionId: SESSION, cwd, start, calls: plan });
    const later = '0b1b2c3d-1111-4222-8333-944455556666';
    const laterStart = start + 600_000;
    writeTaskTranscript(config, { sessionId: later, cwd, start: laterStart, calls: plan });
    // The later session's list, each file written by its own TaskCreate (at its result's time).
    for (const [id, subject, tick] of [
      ['1', 'Plan', 1.5],
      ['2', 'Build', 3.5],
    ] as const) {
      writeTask(path.join(config, 'tasks', later), { id, subject, description: '', status: 'pending', blocks: [], blockedBy: [] });
      const at = (laterStart + tick * 1000) / 1000;
      fs.utimesSync(path.join(config, 'tasks', later, `${id}.json`), at, at);
    }
    const rows = JSON.parse(runInProcessSync(config, ['lists', '--all', '--json']).stdout) as Array<{ id: string; kind: string }>;
    expect(rows.map((r) => [r.id, r.kind])).toEqual([
      [later, 'tasks'],
      [SESSION, 'gone'],
    ]);
  });

  it("a gone list stays in lists --all, its session not taken for another project's list that has a #1 of another subject, made since", () => {
    const config = tempConfig();
    const start = Date.now() - 3_600_000;
    // Its #1 made and completed, #2 made, an hour ago, in a folder since removed.
    writeTaskTranscript(config, {
      sessionId: SESSION,
      cwd: path.join(config, 'home', 'api'),
      start,
      calls: [
        { create: { id: '1', subject: 'Write the migration' } },
        { create: { id: '2', subject: 'Run it' } },
        { update: { taskId: '1', status: 'completed' } },
      ],
    });
    // Another session's own list, in another project: its #1, made a minute ago.
    const web = '0b1b2c3d-1111-4222-8333-944455556666';
    const webStart = Date.now() - 60_000;
    writeTaskTranscript(config, {
      sessionId: web,
      cwd: path.join(config, 'home', 'web'),
      start: webStart,
      calls: [{ create: { id: '1', subject: 'Tag the release' } }],
    });
    writeTask(path.join(config, 'tasks', web), {
      id: '1',
      subject: 'Tag the release',
      description: '',
      status: 'pending',
      blocks: [],
      blockedBy: [],
    });
    const rows = JSON.parse(runInProcessSync(config, ['lists', '--all', '--json']).stdout) as Array<{
      id: string;
      kind: string;
      sessions: Array<{ sessionId: string }>;
    }>;
    expect(rows.map((r) => [r.id, r.kind, r.sessions.map((s) => s.sessionId)])).toEqual([
      [web, 'tasks', [web]],
      [SESSION, 'gone', [SESSION]],
    ]);
  });

  it('a reset list (every file deleted, the mark raised): ids at or below the mark come back; a higher mark stays as it is', () => {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'proj');
    writeTaskTranscript(config, {
      sessionId: SESSION,
      cwd,
      calls: [
        { create: { id: '1', subject: 'Plan' } },
        { create: { id: '2', subject: 'Build', description: 'the thing' } },
        { update: { taskId: '2', addBlockedBy: ['1'] } },
        { update: { taskId: '1', status: 'completed', owner: 'main', metadata: { note: 'x', gone: 'y' } } },
        { update: { taskId: '1', metadata: { gone: null } } },
        { update: { taskId: '2', status: 'in_progress', activeForm: 'Building' } },
        { update: { taskId: '9', status: 'completed' }, fails: true },
      ],
    });
    const dir = path.join(config, 'tasks', SESSION);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, '.highwatermark'), '20');
    const r = runInProcessSync(config, ['-l', SESSION.slice(0, 8), 'restore']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      ['restored  #1  completed    Plan (owner main)', 'restored  #2  in_progress  Build (blocked by #1)', ''].join('\n'),
    );
    expect(r.stderr).toMatch(/restored 2 tasks into the list of session 0a1b2c3d \(#1-#2\) from 1 transcript\n$/);
    expect(tasksOf(config, SESSION)).toEqual([
      {
        id: '1',
        subject: 'Plan',
        description: '',
        owner: 'main',
        status: 'completed',
        blocks: ['2'],
        blockedBy: [],
        metadata: { note: 'x' },
      },
      { id: '2', subject: 'Build', description: 'the thing', activeForm: 'Building', status: 'in_progress', blocks: [], blockedBy: ['1'] },
    ]);
    expect(mark(config, SESSION)).toBe('20');
    expect(runInProcessSync(config, ['-l', SESSION, 'create', 'Next']).stdout.trim()).toBe('21');
  });

  it('nothing that exists is written over: the same task is left alone; another task holding the id sends it to a new id above the mark', () => {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'proj');
    writeTaskTranscript(config, {
      sessionId: SESSION,
      cwd,
      calls: [
        { create: { id: '1', subject: 'Kept as it is' } },
        { create: { id: '2', subject: 'Collides' } },
        { create: { id: '3', subject: 'Free' } },
        { update: { taskId: '3', addBlockedBy: ['2'] } },
      ],
    });
    const dir = path.join(config, 'tasks', SESSION);
    writeTask(dir, { id: '1', subject: 'Kept as it is', description: 'changed since', status: 'completed', blocks: [], blockedBy: [] });
    writeTask(dir, { id: '2', subject: 'Someone else', description: '', status: 'pending', blocks: [], blockedBy: [] });
    const before = { one: fs.readFileSync(path.join(dir, '1.json'), 'utf8'), two: fs.readFileSync(path.join(dir, '2.json'), 'utf8') };
    const r = runInProcessSync(config, ['-l', SESSION, 'restore', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).ids).toEqual({ '1': '1', '2': '4', '3': '3' });
    expect(stderrText(r.stderr)).toMatch(
      /restored 2 tasks into the list of session 0a1b2c3d \(#3-#4\) from 1 transcript; new ids: #2 -> #4; 1 already there; high-water mark 0 -> 3\n$/,
    );
    expect(fs.readFileSync(path.join(dir, '1.json'), 'utf8')).toBe(before.one);
    expect(fs.readFileSync(path.join(dir, '2.json'), 'utf8')).toBe(before.two);
    expect(tasksOf(config, SESSION).map((t) => [t.id, t.subject, t.blockedBy, t.blocks])).toEqual([
      ['1', 'Kept as it is', [], []],
      ['2', 'Someone else', [], []],
      ['3', 'Free', ['4'], []],
      ['4', 'Collides', [], ['3']],
    ]);
    // Again: everything is there now.
    const again = runInProcessSync(config, ['-l', SESSION, 'restore']);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/nothing to restore into the list of session 0a1b2c3d from 1 transcript; 3 already there\n$/);
  });

  it('a folder made anew (the ids started again from #1): the tasks from before come back under new ids, above every id used', () => {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'proj');
    writeTaskTranscript(config, {
      sessionId: SESSION,
      cwd,
      calls: [
        { create: { id: '1', subject: 'Before A' } },
        { create: { id: '2', subject: 'Before B' } },
        { update: { taskId: '2', addBlockedBy: ['1'] } },
        { create: { id: '1', subject: 'After A' } },
        { update: { taskId: '1', status: 'in_progress' } },
      ],
    });
    const r = runInProcessSync(config, ['-l', SESSION, 'restore', '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    // #2 was used before the folder was made anew: an agent that saw it may still name it, so no task gets it again.
    expect(report.ids).toEqual({ '1': '1', '1@1': '3', '2@1': '4' });
    expect(report.replay.restarts).toBe(1);
    expect(stderrText(r.stderr)).toMatch(
      /warning: the list started again from a low id at .*: 2 tasks from before come back under new ids/,
    );
    expect(tasksOf(config, SESSION).map((t) => [t.id, t.subject, t.status, t.blockedBy])).toEqual([
      ['1', 'After A', 'in_progress', []],
      ['3', 'Before A', 'pending', []],
      ['4', 'Before B', 'pending', ['3']],
    ]);
  });

  it("a folder removed, then made anew by tasks create (#1 again): the agent's #1 from before comes back under a new id, not taken for the new #1", () => {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'proj');
    writeTaskTranscript(config, {
      sessionId: SESSION,
      cwd,
      calls: [
        { create: { id: '1', subject: 'Before A' } },
        { create: { id: '2', subject: 'Before B' } },
        { update: { taskId: '1', status: 'in_progress', owner: 'main' } },
      ],
    });
    const made = runInProcessSync(config, ['-l', SESSION, 'create', 'After A'], { env: { USER: 'alice' } });
    expect(made.stdout.trim()).toBe('1');
    const r = runInProcessSync(config, ['-l', SESSION, 'restore', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.replay.restarts).toBe(1);
    expect(report.ids).toEqual({ '1': '1', '1@1': '3', '2@1': '4' });
    expect(tasksOf(config, SESSION).map((t) => [t.id, t.subject, t.status, t.owner])).toEqual([
      ['1', 'After A', 'pending', undefined],
      ['3', 'Before A', 'in_progress', 'main'],
      ['4', 'Before B', 'pending', undefined],
    ]);
  });

  it('a named list: its sessions found through the binding where they ran, with every task file gone', () => {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'api');
    fs.mkdirSync(path.join(cwd, '.claude'), { recursive: true });
    fs.writeFileSync(
      path.join(cwd, '.claude', 'settings.local.json'),
      JSON.stringify({ env: { CLAUDE_CODE_TASK_LIST_ID: 'shared-list' } }),
    );
    realTranscript(config, cwd);
    fs.mkdirSync(path.join(config, 'tasks', 'shared-list'), { recursive: true });
    const r = runInProcessSync(config, ['restore', '--json'], { cwd });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ list: 'shared-list', sources: [{ sessionId: NAMED_SESSION, why: 'binding' }] });
    expect(tasksOf(config, 'shared-list').map((t) => t.id)).toEqual(['10', '11']);
  });

  it("changes made with tasks count: a task a person deleted stays deleted, a person's change is kept, even after a reset", () => {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'proj');
    writeTaskTranscript(config, {
      sessionId: SESSION,
      cwd,
      start: Date.now() - 7_200_000,
      calls: [{ create: { id: '1', subject: 'A' } }, { create: { id: '2', subject: 'B' } }, { create: { id: '3', subject: 'C' } }],
    });
    const dir = path.join(config, 'tasks', SESSION);
    for (const [id, subject] of [
      ['1', 'A'],
      ['2', 'B'],
      ['3', 'C'],
    ] as const)
      writeTask(dir, { id, subject, description: '', status: 'pending', blocks: [], blockedBy: [] });
    expect(runInProcessSync(config, ['-l', SESSION, 'delete', '2', '-y']).code).toBe(0);
    expect(runInProcessSync(config, ['-l', SESSION, 'done', '3']).code).toBe(0);
    // The list is reset: every task file deleted, the mark raised (docs/task-store.md section 6.7).
    for (const f of fs.readdirSync(dir)) if (f.endsWith('.json')) fs.rmSync(path.join(dir, f));
    fs.writeFileSync(path.join(dir, '.highwatermark'), '3');
    const r = runInProcessSync(config, ['-l', SESSION, 'restore']);
    expect(r.code).toBe(0);
    expect(tasksOf(config, SESSION).map((t) => [t.id, t.subject, t.status])).toEqual([
      ['1', 'A', 'pending'],
      ['3', 'C', 'completed'],
    ]);
  });

  it("a restore leaves who did what as it was: agents' owners stay agents (gone with their session), each task made once, times the agents'", () => {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'proj');
    const start = Date.now() - 7_200_000;
    writeTaskTranscript(config, {
      sessionId: SESSION,
      cwd,
      start,
      calls: [
        { create: { id: '1', subject: 'Write the parser' } },
        { create: { id: '2', subject: 'Test the parser' } },
        { update: { taskId: '1', owner: 'worker-a', status: 'in_progress' } },
      ],
    });
    expect(runInProcessSync(config, ['restore', '--session', SESSION]).code).toBe(0);
    const dir = path.join(config, 'tasks', SESSION);
    // Each file dated when its agent last changed it, not at the restore.
    const changed = (id: string) => fs.statSync(path.join(dir, `${id}.json`)).mtimeMs;
    expect(changed('1')).toBeLessThan(Date.now() - 3_600_000);
    expect(changed('1')).toBeGreaterThan(changed('2'));

    const log = runInProcessSync(config, ['-l', SESSION, 'log']).stdout.trimEnd().split('\n');
    expect(log.filter((l) => /\tcreated /.test(l)).map((l) => l.split('\t').slice(1))).toEqual([
      ['#1', 'agent of session 0a1b2c3d', 'created Write the parser'],
      ['#2', 'agent of session 0a1b2c3d', 'created Test the parser'],
    ]);
    expect(log.filter((l) => /\trestored /.test(l))).toHaveLength(2);

    const get = runInProcessSync(config, ['-l', SESSION, 'get', '1']).stdout;
    expect(get).toContain('Owner:       worker-a (gone: session 0a1b2c3d ended)');
    expect(get).toMatch(/last changed [12] h ago by agent of session 0a1b2c3d: status → in_progress, owner → worker-a/);
    const list = runInProcessSync(config, ['-l', SESSION, 'list']);
    expect(list.stderr).toMatch(/task #1 is stalled: in progress, unchanged for 1h 5\dm/);
    const release = runInProcessSync(config, ['-l', SESSION, 'release', '--gone']);
    expect(release.code).toBe(0);
    expect(release.stdout).toMatch(/^Released task #1 from worker-a /);
    expect(tasksOf(config, SESSION)[0]).not.toHaveProperty('owner');
  });

  it('a folder removed with its journal: restore says which changes made with tasks are gone, and never hands out again an id tasks gave', () => {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'proj');
    writeTaskTranscript(config, {
      sessionId: SESSION,
      cwd,
      start: Date.now() - 7_200_000,
      calls: [{ create: { id: '1', subject: 'A' } }, { create: { id: '2', subject: 'B' } }, { create: { id: '3', subject: 'C' } }],
    });
    const dir = path.join(config, 'tasks', SESSION);
    for (const [id, subject] of [
      ['1', 'A'],
      ['2', 'B'],
      ['3', 'C'],
    ] as const)
      writeTask(dir, { id, subject, description: '', status: 'pending', blocks: [], blockedBy: [] });
    // A person finishes #3 and adds #4, which no agent ever saw, an hour ago.
    const then = { env: { TASKS_NOW: new Date(Date.now() - 3_600_000).toISOString() } };
    expect(runInProcessSync(config, ['-l', SESSION, 'done', '3'], then).code).toBe(0);
    const added = runInProcessSync(config, ['-l', SESSION, 'create', 'Ship it', '--json'], then);
    expect(JSON.parse(added.stdout)).toMatchObject({ id: '4' });
    // Claude Code removes the folder, journal and all.
    fs.rmSync(dir, { recursive: true });

    const r = runInProcessSync(config, ['-l', SESSION, 'restore', '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.mark).toEqual({ before: '0', after: '4' });
    expect(report.warnings).toEqual([
      expect.stringMatching(
        /^changes made with tasks to this list up to \S+ \(#3, #4\) went with its journal when the folder was removed: they cannot be restored/,
      ),
    ]);
    expect(tasksOf(config, SESSION).map((t) => [t.id, t.status])).toEqual([
      ['1', 'pending'],
      ['2', 'pending'],
      ['3', 'pending'],
    ]);
    // The next task is #5: #4 was handed out once.
    expect(JSON.parse(runInProcessSync(config, ['-l', SESSION, 'create', 'Next', '--json']).stdout)).toMatchObject({ id: '5' });
    // Asked again, it still says so once: those changes are in no record read.
    const again = JSON.parse(runInProcessSync(config, ['-l', SESSION, 'restore', '--dry-run', '--json']).stdout);
    expect(again.warnings.filter((w: string) => w.includes('went with its journal'))).toHaveLength(1);
  });

  it('undo of a restore that made the folder: the list goes again, and the note says the same restore brings it back', () => {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'proj');
    writeTaskTranscript(config, { sessionId: SESSION, cwd, calls: [{ create: { id: '1', subject: 'A' } }] });
    expect(runInProcessSync(config, ['-l', SESSION, 'restore']).code).toBe(0);
    const u = runInProcessSync(config, ['-l', SESSION, 'undo']);
    expect(u.code, u.stderr).toBe(0);
    expect(fs.existsSync(path.join(config, 'tasks', SESSION))).toBe(false);
    expect(u.stderr).toContain('was left empty: removed (with its history: redo cannot bring it back; the same restore can)');
  });

  it('-l <short id> that begins both a list folder there and a gone list (lists --all): restore refuses it as ambiguous, writing nothing', () => {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'proj');
    const gone = '5a5a5a5a-1111-4222-8333-944455556666';
    const there = '5a5a5a5b-1111-4222-8333-944455556666';
    for (const sessionId of [gone, there])
      writeTaskTranscript(config, { sessionId, cwd, calls: [{ create: { id: '1', subject: sessionId.slice(0, 8) } }] });
    writeTask(path.join(config, 'tasks', there), {
      id: '1',
      subject: '5a5a5a5b',
      description: '',
      status: 'pending',
      blocks: [],
      blockedBy: [],
    });
    const before = snapshotDir(path.join(config, 'tasks'));
    const r = runInProcessSync(config, ['-l', '5a5a', 'restore']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: list prefix "5a5a" is ambiguous for restore: ${there}, ${gone}`);
    expect(snapshotDir(path.join(config, 'tasks'))).toEqual(before);
    // Typed in full enough, each is itself.
    expect(runInProcessSync(config, ['-l', '5a5a5a5a', 'restore']).code).toBe(0);
    expect(tasksOf(config, gone).map((t) => t.subject)).toEqual(['5a5a5a5a']);
  });

  it('undo takes a restore back', () => {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'proj');
    writeTaskTranscript(config, {
      sessionId: SESSION,
      cwd,
      calls: [{ create: { id: '1', subject: 'A' } }, { create: { id: '2', subject: 'B' } }],
    });
    const dir = path.join(config, 'tasks', SESSION);
    writeTask(dir, { id: '1', subject: 'A', description: '', status: 'pending', blocks: [], blockedBy: [] });
    const before = snapshotDir(dir);
    expect(runInProcessSync(config, ['-l', SESSION, 'restore']).code).toBe(0);
    expect(tasksOf(config, SESSION).map((t) => t.id)).toEqual(['1', '2']);
    const u = runInProcessSync(config, ['-l', SESSION, 'undo']);
    expect(u.code).toBe(0);
    expect(tasksOf(config, SESSION).map((t) => t.id)).toEqual(['1']);
    expect(fs.readFileSync(path.join(dir, '1.json'), 'utf8')).toBe(before['1.json']);
    // A restore taken back is no deletion of its tasks: restoring again brings them back.
    expect(runInProcessSync(config, ['-l', SESSION, 'restore']).code).toBe(0);
    expect(tasksOf(config, SESSION).map((t) => t.id)).toEqual(['1', '2']);
  });

  it('bad input: one line, the right exit code, nothing written', () => {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'proj');
    writeTaskTranscript(config, { sessionId: SESSION, cwd, calls: [{ create: { id: '1', subject: 'A' } }] });
    writeTaskTranscript(config, { sessionId: '0a1b9999-1111-4222-8333-944455556666', cwd, calls: [] });
    fs.mkdirSync(path.join(config, 'tasks'), { recursive: true });
    const cases: Array<[string[], number, RegExp]> = [
      [['-l', 'x', 'restore', '--from', 'nope'], 3, /^error: --from: no transcript of a session "nope" under /],
      [['-l', 'x', 'restore', '--from', '0a1b'], 2, /^error: --from: session prefix "0a1b" is ambiguous: /],
      [['-l', 'x', 'restore', '--from', ''], 2, /^error: --from: the session id is empty/],
      [['-l', 'x', 'restore', '--from', config], 2, /is not a regular file/],
      [['-l', 'x', 'restore', '--from', path.join(config, 'missing.jsonl')], 3, /^error: --from: no transcript /],
      [['-l', 'x', 'restore'], 3, /^error: nothing records list "x": none of its sessions is known/],
      [['-l', 'x', 'restore', '--from', '0a1b9999'], 3, /^error: no Task-tool change of list "x" in 1 transcript read/],
      [['-l', 'x', 'restore', '--bogus'], 2, /^error: unknown option '--bogus'/],
      // A session's own list, named as one (its quoted short id would read as a list of that name).
      [
        ['-l', '0a1b9999-1111-4222-8333-944455556666', 'restore'],
        3,
        /^error: no Task-tool change of the list of session 0a1b9999 in 1 transcript read/,
      ],
    ];
    for (const [args, code, message] of cases) {
      const r = runInProcessSync(config, args);
      expect({ args, code: r.code }).toEqual({ args, code });
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n {4}at /);
      expect(r.stdout).toBe('');
    }
    expect(fs.readdirSync(path.join(config, 'tasks'))).toEqual([]);
  });
});
