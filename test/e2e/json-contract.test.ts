/**
 * The JSON contract, on real outputs: every command's `--json` stdout validates against
 * its committed schema (docs/schemas/), in its outcomes (success, dry run, a failed item,
 * a refusal), and stderr holds JSON lines only, each an error, a warning or a note with a
 * code. A command whose output drifts from its schema fails here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OUTPUT_SCHEMAS } from '../../src/render/json-schemas/output-schemas.js';
import { startBoard } from '../helpers/board.js';
import { FIXTURES, fixtureConfig, type RunResult, run, tempConfig, writeTask } from '../helpers/cli.js';
import { CostTranscript, writeTaskFile } from '../helpers/cost-transcript.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { contractProblems } from '../helpers/json-contract.js';
import { writeTranscript } from '../helpers/session-files.mjs';
import { StreamScript } from '../helpers/stream-lines.js';
import { writeTaskTranscript } from '../helpers/task-transcript.js';

/** The schemas a case here has validated a real output against: every one in the registry must be (the last test). */
const validated = new Set<string>(['stderr']);

/** Run with --json; check stdout against `schema` (when it has any) and stderr against the stderr schema. */
function contract(
  schema: string | undefined,
  config: string,
  args: string[],
  opts: Parameters<typeof runInProcessSync>[2] = {},
): RunResult {
  const r = runInProcessSync(config, [...args, '--json'], opts);
  if (schema !== undefined && r.stdout.trim() !== '') validated.add(schema);
  const where = `tasks ${args.join(' ')} (exit ${r.code})`;
  if (schema !== undefined && r.stdout.trim() !== '') expect(contractProblems(schema, r.stdout), `${where} stdout`).toEqual([]);
  if (schema === undefined) expect(r.stdout, `${where}: stdout`).toBe('');
  expect(contractProblems('stderr', r.stderr), `${where} stderr: ${r.stderr}`).toEqual([]);
  return r;
}

const stderrLines = (r: RunResult) =>
  r.stderr
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, { code: string } & Record<string, unknown>>);

