/**
 * The board says what the commands say, from the same core: a task's history as `tasks log
 * <id>` (who, what, "(no record)" with its cause, the notes), undo and redo as `tasks undo`
 * and `tasks redo` (their dry runs, a refusal naming who moved a task on, the redo stack),
 * hooks' warnings and blocks as `tasks done` reports them (and `--no-hooks`), and the
 * release of gone owners as `tasks release --gone` (nothing gone while a sign of life
 * remains; the live session that asks for --force). Each as a command run in process and the
 * board's HTTP API, side by side.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type BoardRun, postAction, request, startBoard } from '../helpers/board.js';
import { FIXTURES, ROOT, readJson, tempConfig, writeTask } from '../helpers/cli.js';
import { hookWorld, script, settingsWith, writeSettings } from '../helpers/hooks.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { IDS, type SessionsWorld, sessionsWorld } from '../helpers/sessions-world.js';

const AGENT = path.join(ROOT, 'test', 'helpers', 'agent-task.mjs');
const PERSON = { USER: 'carol', LOGNAME: 'carol' };
/** Claude Code 2.1.328's own transcripts of a session and its fork (test/fixtures/.../fork/README.md). */
const FORK_PARENT = 'b662d4b4-5673-4d15-a9d3-6dd961fcbf2e';
const FORK = 'acebfa33-89bc-4c46-ae49-f0564e9fb3fa';

