/**
 * Carry and restore from the board, side by side with `tasks carry` and `tasks restore`:
 * the board's previews are the commands' dry runs, line for line; its refusals are
 * theirs (a live agent on the source, a target session that is no longer live, a list
 * nothing records); its changes are journaled as the person's, one txn, so that `tasks
 * undo` from the command line takes them back whole. The board is a process of its own
 * (its HTTP API and its reading of the sessions), the commands run in process beside it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CarryPreviewPayload } from '../../src/board/board-protocol.js';
import { type BoardRun, postAction, request, startBoard } from '../helpers/board.js';
import { readJson } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { writeLiveSession, writeTranscript } from '../helpers/session-files.mjs';
import { GONE_SESSION as GONE, IDS, type SessionsWorld, sessionsWorld, writeGoneSession } from '../helpers/sessions-world.js';

const PERSON = { USER: 'carol', LOGNAME: 'carol' };

/** A second live session in the api project, no task yet: a target for the api list's work. */
const SECOND = '8b8b8b8b-2222-4c4c-8d8d-000000000008';

let boards: BoardRun[] = [];
let worlds: SessionsWorld[] = [];
let procs: ChildProcess[] = [];
afterEach(async () => {
  for (const b of boards) await b.stop('SIGKILL');
  for (const w of worlds) w.stop();
  for (const p of procs) p.kill('SIGKILL');
  boards = [];
  worlds = [];
  procs = [];
});

/** A live session (its process a stand-in that runs) in `cwd`, idle at its prompt, with no task yet. */
function liveSession(config: string, sessionId: string, cwd: string): void {
  const p = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
  procs.push(p);
  writeTranscript(config, { sessionId, cwd, prompt: 'take over', start: Date.now() - 60_000, end: Date.now() - 30_000, todos: false });
  writeLiveSession(config, { pid: p.pid as number, sessionId, cwd, status: 'idle', name: 'second' });
}

async function setup(): Promise<{ w: SessionsWorld; b: BoardRun }> {
  const w = sessionsWorld();
  worlds.push(w);
  const b = await startBoard(w.config, [], PERSON, w.here);
  boards.push(b);
  return { w, b };
}

async function api<T>(b: BoardRun, route: string): Promise<T> {
  const r = await request(b.port, `/${b.token}/api/${route}`);
  expect(r.status, r.body).toBe(200);
  return JSON.parse(r.body) as T;
}

const cli = (w: SessionsWorld, args: string[]) => runInProcessSync(w.config, args, { env: PERSON, cwd: w.here });
const lines = (text: string) => text.split('\n').filter((l) => l !== '');
/** stderr's lines without their "note: " / "warning: " / "error: " marks. */
const said = (stderr: string) => lines(stderr).map((l) => l.replace(/^(note|warning|error): /, ''));
const listDir = (w: SessionsWorld, id: string) => path.join(w.config, 'tasks', id);

type CarryPreview = CarryPreviewPayload;