describe('every --json output validates against its schema', () => {
  it('reads: list, get, lists, export (json and jsonl), check (one and --all)', () => {
    const { config } = fixtureConfig();
    const list = contract('list', config, ['list']);
    expect(list.code).toBe(0);
    const tasks = JSON.parse(list.stdout) as Array<{ id: string; updatedAt: string }>;
    // The one task shape: its change time is its file's mtime.
    const mtime = new Date(fs.statSync(path.join(config, 'tasks', 'refactor-auth', '4.json')).mtimeMs).toISOString();
    expect(tasks.find((t) => t.id === '4')?.updatedAt).toBe(mtime);
    contract('list', config, ['list', '--ready']);
    expect(contract('get', config, ['get', '4']).code).toBe(0);
    expect(stderrLines(contract(undefined, config, ['get', '99']))).toEqual([{ error: expect.objectContaining({ code: 'not_found' }) }]);
    contract('lists', config, ['lists']);
    contract('export', config, ['export']);
    const jsonl = runInProcessSync(config, ['export', '--format', 'jsonl']);
    for (const line of jsonl.stdout.trim().split('\n')) expect(contractProblems('get', line)).toEqual([]);
    contract('check', config, ['check']);
    contract('check', config, ['check', '--all']);
  });

  it('changes: create, update, start, done, block, unblock, update --status deleted, claim, claim refusals', () => {
    const { config } = fixtureConfig();
    expect(contract('create', config, ['create', 'New work', '-d', 'x', '--meta', 'k=v']).code).toBe(0);
    contract('update', config, ['update', '5', '--owner', 'amy', '--status', 'in_progress']);
    contract('update', config, ['start', '2']);
    contract('update', config, ['done', '5']);
    contract('block', config, ['block', '4', '--by', '5']);
    contract('block', config, ['unblock', '4', '--by', '5']);
    const deleted = contract('update', config, ['update', '6', '--status', 'deleted']);
    expect(JSON.parse(deleted.stdout)).toMatchObject({ id: '6', ok: true, deleted: true, task: { id: '6' }, references: [] });
    const claimed = contract('claim', config, ['claim', '2', '--as', 'bob']);
    expect(claimed.code, claimed.stderr).toBe(0);
    expect(JSON.parse(claimed.stdout)).toMatchObject({ id: '2', owner: 'bob' });
    // Refusals are errors: stderr only, with the agents' reason among the facts.
    const refused = contract(undefined, config, ['claim', '2', '--as', 'carol']);
    expect(refused.code).toBe(4);
    expect(stderrLines(refused)).toEqual([
      { error: expect.objectContaining({ code: 'conflict', reason: 'already_claimed', task: expect.objectContaining({ owner: 'bob' }) }) },
    ]);
    const none = contract(undefined, config, ['claim', '--next', '--as', 'dan']);
    expect(none.code).toBe(4);
    expect(stderrLines(none)).toEqual([{ error: expect.objectContaining({ code: 'conflict', reason: 'no_task_ready', task: null }) }]);
    expect(contract(undefined, config, ['claim', '99', '--as', 'dan']).code).toBe(3);
  });

  it("batches: an item's error is in its item, stderr holds one summary; dry runs have the real shape plus dryRun", () => {
    const { config } = fixtureConfig();
    const dry = contract('delete', config, ['delete', '5', '--dry-run']);
    const real = contract('delete', config, ['delete', '5', '99']);
    expect(real.code).toBe(3);
    const items = JSON.parse(real.stdout) as Array<Record<string, unknown>>;
    expect(items).toEqual([
      expect.objectContaining({ id: '5', ok: true, deleted: true }),
      { id: '99', ok: false, error: expect.objectContaining({ code: 'not_found', id: '99' }) },
    ]);
    const { dryRun, ...dryItem } = (JSON.parse(dry.stdout) as Array<Record<string, unknown>>)[0] as Record<string, unknown>;
    expect(dryRun).toBe(true);
    expect(Object.keys(dryItem)).toEqual(Object.keys(items[0] as object));
    expect(stderrLines(real)).toEqual([{ error: expect.objectContaining({ code: 'not_found', failed: ['99'] }) }]);

    runInProcessSync(config, ['update', '4', '--owner', 'w', '--status', 'in_progress']);
    const released = contract('release', config, ['release', '4', '77']);
    expect(released.code).toBe(3);
    expect(JSON.parse(released.stdout)).toEqual([
      expect.objectContaining({ id: '4', ok: true, released: true, previousOwner: 'w', previousStatus: 'in_progress' }),
      { id: '77', ok: false, error: expect.objectContaining({ code: 'not_found' }) },
    ]);
    contract('release', config, ['release', '--gone', '--dry-run']);
    contract('release', config, ['release', '--owner', 'nobody-at-all']);
  });

  it('release --gone --dry-run: the real release items, flagged, the task as it would be', () => {
    const config = tempConfig();
    const session = '5b1f6a2e-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
    const dir = path.join(config, 'tasks', session);
    writeTask(dir, { id: '1', subject: 'Held', description: '', status: 'in_progress', owner: 'agent-1', blocks: [], blockedBy: [] });
    // An ended session owns the list: its owners are gone.
    writeTranscript(config, { sessionId: session, cwd: path.join(config, 'home', 'p') });
    const dry = contract('release', config, ['-l', session, 'release', '--gone', '--dry-run']);
    const items = JSON.parse(dry.stdout) as Array<Record<string, unknown>>;
    expect(items).toHaveLength(1);
    {
      expect(items[0]).toMatchObject({
        id: '1',
        ok: true,
        released: true,
        previousOwner: 'agent-1',
        dryRun: true,
        task: { status: 'pending', updatedAt: null },
      });
      const realRun = contract('release', config, ['-l', session, 'release', '--gone']);
      const { dryRun: _, ...shape } = items[0] as Record<string, unknown>;
      expect(Object.keys((JSON.parse(realRun.stdout) as object[])[0] as object)).toEqual(Object.keys(shape));
    }
  });

  it('import (real and dry run), watch (list and stream), trust, history (log, undo), and a missing command', () => {
    const config = tempConfig();
    const input = path.join(FIXTURES, 'stream-json-tasks-v2.jsonl');
    const dry = contract('import', config, ['-l', 'imp', 'import', input, '--dry-run']);
    expect(JSON.parse(dry.stdout)).toMatchObject({
      dryRun: true,
      created: expect.arrayContaining([expect.objectContaining({ updatedAt: null })]),
    });
    const real = contract('import', config, ['-l', 'imp', 'import', input]);
    expect(JSON.parse(real.stdout)).not.toHaveProperty('dryRun');
    // What the import says on stderr is JSON too, each with its code.
    expect(stderrLines(real).map((l) => Object.values(l)[0]?.code)).toEqual(expect.arrayContaining(['import_detected', 'import_summary']));
    contract('watch', config, ['-l', 'imp', 'watch', '--timeout', '300ms']);
    contract('watch', config, ['-l', 'imp', 'watch', '--until', 'all-completed', '--timeout', '300ms']);
    const s = new StreamScript().init().create('1', 'A').update('1', { status: 'in_progress' }).end();
    contract('watch', config, ['watch', '--stream', '-', '--until', 'all-completed'], { input: `${s.lines.join('\n')}\n` });
    const project = path.join(config, 'project');
    fs.mkdirSync(project);
    contract('trust', config, ['trust', project]);
    const bare = contract(undefined, config, []);
    expect(bare.code).toBe(2);
    expect(stderrLines(bare)).toEqual([{ error: expect.objectContaining({ code: 'usage' }) }]);
  });
});

