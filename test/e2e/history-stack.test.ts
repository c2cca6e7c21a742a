/**
 * The undo stack and redo, run in process (each test checks output and files only): five commands taken back one by
 * one and applied again, a script's loop taken back all or nothing, one command from the
 * middle, refusals that name what changed and who; check --fix journaled and undone;
 * --as on every write; log piped, across lists, between two times; no false alarms.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines, readJson, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { contractProblems } from '../helpers/json-contract.js';
import { writeTranscript } from '../helpers/session-files.mjs';

const ENV = { USER: 'alice' };
const dirOf = (config: string, list = 'L') => path.join(config, 'tasks', list);
const t = (config: string, ...args: string[]) => runInProcessSync(config, ['-l', 'L', ...args], { env: ENV });
const file = (config: string, id: string, list = 'L') => readJson(path.join(dirOf(config, list), `${id}.json`)) as Record<string, unknown>;
const exists = (config: string, id: string) => fs.existsSync(path.join(dirOf(config), `${id}.json`));
/** `log --json`: one document, an array of changes. */
const logOf = (text: string) => JSON.parse(text) as Array<Record<string, unknown>>;
const snapshot = (config: string) =>
  Object.fromEntries(
    fs
      .readdirSync(dirOf(config))
      .filter((n) => /^\d+\.json$/.test(n))
      .sort()
      .map((n) => [n, JSON.parse(fs.readFileSync(path.join(dirOf(config), n), 'utf8')) as unknown]),
  );
const task = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  subject: `T${id}`,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