describe('carry from the board', () => {
  it("offers a cleared list's work to the session /clear went on as, previews it as carry --dry-run, carries it as the person; tasks undo takes it back in both lists", async () => {
    const { w, b } = await setup();
    const preview = await api<CarryPreview>(b, `carry?list=${IDS.webOld}`);
    expect(preview.targets.map((t) => [t.sessionId, t.list, t.why])).toEqual([[IDS.webNew, IDS.webNew, 'cleared']]);
    expect(preview.targets[0]?.label).toMatch(/^session 9a0b1c2d \(live, idle\) · ~\//);
    const dry = cli(w, ['--session', IDS.webNew, 'carry', '--from', IDS.webOld, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(preview.lines).toEqual(lines(dry.stdout));
    expect(preview.lines).toEqual([
      expect.stringMatching(/^carry {4}7f1c9e22 #2 -> #1 {2}pending {6}Fix the cookie race \(owner tester cleared/),
    ]);
    expect([...preview.warnings, ...preview.notes]).toEqual(said(dry.stderr));
    expect(preview).toMatchObject({ count: 1, live: null, none: null });
    // The dry run wrote nothing.
    expect(fs.existsSync(listDir(w, IDS.webNew))).toBe(false);

    const r = await postAction(b, { action: 'carry', list: IDS.webOld, to: IDS.webNew, force: false });
    expect(r.status, r.body).toBe(200);
    const done = JSON.parse(r.body);
    expect(done.message).toBe(
      'carried 1 task from the list of session 7f1c9e22 into the list of session 9a0b1c2d (#1); marked there as carried (metadata.carriedTo); left 1 completed',
    );
    expect(done.lines).toEqual([expect.stringMatching(/^carried {2}7f1c9e22 #2 -> #1 /)]);
    expect(readJson(path.join(listDir(w, IDS.webNew), '1.json'))).toMatchObject({
      subject: 'Fix the cookie race',
      status: 'pending',
      metadata: { carriedFrom: { list: IDS.webOld, id: '2' } },
    });
    expect(readJson(path.join(listDir(w, IDS.webOld), '2.json'))).toMatchObject({ metadata: { carriedTo: { list: IDS.webNew, id: '1' } } });

    // Journaled as the person, under carry, in both lists.
    for (const list of [IDS.webNew, IDS.webOld]) {
      const log = cli(w, ['-l', list, 'log', '--json']);
      expect(log.code, log.stderr).toBe(0);
      const last = JSON.parse(log.stdout).at(-1);
      expect(last).toMatchObject({ command: 'carry', who: { kind: 'person', name: 'carol' } });
    }
    // Nothing left to carry: the board says so as the command does.
    const again = await api<CarryPreview>(b, `carry?list=${IDS.webOld}`);
    const dryAgain = cli(w, ['--session', IDS.webNew, 'carry', '--from', IDS.webOld, '--dry-run']);
    expect(again.count).toBe(0);
    expect(again.notes).toEqual(said(dryAgain.stderr));

    // One undo from the command line, in the list carried into, takes it back in both.
    const undo = cli(w, ['-l', IDS.webNew, 'undo']);
    expect(undo.code, undo.stderr).toBe(0);
    expect(fs.existsSync(path.join(listDir(w, IDS.webNew), '1.json'))).toBe(false);
    expect(readJson(path.join(listDir(w, IDS.webOld), '2.json'))).not.toHaveProperty('metadata.carriedTo');
  });

  it("a live agent's list: the preview says a real run needs a confirmation, the carry is refused as the command refuses it, and made once confirmed (--force)", async () => {
    const w = sessionsWorld();
    worlds.push(w);
    liveSession(w.config, SECOND, w.dirs.api);
    const b = await startBoard(w.config, [], PERSON, w.here);
    boards.push(b);
    const preview = await api<CarryPreview>(b, `carry?list=${IDS.api}`);
    expect(preview.targets.map((t) => [t.sessionId, t.why])).toEqual([[SECOND, 'project']]);
    const dry = cli(w, ['--session', SECOND, 'carry', '--from', IDS.api, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(preview.lines).toEqual(lines(dry.stdout));
    expect(preview.live).not.toBeNull();
    // The dry run's note for --force is the board's `live`: the rest of what it says, the board says too.
    expect(said(dry.stderr)).toContain(
      `a real run needs --force: the list of session 2d483082 is in use by a live agent (${preview.live})`,
    );
    expect([...preview.warnings, ...preview.notes]).toEqual(said(dry.stderr).filter((l) => !l.startsWith('a real run needs --force')));
    const before = fs.readFileSync(path.join(listDir(w, IDS.api), '2.json'), 'utf8');
    const refused = await postAction(b, { action: 'carry', list: IDS.api, to: SECOND, force: false });
    expect(refused.status).toBe(409);
    expect(fs.readFileSync(path.join(listDir(w, IDS.api), '2.json'), 'utf8')).toBe(before);
    expect(fs.existsSync(listDir(w, SECOND))).toBe(false);
    const forced = await postAction(b, { action: 'carry', list: IDS.api, to: SECOND, force: true });
    expect(forced.status, forced.body).toBe(200);
    expect(readJson(path.join(listDir(w, IDS.api), '2.json'))).toMatchObject({ metadata: { carriedTo: { list: SECOND } } });
    expect(fs.readdirSync(listDir(w, SECOND)).filter((f) => f.endsWith('.json')).length).toBe(preview.count);
  });

  it("refuses as tasks carry refuses: a live agent's list, a target session no longer live; nothing written", async () => {
    const { w, b } = await setup();
    const before = fs.readFileSync(path.join(listDir(w, IDS.api), '2.json'), 'utf8');
    // The api session is live and busy: the command refuses without --force, exit 4, in these words.
    const command = cli(w, ['--session', IDS.webNew, 'carry', '--from', IDS.api]);
    expect(command.code).toBe(4);
    const refused = await postAction(b, { action: 'carry', list: IDS.api, to: IDS.webNew, force: false });
    expect(refused.status).toBe(409);
    expect(said(command.stderr)[0]).toBe(JSON.parse(refused.body).error.message);
    expect(JSON.parse(refused.body).error.message).toMatch(
      /^the list of session 2d483082 is in use by a live agent \(.+\): carrying would take its work; nothing carried/,
    );
    expect(fs.readFileSync(path.join(listDir(w, IDS.api), '2.json'), 'utf8')).toBe(before);
    expect(fs.existsSync(listDir(w, IDS.webNew))).toBe(false);
    // The page offers the list's own project's live sessions only: another project's is said so.
    const preview = await api<CarryPreview>(b, `carry?list=${IDS.api}&to=${IDS.webNew}`);
    expect(preview.target).toBeNull();
    expect(preview.none).toMatch(/^session 9a0b1c2d runs in another project: /);
    // A session that is over is no target.
    const over = await api<CarryPreview>(b, `carry?list=${IDS.webOld}&to=${IDS.docs}`);
    expect(over.none).toBe('session c0ffee00 is not live now: no agent would take the work up there');

    // The old web session is over (cleared): no agent there would see the work.
    const dead = await postAction(b, { action: 'carry', list: IDS.webOld, to: IDS.webOld, force: false });
    expect(dead.status).toBe(409);
    expect(JSON.parse(dead.body).error.message).toBe(
      'session 7f1c9e22 is not live now (cleared → 9a0b1c2d): no agent would take the work up there; nothing carried',
    );
    // A list with no live session to take its work: said, nothing offered.
    const none = await api<CarryPreview>(b, 'carry?list=release-42');
    expect(none.targets).toEqual([]);
    expect(none.none).toMatch(/^no live session to carry to/);
    // Bad input: a one-line usage error.
    const bad = await postAction(b, { action: 'carry', list: IDS.webOld, to: 'nobody', force: false });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.message).toBe('to must be a session id');
  });
});

describe('restore from the board', () => {
  it('lists the gone lists as tasks lists --all does, previews a restore as restore --dry-run, restores it as the person; tasks undo takes it back', async () => {
    const w = sessionsWorld();
    worlds.push(w);
    writeGoneSession(w.config, w.dirs.api);
    const b = await startBoard(w.config, [], PERSON, w.here);
    boards.push(b);
    const all = cli(w, ['lists', '--all', '--json']);
    const goneRows = (JSON.parse(all.stdout) as Array<{ id: string; kind: string }>).filter((r) => r.kind === 'gone').map((r) => r.id);
    expect(goneRows).toContain(GONE);
    const gone = await api<{ lists: Array<{ id: string; total: number; counts: Record<string, number> }> }>(b, 'gone-lists');
    // The same lists, in the same order (newest first).
    expect(gone.lists.map((l) => l.id)).toEqual(goneRows);
    expect(gone.lists.find((l) => l.id === GONE)).toMatchObject({ total: 2, counts: { pending: 1, in_progress: 0, completed: 1 } });

    const preview = await api<{ lines: string[]; summary: string; count: number; none: string | null }>(b, `restore?list=${GONE}`);
    const dry = cli(w, ['-l', GONE, 'restore', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(preview.lines).toEqual(lines(dry.stdout));
    expect([preview.summary]).toEqual(said(dry.stderr));
    expect(preview).toMatchObject({ count: 2, none: null });
    expect(fs.existsSync(listDir(w, GONE))).toBe(false);

    const r = await postAction(b, { action: 'restore', list: GONE });
    expect(r.status, r.body).toBe(200);
    expect(JSON.parse(r.body).message).toMatch(/^restored 2 tasks into the list of session 6a6a6a6a \(#1-#2\) from 1 transcript/);
    expect(readJson(path.join(listDir(w, GONE), '1.json'))).toMatchObject({ subject: 'Write the migration', status: 'completed' });
    expect(readJson(path.join(listDir(w, GONE), '2.json'))).toMatchObject({ subject: 'Run it on staging', status: 'pending' });
    const log = cli(w, ['-l', GONE, 'log', '--json']);
    expect(JSON.parse(log.stdout).at(-1)).toMatchObject({ command: 'restore', who: { kind: 'person', name: 'carol' } });

    const undo = cli(w, ['-l', GONE, 'undo']);
    expect(undo.code, undo.stderr).toBe(0);
    const left = fs.existsSync(listDir(w, GONE)) ? fs.readdirSync(listDir(w, GONE)).filter((f) => /^\d+\.json$/.test(f)) : [];
    expect(left).toEqual([]);
  });

  it('refuses a list nothing records, as tasks restore does; nothing written', async () => {
    const { w, b } = await setup();
    const command = cli(w, ['-l', 'never-was', 'restore']);
    expect(command.code).toBe(3);
    const r = await postAction(b, { action: 'restore', list: 'never-was' });
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body).error.message).toBe(said(command.stderr)[0]);
    expect(fs.existsSync(listDir(w, 'never-was'))).toBe(false);
  });

  it('restores from the sessions named (restore --from): the preview and the restore as the command makes them; bad input is a one-line 400', async () => {
    const { w, b } = await setup();
    writeGoneSession(w.config, w.dirs.api);
    // --from a session that records nothing of the list: refused as the command refuses it, nothing written.
    const none = cli(w, ['-l', GONE, 'restore', '--from', IDS.api.slice(0, 8)]);
    expect(none.code).toBe(3);
    const preview = await api<{ from: string[]; none: string | null; sources: Array<{ sessionId: string; why: string }> }>(
      b,
      `restore?list=${GONE}&from=${IDS.api.slice(0, 8)}`,
    );
    expect(preview.none).toBe(said(none.stderr)[0]);
    // The prefix named is the session it names; the list's own session stays offered.
    expect(preview.from).toEqual([IDS.api]);
    expect(preview.sources.map((s) => [s.sessionId, s.why])).toEqual([
      [IDS.api, 'named'],
      [GONE, 'own'],
    ]);
    const refused = await postAction(b, { action: 'restore', list: GONE, from: [IDS.api.slice(0, 8)] });
    expect(refused.status).toBe(404);
    expect(JSON.parse(refused.body).error.message).toBe(said(none.stderr)[0]);
    expect(fs.existsSync(listDir(w, GONE))).toBe(false);
    // A session no transcript has: the command's words.
    const unknown = cli(w, ['-l', GONE, 'restore', '--from', 'ffff', '--dry-run']);
    expect((await api<{ none: string }>(b, `restore?list=${GONE}&from=ffff`)).none).toBe(said(unknown.stderr)[0]);
    // The list's own session named: restored as `tasks restore --from` restores it.
    const dry = cli(w, ['-l', GONE, 'restore', '--from', GONE.slice(0, 8), '--dry-run']);
    expect((await api<{ lines: string[] }>(b, `restore?list=${GONE}&from=${GONE.slice(0, 8)}`)).lines).toEqual(lines(dry.stdout));
    const done = await postAction(b, { action: 'restore', list: GONE, from: [GONE.slice(0, 8)] });
    expect(done.status, done.body).toBe(200);
    expect(readJson(path.join(listDir(w, GONE), '2.json'))).toMatchObject({ subject: 'Run it on staging', status: 'pending' });
    // The page names sessions only: never a transcript file, nor anything that is not a session id or prefix.
    for (const from of ['/etc/passwd', '../x.jsonl', '', 'zz']) {
      const get = await request(b.port, `/${b.token}/api/restore?list=${GONE}&from=${encodeURIComponent(from)}`);
      expect(get.status, from).toBe(400);
      expect(JSON.parse(get.body).error.message).toBe('from: each must be a session id or a prefix of one');
      const post = await postAction(b, { action: 'restore', list: GONE, from: [from] });
      expect(post.status, from).toBe(400);
    }
    expect((await postAction(b, { action: 'restore', list: GONE, from: 'ffff' })).status).toBe(400);
  });
});