describe('history: log, undo and redo follow the contract', () => {
  it("log: one array, every source and kind of change, absent fields missing (never null), an agent's old value unknown", () => {
    const config = tempConfig();
    // A named list its agent wrote to (a real transcript), then a person's changes made with tasks.
    const folder = path.join(config, 'projects', '-tmp-exp-p1-sub');
    fs.mkdirSync(folder, { recursive: true });
    const session = 'f7f775d4-e1d7-4aa0-a93e-9debb709c646';
    const transcript = path.join(folder, `${session}.jsonl`);
    fs.copyFileSync(path.join(FIXTURES, 'sessions', 'transcript-tasks-named.jsonl'), transcript);
    // Then the agent takes #9, which it never read and no record shows made: its owner before is not known.
    const at = new Date(Date.now() - 5000).toISOString();
    const base = { sessionId: session, cwd: '/tmp/exp/p1/sub', timestamp: at };
    const take = [
      {
        ...base,
        type: 'assistant',
        message: { content: [{ type: 'tool_use', id: 'toolu_9', name: 'TaskUpdate', input: { taskId: '9', owner: 'main' } }] },
      },
      {
        ...base,
        type: 'user',
        toolUseResult: { success: true, taskId: '9', updatedFields: ['owner'] },
        message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'Updated task #9 owner' }] },
      },
    ];
    fs.appendFileSync(transcript, `${take.map((line) => JSON.stringify(line)).join('\n')}\n`);
    fs.cpSync(path.join(FIXTURES, 'sessions', 'shared-list'), path.join(config, 'tasks', 'shared-list'), { recursive: true });
    const dir = path.join(config, 'tasks', 'shared-list');
    const l = ['-l', 'shared-list'];
    expect(contract('update', config, [...l, 'update', '11', '--owner', 'alice']).code).toBe(0);
    runInProcessSync(config, [...l, 'update', '11', '--no-owner']);
    fs.writeFileSync(path.join(dir, '70.json'), 'not json');
    expect(runInProcessSync(config, [...l, 'check', '--fix']).code).toBe(0);
    // A hand edit no record explains.
    const ten = path.join(dir, '10.json');
    fs.writeFileSync(ten, fs.readFileSync(ten, 'utf8').replace('"subject": "', '"subject": "edited: '));
    const later = Date.now() / 1000 + 10;
    fs.utimesSync(ten, later, later);
    const log = contract('log', config, [...l, 'log']);
    expect(log.code).toBe(0);
    const events = JSON.parse(log.stdout) as Array<{ op: string; source: string; changes: Record<string, Record<string, unknown>> }>;
    expect(new Set(events.map((e) => e.source))).toEqual(new Set(['transcript', 'journal', 'files']));
    expect(new Set(events.map((e) => e.op))).toEqual(new Set(['create', 'update', 'delete', 'mark', 'aside', 'unrecorded']));
    const changes = events.flatMap((e) => Object.values(e.changes));
    for (const c of changes) expect(Object.values(c), JSON.stringify(c)).not.toContain(null);
    // The owner set, then removed: absent before, absent after.
    const owners = events.filter((e) => e.source === 'journal' && 'owner' in e.changes).map((e) => e.changes.owner);
    expect(owners).toEqual([{ new: 'alice' }, { old: 'alice' }]);
    // An agent's change of a field no record told before says so.
    expect(events.find((e) => e.source === 'transcript' && 'owner' in e.changes && (e as { task?: string }).task === '9')?.changes).toEqual(
      {
        owner: { oldUnknown: true, new: 'main' },
      },
    );
    // One document even when nothing is recorded, and the --all note is coded.
    expect(contract('log', config, [...l, 'log', '--until', '2020-01-01']).stdout).toBe('[]\n');
    const empty = tempConfig();
    const none = contract('log', empty, ['log', '--all']);
    expect([none.code, none.stdout]).toEqual([0, '[]\n']);
    expect(stderrLines(none)).toEqual([{ note: expect.objectContaining({ code: 'no_lists' }) }]);
    // A damaged journal line: a coded warning, the rest read.
    fs.appendFileSync(path.join(dir, '.tasks-journal.jsonl'), '{"v":1,"damaged\n');
    runInProcessSync(config, [...l, 'update', '9', '--owner', 'bob']);
    const damaged = contract('log', config, [...l, 'log']);
    expect(stderrLines(damaged)).toEqual([
      { warning: expect.objectContaining({ code: 'journal_line_skipped', list: 'shared-list', line: expect.any(Number) }) },
    ]);
  });

  it('undo and redo: the real run and its dry run, coded errors, a list removed as a coded note', () => {
    const config = tempConfig();
    const l = ['-l', 'h'];
    expect(stderrLines(contract(undefined, config, [...l, 'undo']))).toEqual([{ error: expect.objectContaining({ code: 'not_found' }) }]);
    runInProcessSync(config, [...l, 'create', 'A', '--owner', 'bob']);
    runInProcessSync(config, [...l, 'create', 'B']);
    runInProcessSync(config, [...l, 'update', '2', '--owner', 'carol', '--meta', 'k=v']);
    runInProcessSync(config, [...l, 'delete', '1']);
    const forms: Array<[string, string[]]> = [
      ['undo', ['undo', '--dry-run']],
      ['undo', ['undo']],
      ['undo', ['undo', '--dry-run']],
      ['undo', ['undo']],
      ['redo', ['redo', '--dry-run']],
      ['redo', ['redo']],
    ];
    const outputs = forms.map(([schema, args]) => {
      const r = contract(schema, config, [...l, ...args]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as Record<string, unknown>;
    });
    for (let i = 0; i < outputs.length; i += 2) {
      const [dry, real] = [outputs[i] as Record<string, unknown>, outputs[i + 1] as Record<string, unknown>];
      expect(dry.dryRun).toBe(true);
      expect(real).not.toHaveProperty('dryRun');
      const { dryRun: _, ...shape } = dry;
      expect(Object.keys(shape)).toEqual(Object.keys(real));
      // The same steps, but for the times a dry run cannot know (a restored task is not written).
      expect(JSON.stringify(dry.steps).replace(/"updatedAt":("[^"]*"|null)/g, '')).toBe(
        JSON.stringify(real.steps).replace(/"updatedAt":("[^"]*"|null)/g, ''),
      );
    }
    // The delete undone: the task comes back in the one task shape. The update undone: the owner goes back, meta goes.
    expect(outputs[1]?.steps).toEqual([
      { kind: 'create', id: '1', task: expect.objectContaining({ id: '1', owner: 'bob', updatedAt: expect.any(String) }) },
    ]);
    expect(outputs[3]?.steps).toEqual([{ kind: 'update', id: '2', fields: { owner: { old: 'carol' }, metadata: { old: { k: 'v' } } } }]);
    // A task changed since: a conflict, coded, naming what changed.
    fs.writeFileSync(
      path.join(config, 'tasks', 'h', '2.json'),
      JSON.stringify({
        ...(JSON.parse(fs.readFileSync(path.join(config, 'tasks', 'h', '2.json'), 'utf8')) as object),
        owner: 'agent-9',
      }),
    );
    const refused = contract(undefined, config, [...l, 'undo']);
    expect(refused.code).toBe(4);
    expect(stderrLines(refused)).toEqual([{ error: expect.objectContaining({ code: 'conflict' }) }]);
    // Undoing the change that made a list leaves it empty: removed, said as a coded note.
    const fresh = tempConfig();
    runInProcessSync(fresh, ['-l', 'once', 'create', 'Only']);
    const removed = contract('undo', fresh, ['-l', 'once', 'undo']);
    expect(stderrLines(removed)).toEqual([{ note: expect.objectContaining({ code: 'list_removed', list: 'once' }) }]);
  });
});

describe('when the session changes: carry, restore, doctor, lists --all', () => {
  const task = (id: string, subject: string, extra: Record<string, unknown> = {}) => ({
    id,
    subject,
    description: '',
    status: 'pending',
    blocks: [],
    blockedBy: [],
    ...extra,
  });

  it('carry: a dry run (the real shape plus dryRun), the real run, its undo and redo, a refusal', () => {
    const config = tempConfig();
    const from = path.join(config, 'tasks', 'from');
    writeTask(from, task('1', 'Done', { status: 'completed', blocks: ['2'] }));
    writeTask(from, task('2', 'Open', { blockedBy: ['1'], owner: 'gone-agent', status: 'in_progress' }));
    writeTask(from, task('3', 'Lost', { blockedBy: ['9'] }));
    writeTask(path.join(config, 'tasks', 'to'), task('1', 'Here before'));
    const dry = contract('carry', config, ['-l', 'to', 'carry', '--from', 'from', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    const real = contract('carry', config, ['-l', 'to', 'carry', '--from', 'from']);
    expect(real.code, real.stderr).toBe(0);
    const { dryRun, ...planned } = JSON.parse(dry.stdout) as Record<string, unknown>;
    expect(dryRun).toBe(true);
    expect(Object.keys(planned)).toEqual(Object.keys(JSON.parse(real.stdout) as object));
    expect(stderrLines(real).map((l) => Object.values(l)[0]?.code)).toEqual(['carry_warning', 'carry_summary']);
    expect(contract('undo', config, ['-l', 'to', 'undo']).code).toBe(0);
    expect(contract('redo', config, ['-l', 'to', 'redo']).code).toBe(0);
    const again = contract(undefined, config, ['-l', 'to', 'carry', '--from', 'from', '2']);
    expect(again.code).toBe(4);
    expect(stderrLines(again)).toEqual([{ error: expect.objectContaining({ code: 'conflict', carriedTo: { list: 'to', id: '2' } }) }]);
  });

  it('restore and lists --all: a list whose folder is gone, shown, restored (dry run and real), its undo', () => {
    const config = tempConfig();
    const session = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
    writeTaskTranscript(config, {
      sessionId: session,
      cwd: path.join(config, 'home', 'proj'),
      calls: [
        { create: { id: '1', subject: 'A' } },
        { create: { id: '2', subject: 'B' } },
        { update: { taskId: '2', addBlockedBy: ['1'] } },
      ],
    });
    const gone = contract('lists', config, ['lists', '--all']);
    expect(JSON.parse(gone.stdout)).toEqual([expect.objectContaining({ id: session, kind: 'gone' })]);
    const dry = contract('restore', config, ['-l', session, 'restore', '--dry-run']);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, created: [{ updatedAt: null }, { updatedAt: null }] });
    const real = contract('restore', config, ['-l', session, 'restore']);
    expect(JSON.parse(real.stdout)).not.toHaveProperty('dryRun');
    expect(stderrLines(real).map((l) => Object.values(l)[0]?.code)).toEqual(['restore_summary']);
    expect(contract('undo', config, ['-l', session, 'undo']).code).toBe(0);
    const none = contract(undefined, config, ['-l', 'nothing-here', 'restore']);
    expect(none.code).toBe(3);
    expect(stderrLines(none)).toEqual([{ error: expect.objectContaining({ code: 'not_found' }) }]);
  });

  it('doctor: findings (exit 4) and none (exit 0), the summary a coded note', () => {
    const config = tempConfig();
    const dir = path.join(config, 'tasks', 'sick');
    writeTask(dir, task('1', 'Fine'));
    fs.writeFileSync(path.join(dir, '2.json'), '{ not json');
    const sick = contract('doctor', config, ['-l', 'sick', 'doctor']);
    expect(sick.code).toBe(4);
    expect(JSON.parse(sick.stdout).findings).toEqual([expect.objectContaining({ code: 'tasks_unreadable', list: 'sick' })]);
    expect(stderrLines(sick)).toEqual([{ note: expect.objectContaining({ code: 'doctor_summary', findings: 1 }) }]);
    writeTask(path.join(config, 'tasks', 'well'), task('1', 'Fine'));
    const well = contract('doctor', config, ['-l', 'well', 'doctor']);
    expect([well.code, JSON.parse(well.stdout).findings]).toEqual([0, []]);
  });

  it('run and lists --stalled: the agent run, stalled work across lists', () => {
    const { config } = fixtureConfig();
    const lines = new StreamScript().init().create('1', 'A').update('1', { status: 'completed' }).end().lines;
    const agent = path.join(config, 'agent.sh');
    fs.writeFileSync(agent, `#!/bin/sh\ncat <<'EOF'\n${lines.join('\n')}\nEOF\necho 'to stderr' >&2\n`, { mode: 0o755 });
    // --json before the agent's command: after --, every word is the agent's.
    const r = run(config, ['--json', 'run', '--until', 'all-completed', '--', agent]);
    expect(r.code, r.stderr).toBe(0);
    expect(contractProblems('run', r.stdout)).toEqual([]);
    expect(contractProblems('stderr', r.stderr)).toEqual([]);
    expect(stderrLines(r)).toContainEqual({ note: expect.objectContaining({ code: 'agent_stderr', message: 'to stderr' }) });
    validated.add('run');
    const dir = path.join(config, 'tasks', 'refactor-auth');
    for (const name of fs.readdirSync(dir))
      fs.utimesSync(path.join(dir, name), new Date(Date.now() - 7200_000), new Date(Date.now() - 7200_000));
    expect(contract('lists-stalled', config, ['lists', '--stalled']).code).toBe(0);
  });

  it('graph, use and board: their documents', async () => {
    const { config } = fixtureConfig();
    contract('graph', config, ['graph']);
    const project = path.join(config, 'project');
    fs.mkdirSync(project);
    expect(contract('use', config, ['use', 'refactor-auth'], { cwd: project }).code).toBe(0);
    const board = await startBoard(config, ['-l', 'refactor-auth']);
    const ended = await board.stop();
    expect(contractProblems('board', ended.stdout)).toEqual([]);
    validated.add('board');
  });
});

describe('notify', () => {
  it('its lines, and the document an exec: command reads', () => {
    const config = tempConfig();
    const dir = path.join(config, 'tasks', 'done');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, '1.json'),
      JSON.stringify({ id: '1', subject: 'A', description: '', status: 'completed', blocks: [], blockedBy: [] }),
    );
    const got = path.join(config, 'message.json');
    const env = { XDG_STATE_HOME: path.join(config, 'state') };
    const r = contract('notify', config, ['-l', 'done', 'notify', '--once', '--to', `exec:cat > ${got}`], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(contractProblems('notify-message', fs.readFileSync(got, 'utf8'))).toEqual([]);
    validated.add('notify-message');
  });
});