describe('undo and redo step through the stack', () => {
  it('five commands taken back one by one, then applied again one by one, and the list is as it was each time', () => {
    const config = tempConfig();
    const states = [];
    t(config, 'create', 'A');
    states.push(snapshot(config));
    const commands = [
      ['create', 'B', '--blocked-by', '1'],
      ['update', '1', '--status', 'in_progress', '--owner', 'bob'],
      ['create', 'C'],
      ['block', '3', '--by', '1'],
      ['delete', '2'],
    ];
    for (const c of commands) {
      const r = t(config, ...c);
      expect(r.code, `${c.join(' ')}: ${r.stderr}`).toBe(0);
      states.push(snapshot(config));
    }
    // Back through all five.
    const undone = [];
    for (let i = commands.length; i >= 1; i--) {
      const r = t(config, 'undo');
      expect(r.code, r.stderr).toBe(0);
      undone.push(r.stdout.split('\n')[0]?.replace(/ by .*/, ''));
      expect(snapshot(config)).toEqual(states[i - 1]);
    }
    expect(undone).toEqual(['Undid delete', 'Undid block', 'Undid create', 'Undid update', 'Undid create']);
    // The first create stays: it was not taken back, and nothing more is left to undo but it.
    expect(exists(config, '1')).toBe(true);
    // And forward through all five.
    for (let i = 1; i <= commands.length; i++) {
      const r = t(config, 'redo');
      expect(r.code, r.stderr).toBe(0);
      expect(snapshot(config)).toEqual(states[i]);
    }
    expect(t(config, 'redo')).toMatchObject({ code: 3, stderr: expect.stringMatching(/^error: nothing to redo/) });
    // A new change clears what is left to redo.
    t(config, 'undo');
    t(config, 'update', '1', '--subject', 'A2');
    expect(t(config, 'redo').code).toBe(3);
  });

  it('undo --since takes back a loop of 20 updates all at once; a change by someone else in between refuses it all, naming who', () => {
    const config = tempConfig();
    t(config, 'create', 'Counter', '--meta', 'n=0');
    const before = snapshot(config);
    const started = new Date(Date.now() - 1000).toISOString();
    for (let i = 1; i <= 20; i++)
      expect(runInProcessSync(config, ['-l', 'L', 'update', '1', '--meta', `n=${i}`, '--as', 'loop'], { env: ENV }).code).toBe(0);
    expect(file(config, '1').metadata).toEqual({ n: '20' });
    // Someone else changes the same task in between: all or nothing, nothing done.
    const dry = t(config, 'undo', '--since', started, '--who', 'loop', '--dry-run', '--json');
    expect(JSON.parse(dry.stdout)).toMatchObject({ action: 'undo', dryRun: true, txn: null });
    expect((JSON.parse(dry.stdout) as { commands: unknown[] }).commands).toHaveLength(20);
    runInProcessSync(config, ['-l', 'L', 'update', '1', '--meta', 'n=99'], { env: { USER: 'bob' } });
    const refused = t(config, 'undo', '--since', started, '--who', 'loop');
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(
      /^error: cannot undo update by loop and 19 more: #1 metadata is \{"n":"99"\} now \(the change set \{"n":"20"\}\) \(changed by bob with update at \S+\)\n/,
    );
    expect(file(config, '1').metadata).toEqual({ n: '99' });
    // Once bob's change is taken back, the loop goes back whole, in one command.
    expect(t(config, 'undo').code).toBe(0);
    const r = t(config, 'undo', '--since', started, '--who', 'loop');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^Undid 20 commands \(update ×20\) by loop from /);
    expect(snapshot(config)).toEqual(before);
    // One redo applies the whole loop again.
    expect(t(config, 'redo').code).toBe(0);
    expect(file(config, '1').metadata).toEqual({ n: '20' });
  });

  it('undo --txn takes back one command from the middle if nothing changed its tasks since, and refuses naming who did', () => {
    const config = tempConfig();
    t(config, 'create', 'A');
    t(config, 'create', 'B');
    t(config, 'update', '1', '--owner', 'bob');
    t(config, 'update', '2', '--owner', 'carol');
    t(config, 'update', '2', '--status', 'in_progress');
    const log = logOf(t(config, 'log', '--json').stdout);
    expect(log.every((e) => typeof e.txn === 'string')).toBe(true);
    const ownerOf1 = log.find((e) => e.task === '1' && e.op === 'update')?.txn as string;
    const ownerOf2 = log.find((e) => e.task === '2' && e.op === 'update')?.txn as string;
    // #1's owner: nothing changed #1 since.
    const r = t(config, 'undo', '--txn', ownerOf1);
    expect(r.code, r.stderr).toBe(0);
    expect(file(config, '1')).not.toHaveProperty('owner');
    expect(file(config, '2')).toMatchObject({ owner: 'carol', status: 'in_progress' });
    // Taken back already: said so.
    expect(t(config, 'undo', '--txn', ownerOf1)).toMatchObject({ code: 4, stderr: expect.stringMatching(/is undone already/) });
    // #2's owner, changed since by an agent (a hand edit here): refused, naming the field.
    fs.writeFileSync(path.join(dirOf(config), '2.json'), JSON.stringify({ ...file(config, '2'), owner: 'agent-9' }, null, 2));
    const refused = t(config, 'undo', '--txn', ownerOf2);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/^error: cannot undo update by alice: #2 owner is "agent-9" now \(the change set "carol"\)/);
    expect(t(config, 'undo', '--txn', 'nope')).toMatchObject({ code: 3 });
  });
});

describe('check --fix is journaled, and undone', () => {
  it('a corrupt file moved aside and the mark raised: log shows both; undo puts the file back and keeps the mark', () => {
    const config = tempConfig();
    t(config, 'create', 'A');
    fs.writeFileSync(path.join(dirOf(config), '5.json'), '{"id": "5", "subj');
    const fix = t(config, 'check', '--fix');
    expect(fix.code, fix.stderr).toBe(0);
    const aside = fs.readdirSync(dirOf(config)).find((n) => n.startsWith('5.json.corrupt-')) as string;
    expect(aside).toBeDefined();
    const log = logOf(t(config, 'log', '--json').stdout);
    expect(log.slice(-2)).toMatchObject([
      { op: 'mark', task: null, command: 'check', changes: { highWaterMark: { new: '5' } } },
      { op: 'aside', task: '5', command: 'check', changes: { file: { old: '5.json', new: aside } } },
    ]);
    const undo = t(config, 'undo');
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toContain(`#5: ${aside} moved to 5.json`);
    expect(undo.stdout).toContain('(the high-water mark stays at 5 (ids are never handed out again))');
    expect(fs.readFileSync(path.join(dirOf(config), '5.json'), 'utf8')).toBe('{"id": "5", "subj');
    expect(fs.readFileSync(path.join(dirOf(config), '.highwatermark'), 'utf8').trim()).toBe('5');
    // And redo moves it aside again.
    expect(t(config, 'redo').code).toBe(0);
    expect(exists(config, '5')).toBe(false);
    expect(fs.existsSync(path.join(dirOf(config), aside))).toBe(true);
  });
});