function agent(dir: string, ...args: string[]): void {
  const r = spawnSync(process.execPath, [AGENT, dir, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
}

function demo() {
  const config = tempConfig();
  const dir = path.join(config, 'tasks', 'demo');
  writeTask(dir, { id: '1', subject: 'Analyse code', description: '', status: 'completed', blocks: ['2'], blockedBy: [] });
  writeTask(dir, { id: '2', subject: 'Refactor auth', description: '', status: 'pending', blocks: [], blockedBy: ['1'] });
  writeTask(dir, { id: '3', subject: 'Run tests', description: '', status: 'pending', blocks: [], blockedBy: [] });
  return { config, dir };
}

/** A file changed a minute after any record of it (an agent's write, seen later than the records' slack). */
function laterThanAnyRecord(file: string): void {
  const later = (Date.now() + 60_000) / 1000;
  fs.utimesSync(file, later, later);
}

let boards: BoardRun[] = [];
let worlds: SessionsWorld[] = [];
afterEach(async () => {
  for (const b of boards) await b.stop('SIGKILL');
  for (const w of worlds) w.stop();
  boards = [];
  worlds = [];
});

async function board(config: string, env: Record<string, string | undefined> = {}, cwd?: string): Promise<BoardRun> {
  const b = await startBoard(config, [], { ...PERSON, ...env }, cwd);
  boards.push(b);
  return b;
}

async function api<T>(b: BoardRun, route: string): Promise<T> {
  const r = await request(b.port, `/${b.token}/api/${route}`);
  expect(r.status, r.body).toBe(200);
  return JSON.parse(r.body) as T;
}

const cli = (config: string, args: string[], cwd?: string) => runInProcessSync(config, args, { env: PERSON, ...(cwd ? { cwd } : {}) });
const lines = (text: string) => text.split('\n').filter((l) => l !== '');
/** stderr's lines without their "note: " / "warning: " / "error: " marks. */
const said = (stderr: string) => lines(stderr).map((l) => l.replace(/^(note|warning|error): /, ''));

type Preview = { lines: string[] } | { refused: string } | null;
interface ListJson {
  undo: { txn: string; command: string; actor: { kind: string; name: string } } | null;
  redo: { txn: string; command: string } | null;
}

describe('the board and the commands, side by side', () => {
  it("shows a task's history in the words of tasks log <id>: people, agents, and changes no record explains, with their cause", async () => {
    const { config, dir } = demo();
    const b = await board(config);
    expect((await postAction(b, { action: 'create', list: 'demo', subject: 'Write the docs' })).status).toBe(200);
    const start = await postAction(b, { action: 'start', list: 'demo', id: '4', expect: { status: 'pending', owner: null } });
    expect(start.status).toBe(200);
    // An agent no transcript is known of changes it, a minute later than any record: no record explains that.
    agent(dir, 'update', '4', JSON.stringify({ owner: 'worker-7' }));
    laterThanAnyRecord(path.join(dir, '4.json'));
    const history = await api<{ events: Array<{ who: { kind: string; text: string }; what: string }>; notes: string[] }>(
      b,
      'history?list=demo&task=4',
    );
    const log = cli(config, ['-l', 'demo', 'log', '4']);
    expect(log.code, log.stderr).toBe(0);
    // Piped: time, task, who, what.
    const expected = lines(log.stdout).map((l) => l.split('\t'));
    expect(history.events.map((e) => [e.who.text, e.what])).toEqual(expected.map((cols) => [cols[2], cols[3]]));
    expect(history.events.map((e) => e.who.kind)).toEqual(['person', 'person', 'unknown']);
    expect(history.events[0]?.who.text).toBe('carol (person)');
    expect(history.events[2]).toMatchObject({
      who: { text: '(no record)' },
      what: expect.stringMatching(/^changed with no record: owner/),
    });
    expect(history.notes).toEqual(said(log.stderr));
  });

  it("counts each change once after a fork, as tasks log does: the parent's list has its own, the fork's only the fork's", async () => {
    const config = tempConfig();
    fs.cpSync(path.join(FIXTURES, 'fork', 'projects'), path.join(config, 'projects'), { recursive: true });
    fs.cpSync(path.join(FIXTURES, 'fork', 'tasks'), path.join(config, 'tasks'), { recursive: true });
    const b = await board(config);
    for (const [list, task, count] of [
      [FORK_PARENT, '1', 2],
      [FORK_PARENT, '2', 2],
      [FORK, '1', 1],
    ] as const) {
      const history = await api<{ events: Array<{ who: { text: string }; what: string }>; notes: string[] }>(
        b,
        `history?list=${list}&task=${task}`,
      );
      const log = cli(config, ['-l', list, 'log', task]);
      expect(log.code, log.stderr).toBe(0);
      expect(history.events.map((e) => [e.who.text, e.what])).toEqual(lines(log.stdout).map((l) => l.split('\t').slice(2)));
      expect(history.events).toHaveLength(count);
      expect(history.notes).toEqual(said(log.stderr));
    }
  });

  it('undoes and redoes as tasks undo and tasks redo: their dry runs shown, each only while it is still the change shown', async () => {
    const { config, dir } = demo();
    const b = await board(config);
    expect((await postAction(b, { action: 'start', list: 'demo', id: '3', expect: { status: 'pending', owner: null } })).status).toBe(200);
    const before = await api<ListJson>(b, 'list?id=demo');
    expect(before.undo).toMatchObject({ command: 'start', actor: { kind: 'person', name: 'carol' } });
    expect(before.redo).toBeNull();
    const preview = await api<{ undo: Preview; redo: Preview }>(b, 'undo?list=demo');
    const dry = cli(config, ['-l', 'demo', 'undo', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(preview).toEqual({ undoTxn: before.undo?.txn, redoTxn: null, undo: { lines: lines(dry.stdout) }, redo: null });

    const undone = await postAction(b, { action: 'undo', list: 'demo', txn: before.undo?.txn });
    expect(undone.status, undone.body).toBe(200);
    const undoneBody = JSON.parse(undone.body) as { message: string; lines: string[] };
    expect(`${undoneBody.message}:`).toBe((lines(dry.stdout)[0] ?? '').replace(/^Would undo/, 'Undid'));
    expect(undoneBody.lines).toEqual(lines(dry.stdout).slice(1));
    expect((readJson(path.join(dir, '3.json')) as { status: string }).status).toBe('pending');

    const after = await api<ListJson>(b, 'list?id=demo');
    expect(after.undo).toBeNull();
    expect(after.redo).toMatchObject({ txn: before.undo?.txn, command: 'start' });
    const redoDry = cli(config, ['-l', 'demo', 'redo', '--dry-run']);
    expect((await api<{ redo: Preview }>(b, 'undo?list=demo')).redo).toEqual({ lines: lines(redoDry.stdout) });
    // Not the change redo would apply: refused, nothing written.
    const wrong = await postAction(b, { action: 'redo', list: 'demo', txn: 'not-it' });
    expect(wrong.status).toBe(409);
    expect(JSON.parse(wrong.body)).toMatchObject({ ok: false, error: { code: 'conflict', precondition: 'last-undo' } });
    expect((readJson(path.join(dir, '3.json')) as { status: string }).status).toBe('pending');
    const redone = await postAction(b, { action: 'redo', list: 'demo', txn: after.redo?.txn });
    expect(redone.status, redone.body).toBe(200);
    expect((readJson(path.join(dir, '3.json')) as { status: string }).status).toBe('in_progress');
    // The journal has them as the CLI's: tasks log names the person, tasks undo takes back the start again.
    expect(cli(config, ['-l', 'demo', 'undo', '--dry-run']).stdout).toBe(dry.stdout);
  });

  it('takes a carry back in both lists it changed, as tasks undo does, and applies it again with redo', async () => {
    const config = tempConfig();
    const from = path.join(config, 'tasks', 'from');
    const to = path.join(config, 'tasks', 'to');
    writeTask(from, { id: '1', subject: 'Build', description: '', status: 'pending', blocks: [], blockedBy: [] });
    writeTask(from, { id: '2', subject: 'Ship', description: '', status: 'pending', blocks: [], blockedBy: [] });
    writeTask(to, { id: '1', subject: 'Already here', description: '', status: 'pending', blocks: [], blockedBy: [] });
    const carried = cli(config, ['-l', 'to', 'carry', '--from', 'from']);
    expect(carried.code, carried.stderr).toBe(0);
    const files = () =>
      Object.fromEntries(
        ['from', 'to'].flatMap((l) =>
          fs
            .readdirSync(path.join(config, 'tasks', l))
            .filter((f) => /^\d+\.json$/.test(f))
            .map((f) => [`${l}/${f}`, fs.readFileSync(path.join(config, 'tasks', l, f), 'utf8')]),
        ),
      );
    const afterCarry = files();
    const b = await board(config);
    const { undo } = await api<ListJson>(b, 'list?id=to');
    expect(undo).toMatchObject({ command: 'carry', actor: { kind: 'person', name: 'carol' } });
    const dry = cli(config, ['-l', 'to', 'undo', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('In list from:');
    expect((await api<{ undo: Preview }>(b, 'undo?list=to')).undo).toEqual({ lines: lines(dry.stdout) });
    const undone = await postAction(b, { action: 'undo', list: 'to', txn: undo?.txn });
    expect(undone.status, undone.body).toBe(200);
    // Both lists as they were before the carry: the copies gone from "to", the marks gone from "from".
    expect(Object.keys(files()).sort()).toEqual(['from/1.json', 'from/2.json', 'to/1.json']);
    expect((readJson(path.join(from, '1.json')) as { metadata?: unknown }).metadata).toBeUndefined();
    const { redo } = await api<ListJson>(b, 'list?id=to');
    expect((await postAction(b, { action: 'redo', list: 'to', txn: redo?.txn })).status).toBe(200);
    expect(files()).toEqual(afterCarry);
  });

  it('says why an undo would be refused, and refuses it, naming what moved on and who, as tasks undo does', async () => {
    const { config, dir } = demo();
    const b = await board(config);
    expect((await postAction(b, { action: 'start', list: 'demo', id: '3', expect: { status: 'pending', owner: null } })).status).toBe(200);
    const { undo } = await api<ListJson>(b, 'list?id=demo');
    // Someone else's tasks command moves #3 on: the journal says who.
    expect(runInProcessSync(config, ['-l', 'demo', 'done', '3'], { env: { USER: 'dave', LOGNAME: 'dave' } }).code).toBe(0);
    const refusedByCli = cli(config, ['-l', 'demo', 'undo', '--txn', undo?.txn as string, '--dry-run']);
    expect(refusedByCli.code).toBe(4);
    const cliWords = said(refusedByCli.stderr)[0] ?? '';
    expect(cliWords).toMatch(/#3 status is "completed" now .*changed by dave with done at/);
    // The board's change shown is the start; the stack's top is dave's done: an undo of the start is refused.
    const stale = await postAction(b, { action: 'undo', list: 'demo', txn: undo?.txn });
    expect(stale.status).toBe(409);
    expect(JSON.parse(stale.body).error.message).toMatch(/^the last change is no longer the one shown \(done by dave came after it\)/);
    // Undoing dave's done, then the start: the start's undo is what the CLI would refuse after an agent's change.
    const top = await api<ListJson>(b, 'list?id=demo');
    expect(top.undo).toMatchObject({ command: 'done', actor: { name: 'dave' } });
    agent(dir, 'update', '3', JSON.stringify({ status: 'pending' }));
    laterThanAnyRecord(path.join(dir, '3.json'));
    const preview = await api<{ undo: Preview }>(b, 'undo?list=demo');
    const dry = cli(config, ['-l', 'demo', 'undo', '--dry-run']);
    expect(dry.code).toBe(4);
    expect(preview.undo).toEqual({ refused: said(dry.stderr)[0] });
    expect((preview.undo as { refused: string }).refused).toMatch(/#3 status is "pending" now .*\(changed by a change no record shows/);
    const refused = await postAction(b, { action: 'undo', list: 'demo', txn: top.undo?.txn });
    expect(refused.status).toBe(409);
    expect(JSON.parse(refused.body).error.message).toBe(said(dry.stderr)[0]);
    expect((readJson(path.join(dir, '3.json')) as { status: string }).status).toBe('pending');
  });

  it("reports hooks as tasks done does: a failing hook's warning, a block with its reason, and again without hooks", async () => {
    const world = hookWorld();
    for (const id of ['1', '2'])
      writeTask(world.list, { id, subject: `Ship ${id}`, description: '', status: 'in_progress', blocks: [], blockedBy: [] });
    const broken = script(world, 'broken.sh', 'echo "lint crashed" >&2; exit 1');
    writeSettings(world, 'user', settingsWith({ TaskCompleted: [{ command: broken }] }));
    const b = await board(world.config, {}, world.project);
    const done = await postAction(b, { action: 'done', list: 'l', id: '1', expect: { status: 'in_progress', owner: null } });
    expect(done.status).toBe(200);
    const byCli = runInProcessSync(world.config, ['-l', 'l', 'done', '2'], { cwd: world.project, env: PERSON });
    expect(byCli.code).toBe(0);
    const cliWarnings = said(byCli.stderr).filter((l) => l.includes('hook'));
    expect(cliWarnings).toHaveLength(1);
    expect(JSON.parse(done.body).warnings).toEqual([cliWarnings[0]?.replace('#2', '#1')]);

    // A hook that blocks: nothing written, its reason; then done without hooks, as --no-hooks does.
    writeTask(world.list, { id: '3', subject: 'Ship 3', description: '', status: 'in_progress', blocks: [], blockedBy: [] });
    const gate = script(world, 'gate.sh', 'echo "3 tests fail" >&2; exit 2');
    writeSettings(world, 'user', settingsWith({ TaskCompleted: [{ command: gate }] }));
    const blocked = await postAction(b, { action: 'done', list: 'l', id: '3', expect: { status: 'in_progress', owner: null } });
    expect(blocked.status).toBe(409);
    expect(JSON.parse(blocked.body).error).toEqual({
      code: 'hook',
      message: 'TaskCompleted hook blocked completing task #3: 3 tests fail',
      withoutHooks: true,
    });
    expect((readJson(path.join(world.list, '3.json')) as { status: string }).status).toBe('in_progress');
    const again = await postAction(b, { action: 'done', list: 'l', id: '3', expect: { status: 'in_progress', owner: null }, hooks: false });
    expect(again.status).toBe(200);
    expect(JSON.parse(again.body).notes).toEqual(['skipped 1 TaskCompleted hook for task #3 (without hooks, as asked)']);
    expect((readJson(path.join(world.list, '3.json')) as { status: string }).status).toBe('completed');
  });

  it('a TaskCreated hook that blocks a create: refused with its reason, and the task is gone again as the command leaves it', async () => {
    const world = hookWorld();
    writeTask(world.list, { id: '1', subject: 'First', description: '', status: 'pending', blocks: [], blockedBy: [] });
    const gate = script(world, 'gate.sh', 'echo "subjects need a ticket" >&2; exit 2');
    writeSettings(world, 'user', settingsWith({ TaskCreated: [{ command: gate }] }));
    const b = await board(world.config, {}, world.project);
    const r = await postAction(b, { action: 'create', list: 'l', subject: 'No ticket' });
    expect(r.status).toBe(409);
    expect(JSON.parse(r.body).error).toMatchObject({
      code: 'hook',
      message: 'TaskCreated hook blocked creating task #2: subjects need a ticket',
      withoutHooks: true,
    });
    expect(fs.existsSync(path.join(world.list, '2.json'))).toBe(false);
    const byCli = runInProcessSync(world.config, ['-l', 'l', 'create', 'No ticket either'], { cwd: world.project, env: PERSON });
    expect(byCli.code).toBe(4);
    expect(said(byCli.stderr)[0]).toBe('TaskCreated hook blocked creating task #3: subjects need a ticket');
  });

  it('releases gone owners as tasks release --gone: its dry run, no --force for a live session that cannot see the list, nothing while one of the list is', async () => {
    const w = sessionsWorld();
    worlds.push(w);
    const b = await board(w.config, {}, w.here);
    const webOld = path.join(w.config, 'tasks', IDS.webOld);
    // The list /clear left: its session is over; the session its process went on as, live in that folder, cannot see it.
    const dry = cli(w.config, ['-l', IDS.webOld, 'release', '--gone', '-n'], w.here);
    expect(dry.code, dry.stderr).toBe(0);
    const preview = await api<{
      why: string;
      targets: Array<{ id: string; owner: string; status: string }>;
      live: string | null;
      none: string | null;
    }>(b, `gone?list=${IDS.webOld}`);
    expect(lines(dry.stdout)).toEqual(
      preview.targets.map(
        (t) => `Would release task #${t.id} from ${t.owner} (${t.status} -> pending; ${preview.why}): Fix the cookie race`,
      ),
    );
    expect(preview.why).toBe('session 7f1c9e22 was cleared');
    expect(said(dry.stderr)).toEqual([]);
    expect(preview.live).toBeNull();
    const forced = await postAction(b, { action: 'release-gone', list: IDS.webOld, ids: ['2'], force: false });
    expect(forced.status, forced.body).toBe(200);
    expect(JSON.parse(forced.body).lines).toEqual(['Released task #2 from tester (in_progress -> pending): Fix the cookie race']);
    expect(readJson(path.join(webOld, '2.json'))).toMatchObject({ status: 'pending' });
    expect(readJson(path.join(webOld, '2.json'))).not.toHaveProperty('owner');
    const log = cli(w.config, ['-l', IDS.webOld, 'log', '2'], w.here);
    expect(lines(log.stdout).at(-1)?.split('\t').slice(2)).toEqual([
      'carol (person)',
      'status in_progress → pending, owner tester → (none)',
    ]);

    // The api list's session is live: nothing is gone, as the command says.
    const alive = cli(w.config, ['-l', IDS.api, 'release', '--gone', '-n'], w.here);
    const none = await api<{ targets: unknown[]; none: string }>(b, `gone?list=${IDS.api}`);
    expect(none.targets).toEqual([]);
    expect(said(alive.stderr)).toEqual([none.none]);
    expect(none.none).toBe('no owner here is gone: session 2d483082 is live; nothing released');
    const refused = await postAction(b, { action: 'release-gone', list: IDS.api, ids: ['2'], force: true });
    expect(refused.status).toBe(409);
    expect(readJson(path.join(w.config, 'tasks', IDS.api, '2.json'))).toMatchObject({ owner: 'coder', status: 'in_progress' });
  });
});