describe('cost --json', () => {
  it('validates: a list with work, a task gone, an unknown model, --all with no lists, list --cost', () => {
    const config = tempConfig();
    const session = 'c0570000-1111-4222-8333-444444444444';
    const t = Date.now() - 600_000;
    writeTaskFile(config, session, { id: '1', subject: 'Kept', status: 'completed', owner: 'ann' });
    new CostTranscript(session, '/work/app')
      .create(t, { id: '1', subject: 'Kept' }, t + 1000, { input: 5 })
      .update(t + 2000, { taskId: '1', status: 'in_progress' }, t + 3000, { input: 7 })
      .message(t + 4000, { input: 100, output: 10, cacheRead: 1000, cacheWrite: 50, cacheWrite1h: 20 })
      .message(t + 4500, { input: 1 }, { model: 'claude-mock' })
      .update(t + 5000, { taskId: '1', status: 'completed' }, t + 6000)
      .create(t + 7000, { id: '2', subject: 'Gone' }, t + 8000)
      .update(t + 9000, { taskId: '2', status: 'in_progress' }, t + 10_000)
      .message(t + 11_000, { input: 3 })
      .update(t + 12_000, { taskId: '2', status: 'deleted' }, t + 13_000)
      .write(config);
    const r = contract('cost', config, ['-l', session, 'cost']);
    const doc = JSON.parse(r.stdout) as {
      tasks: Array<{ id: string; deleted: boolean; costUsd: number | null }>;
      unpricedModels: string[];
    };
    expect(doc.tasks.map((x) => [x.id, x.deleted, x.costUsd === null])).toEqual([
      ['1', false, true],
      ['2', true, false],
    ]);
    expect(doc.unpricedModels).toEqual(['claude-mock']);
    contract('cost', config, ['-l', session, 'cost', '--since', '1m']);
    const none = contract('cost', tempConfig(), ['cost', '--all']);
    expect(stderrLines(none)).toEqual(expect.arrayContaining([{ note: expect.objectContaining({ code: 'no_lists' }) }]));
    contract('list', config, ['-l', session, 'list', '--cost']);
  });
});