describe('--as on every write', () => {
  it('journals the change as the agent, with its Claude Code session when it runs in one', () => {
    const config = tempConfig();
    const session = '7c2b3c8e-1f0a-4d2b-9a63-5b1c2d3e4f50';
    const agent = (...args: string[]) =>
      runInProcessSync(config, ['-l', 'L', ...args, '--as', 'worker-1'], { env: { ...ENV, CLAUDE_CODE_SESSION_ID: session } });
    for (const args of [
      ['create', 'A'],
      ['update', '1', '--owner', 'worker-1'],
      ['start', '1'],
      ['done', '1', '--no-hooks'],
    ]) {
      expect(agent(...args).code).toBe(0);
    }
    t(config, 'create', 'B');
    expect(agent('block', '2', '--by', '1').code).toBe(0);
    expect(agent('unblock', '2').code).toBe(0);
    expect(agent('release', '1').code).toBe(4); // completed: refused, nothing journaled
    expect(agent('delete', '2').code).toBe(0);
    const actors = jsonLines(fs.readFileSync(path.join(dirOf(config), '.tasks-journal.jsonl'), 'utf8')).map(
      (e) => `${e.command} ${(e.actor as { kind: string }).kind} ${(e.actor as { session?: string }).session ?? '-'}`,
    );
    expect([...new Set(actors)]).toEqual([
      `create agent ${session}`,
      `update agent ${session}`,
      `start agent ${session}`,
      `done agent ${session}`,
      'create person -',
      `block agent ${session}`,
      `unblock agent ${session}`,
      `delete agent ${session}`,
    ]);
    expect(t(config, 'log', '1').stdout).toContain('\tworker-1 (agent of session 7c2b3c8e)\t');
    // --as @me is you: a person.
    expect(runInProcessSync(config, ['-l', 'L', 'update', '1', '--subject', 'A2', '--as', '@me'], { env: ENV }).code).toBe(0);
    expect(logOf(t(config, 'log', '1', '--json').stdout).at(-1)).toMatchObject({ who: { kind: 'person', name: 'alice' } });
    expect(runInProcessSync(config, ['-l', 'L', 'update', '1', '--subject', 'A3', '--as', ''], { env: ENV })).toMatchObject({
      code: 2,
      stderr: 'error: --as cannot be empty\n',
    });
  });

  it("with release's and update's batch and delete shapes: each change journaled as the agent, a failed one not at all", () => {
    const config = tempConfig();
    const journalLines = () => jsonLines(fs.readFileSync(path.join(dirOf(config), '.tasks-journal.jsonl'), 'utf8'));
    for (const s of ['A', 'B', 'C', 'D']) t(config, 'create', s);
    t(config, 'update', '1', '--owner', 'w', '--status', 'in_progress');
    t(config, 'update', '2', '--owner', 'w');
    const before = journalLines().length;
    const as = (...args: string[]) => t(config, ...args, '--as', 'lead', '--json');
    // release of a batch with a missing id: the item released is journaled as lead's, the missing one is an error item.
    const released = as('release', '1', '99');
    expect(released.code).toBe(3);
    expect(JSON.parse(released.stdout)).toMatchObject([
      { id: '1', ok: true, released: true },
      { id: '99', ok: false },
    ]);
    // release --owner: every task of w's, one item each.
    expect(JSON.parse(as('release', '--owner', 'w').stdout)).toMatchObject([{ id: '2', ok: true, released: true, previousOwner: 'w' }]);
    // A precondition that fails writes nothing and journals nothing.
    expect(as('update', '3', '--owner', 'x', '--if-owner', 'someone').code).toBe(4);
    // update --status deleted prints the delete item, and is journaled as lead's delete... by update.
    const deleted = as('update', '4', '--status', 'deleted');
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(JSON.parse(deleted.stdout)).toMatchObject({
      id: '4',
      ok: true,
      deleted: true,
      task: { id: '4', updatedAt: expect.any(String) },
    });
    const added = journalLines()
      .slice(before)
      .map((e) => ({
        command: e.command,
        actor: e.actor,
        changes: (e.changes as Array<{ id: string; op: string }>).map((c) => `${c.op} #${c.id}`),
      }));
    const lead = { kind: 'agent', name: 'lead' };
    expect(added).toEqual([
      { command: 'release', actor: lead, changes: ['update #1'] },
      { command: 'release', actor: lead, changes: ['update #2'] },
      { command: 'update', actor: lead, changes: ['delete #4'] },
    ]);
    // And log says so.
    expect(logOf(t(config, 'log', '--json').stdout).filter((e) => (e.who as { name: string }).name === 'lead')).toHaveLength(3);
  });

  it("release --gone reclaims an owner an agent set with tasks once its session is over; a person's stays", () => {
    const config = tempConfig();
    const proj = path.join(config, 'home', 'proj');
    fs.mkdirSync(proj, { recursive: true });
    const id = '32c74093-62c1-4786-af2a-9fc412ceedba';
    writeTranscript(config, { sessionId: id, cwd: proj, prompt: 'p' });
    fs.mkdirSync(dirOf(config, id), { recursive: true });
    for (const n of ['1', '2', '3']) writeTask(dirOf(config, id), task(n));
    const s = (...args: string[]) => runInProcessSync(config, ['-l', id, ...args], { env: ENV });
    s('update', '1', '--owner', 'bob', '--status', 'in_progress');
    s('claim', '2', '--as', 'worker-1', '--start');
    s('update', '3', '--owner', 'worker-2', '--as', 'lead');
    const dry = s('release', '--gone', '-n');
    expect(dry.stdout).not.toContain('bob');
    expect(dry.stdout).toContain('task #2 from worker-1');
    expect(dry.stdout).toContain('task #3 from worker-2');
    expect(s('release', '--gone').code).toBe(0);
    expect(file(config, '1', id)).toMatchObject({ owner: 'bob', status: 'in_progress' });
    expect(file(config, '2', id)).not.toHaveProperty('owner');
    expect(file(config, '3', id)).not.toHaveProperty('owner');
  });

  it('an agent that claimed from a session of its own is gone once that session is over, in a list no session owns', () => {
    const config = tempConfig();
    const proj = path.join(config, 'home', 'proj');
    fs.mkdirSync(proj, { recursive: true });
    const session = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
    writeTranscript(config, { sessionId: session, cwd: proj, prompt: 'work' });
    t(config, 'create', 'A');
    runInProcessSync(config, ['-l', 'L', 'claim', '1', '--as', 'w1', '--start'], { env: { ...ENV, CLAUDE_CODE_SESSION_ID: session } });
    const r = t(config, 'release', '--gone');
    expect(r.code, r.stderr).toBe(0);
    expect(file(config, '1')).toMatchObject({ status: 'pending' });
    expect(file(config, '1')).not.toHaveProperty('owner');
  });
});