describe('the registry', () => {
  it('validates: a host that cannot be reached (-H, exit 8), its error naming the host', () => {
    // Nothing listens on port 1 of loopback: ssh is refused at once.
    const r = contract(undefined, tempConfig(), ['-H', 'ssh://127.0.0.1:1', 'list'], { env: { TASKS_SSH_TIMEOUT: '5' } });
    expect(r.code).toBe(8);
    expect(stderrLines(r)).toEqual([{ error: expect.objectContaining({ code: 'unreachable', host: 'ssh://127.0.0.1:1' }) }]);
  });

  it('every --json output in it has a case here that validates a real output against its schema', () => {
    expect(Object.keys(OUTPUT_SCHEMAS).filter((name) => !validated.has(name))).toEqual([]);
  });
});

describe('the contract catches drift', () => {
  it('an output with a key renamed, or a task without its change time, is invalid', () => {
    const { config } = fixtureConfig();
    const list = JSON.parse(runInProcessSync(config, ['list', '--json']).stdout) as Array<Record<string, unknown>>;
    const { updatedAt: _, ...withoutTime } = list[0] as Record<string, unknown>;
    expect(contractProblems('list', JSON.stringify([withoutTime]))).not.toEqual([]);
    const end = JSON.parse(
      runInProcessSync(config, ['watch', '--timeout', '200ms', '--json']).stdout.trim().split('\n').at(-1) as string,
    ) as Record<string, Record<string, unknown>>;
    const { inProgress, ...others } = end.counts ?? {};
    const counts = { ...others, in_progress: inProgress };
    expect(contractProblems('watch', JSON.stringify({ ...end, counts }))).not.toEqual([]);
    expect(contractProblems('stderr', 'warning: plain text')).not.toEqual([]);
  });
});