describe('log piped, across lists, between two times', () => {
  it('tab-separated, never cut; --all adds a list column; --since/--until take ISO 8601 times and durations', () => {
    const config = tempConfig();
    const long = `Refactor ${'the session cache '.repeat(20)}end`;
    t(config, 'create', long);
    expect(runInProcessSync(config, ['-l', 'second-list', 'create', 'Other'], { env: ENV }).code).toBe(0);
    const piped = t(config, 'log');
    const [line] = piped.stdout.trimEnd().split('\n');
    expect(line?.split('\t')).toEqual([
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      '#1',
      'alice (person)',
      `created ${long}`,
    ]);
    const all = runInProcessSync(config, ['log', '--all'], { env: ENV });
    expect(all.code, all.stderr).toBe(0);
    expect(
      all.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t').slice(1, 3)),
    ).toEqual([
      ['L', '#1'],
      ['second-list', '#1'],
    ]);
    expect(logOf(runInProcessSync(config, ['log', '--all', '--json'], { env: ENV }).stdout).map((e) => e.list)).toEqual([
      'L',
      'second-list',
    ]);
    // Times: a future --since finds nothing; a past --until finds nothing; ISO and durations.
    // Durations count back from the run's clock, given here ($TASKS_NOW) as a time after
    // the create: how long the runs in between took (a loaded machine) moves nothing.
    const created = Date.parse(logOf(t(config, 'log', '--json').stdout)[0]?.at as string);
    const at = (ms: number, ...args: string[]) =>
      runInProcessSync(config, ['-l', 'L', ...args], { env: { ...ENV, TASKS_NOW: new Date(created + ms).toISOString() } });
    expect(at(0, 'log', '--since', new Date(created + 60_000).toISOString()).stdout).toBe('');
    expect(at(0, 'log', '--until', '2020-01-01').stdout).toBe('');
    // --until 1s: up to a second before now; the create is half a second old, then two seconds.
    expect(at(500, 'log', '--since', '2020-01-01T00:00Z', '--until', '1s').stdout).toBe('');
    expect(at(2000, 'log', '--since', '2020-01-01T00:00Z', '--until', '1s').stdout).toContain('\tcreated Refactor the session cache');
    expect(logOf(at(3_599_000, 'log', '--since', '1h', '--json').stdout)).toHaveLength(1);
    expect(logOf(at(3_601_000, 'log', '--since', '1h', '--json').stdout)).toHaveLength(0);
    // Nothing in the window: one document still, an empty array.
    expect(t(config, 'log', '--until', '2020-01-01', '--json')).toMatchObject({ code: 0, stdout: '[]\n', stderr: '' });
    expect(t(config, 'log', '--since', 'yesterday')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^error: invalid --since "yesterday": expected an ISO 8601 time/),
    });
  });
});

describe('no false alarms', () => {
  it('an owner removed with tasks (update --no-owner, release) is recorded, never unrecorded', () => {
    const config = tempConfig();
    t(config, 'create', 'A', '--owner', 'alice');
    t(config, 'create', 'B');
    t(config, 'claim', '2', '--as', 'w1', '--start');
    t(config, 'update', '1', '--no-owner');
    t(config, 'release', '2');
    const log = logOf(t(config, 'log', '--json').stdout);
    expect(log.filter((e) => e.op === 'unrecorded')).toEqual([]);
    // The owner removed: absent after, as in a task (no `new`, never null).
    expect(log.find((e) => e.task === '1' && e.op === 'update')?.changes).toEqual({ owner: { old: 'alice' } });
    expect(t(config, 'log').stdout).not.toContain('no record');
    expect(t(config, 'get', '1').stdout).not.toContain('no record shows');
  });

  it('what no record explains is an entry of its own with its likely cause: the app keeping a status, an unknown agent', () => {
    const config = tempConfig();
    const proj = path.join(config, 'home', 'proj');
    fs.mkdirSync(proj, { recursive: true });
    const session = '2d483082-5eaa-461a-bfdf-3e104fbfeff7';
    const start = Date.now() - 60_000;
    const transcript = writeTranscript(config, { sessionId: session, cwd: proj, start, end: start + 1000 });
    const at = (ms: number) => new Date(start + ms).toISOString();
    // A TaskCreate whose result says the app keeps statuses itself (docs/task-store.md section 13).
    fs.appendFileSync(
      transcript,
      `${[
        {
          type: 'assistant',
          timestamp: at(100),
          sessionId: session,
          message: { content: [{ type: 'tool_use', id: 'tu1', name: 'TaskCreate', input: { subject: 'S', description: 'd' } }] },
        },
        {
          type: 'user',
          timestamp: at(200),
          sessionId: session,
          toolUseResult: { task: { id: '1', subject: 'S' }, appKeepsStatuses: true },
          message: { content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'Task #1 created successfully: S' }] },
        },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n')}\n`,
    );
    fs.mkdirSync(dirOf(config, session), { recursive: true });
    writeTask(dirOf(config, session), task('1', { subject: 'S', description: 'd', status: 'completed' }));
    const log = logOf(runInProcessSync(config, ['-l', session, 'log', '--json'], { env: ENV }).stdout);
    expect(log.at(-1)).toMatchObject({
      op: 'unrecorded',
      task: '1',
      cause: 'app-status',
      changes: { status: { old: 'pending', new: 'completed' } },
    });
    expect(runInProcessSync(config, ['-l', session, 'log'], { env: ENV }).stdout).toContain(
      '(likely Claude Code keeping the status itself)',
    );
    // A list no known session wrote: its unrecorded change is an unknown agent's.
    t(config, 'create', 'X');
    fs.writeFileSync(path.join(dirOf(config), '1.json'), JSON.stringify(task('1', { subject: 'X', owner: 'ghost' }), null, 2));
    expect(logOf(t(config, 'log', '--json').stdout).at(-1)).toMatchObject({
      op: 'unrecorded',
      cause: 'unknown-agent',
      changes: { owner: { new: 'ghost' } },
    });
  });
});

describe('the JSON of log, undo and redo', () => {
  it('every output validates against its schema (docs/schemas/): real runs, dry runs, every kind of event and step', () => {
    const config = tempConfig();
    t(config, 'create', 'A', '--owner', 'bob');
    t(config, 'create', 'B', '--blocked-by', '1');
    t(config, 'update', '1', '--no-owner', '--meta', 'k=v');
    fs.writeFileSync(path.join(dirOf(config), '7.json'), 'not json');
    t(config, 'check', '--fix');
    t(config, 'delete', '2');
    fs.writeFileSync(
      path.join(dirOf(config), '1.json'),
      JSON.stringify(task('1', { subject: 'A', owner: 'hand', metadata: { k: 'v' } }), null, 2),
    );
    const later = Date.now() / 1000 + 30;
    fs.utimesSync(path.join(dirOf(config), '1.json'), later, later);
    const logged = t(config, 'log', '--json');
    expect(contractProblems('log', logged.stdout)).toEqual([]);
    const events = logOf(logged.stdout);
    expect(new Set(events.map((e) => e.op))).toEqual(new Set(['create', 'update', 'mark', 'aside', 'delete', 'unrecorded']));
    // No null stands for an absent field: it is a missing key, as in a task.
    for (const e of events)
      for (const c of Object.values(e.changes as Record<string, object>)) expect(Object.values(c)).not.toContain(null);
    const outputs = [
      t(config, 'undo', '--dry-run', '--json'),
      t(config, 'undo', '--json'),
      t(config, 'undo', '--json'),
      t(config, 'redo', '--dry-run', '--json'),
      t(config, 'redo', '--json'),
    ].map((r, i) => {
      expect(r.code, r.stderr).toBe(0);
      expect(contractProblems(i < 3 ? 'undo' : 'redo', r.stdout)).toEqual([]);
      return JSON.parse(r.stdout) as Record<string, unknown>;
    });
    // A dry run is the real run's shape plus dryRun.
    expect(Object.keys(outputs[0] as object).sort()).toEqual([...Object.keys(outputs[1] as object), 'dryRun'].sort());
    const steps = outputs.flatMap((o) => o.steps as Array<{ kind: string; task?: { updatedAt: string | null } }>);
    expect(new Set(steps.map((s) => s.kind))).toEqual(new Set(['create', 'update', 'rename']));
    // A task a step shows is in the one task shape: with its change time, null where a dry run would write it.
    const restored = (o: Record<string, unknown>) =>
      (o.steps as Array<{ kind: string; task?: { updatedAt: string | null } }>).filter((s) => s.kind === 'create');
    expect(restored(outputs[1] as Record<string, unknown>)[0]?.task?.updatedAt).toMatch(/^\d{4}-.*Z$/);
    expect(restored(outputs[0] as Record<string, unknown>)[0]?.task?.updatedAt).toBeNull();
  });

  it("a task a redo removes again carries its file's change time from before", () => {
    const config = tempConfig();
    t(config, 'create', 'A');
    t(config, 'create', 'B');
    t(config, 'undo');
    t(config, 'redo');
    const mtime = new Date(fs.statSync(path.join(dirOf(config), '2.json')).mtimeMs).toISOString();
    const dry = JSON.parse(t(config, 'undo', '--dry-run', '--json').stdout) as {
      steps: Array<{ kind: string; task: { updatedAt: string } }>;
    };
    expect(dry.steps).toMatchObject([{ kind: 'delete', task: { id: '2', updatedAt: mtime } }]);
    const real = JSON.parse(t(config, 'undo', '--json').stdout) as { steps: Array<{ kind: string; task: { updatedAt: string } }> };
    expect(real.steps).toMatchObject([{ kind: 'delete', task: { id: '2', updatedAt: mtime } }]);
    expect(exists(config, '2')).toBe(false);
  });
});
