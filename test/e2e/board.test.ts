/**
 * `tasks board` serving: the board is the built binary, a server the test starts and talks
 * to over HTTP; the commands run beside it in process. Its limits on a slow or oversized
 * request (a 10 s wait for a 408) are in test/slow/board-limits.test.ts.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CostPayload } from '../../src/board/board-protocol.js';
import { type BoardEvent, type BoardRun, openEvents, postAction, request, startBoard } from '../helpers/board.js';
import { ROOT, readJson, stderrText, tempConfig, writeTask } from '../helpers/cli.js';
import { CostTranscript, writeTaskFile } from '../helpers/cost-transcript.js';
import { hookWorld, logLines, script, settingsWith, writeSettings } from '../helpers/hooks.js';
import { runInProcessSync } from '../helpers/in-process.js';

const AGENT = path.join(ROOT, 'test', 'helpers', 'agent-task.mjs');

function demo() {
  const config = tempConfig();
  const dir = path.join(config, 'tasks', 'demo');
  writeTask(dir, { id: '1', subject: 'Analyse code', description: '', status: 'completed', blocks: ['2'], blockedBy: [] });
  writeTask(dir, { id: '2', subject: 'Refactor auth', description: '', status: 'pending', blocks: [], blockedBy: ['1'] });
  writeTask(dir, { id: '3', subject: 'Run tests', description: '', status: 'pending', blocks: [], blockedBy: [] });
  return { config, dir };
}

function agent(dir: string, ...args: string[]): void {
  const r = spawnSync(process.execPath, [AGENT, dir, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
}

/** Lock directories left in a list folder (there must be none once the board has stopped). */
function locksIn(dir: string): string[] {
  return fs.readdirSync(dir).filter((n) => n.endsWith('.lock') && fs.statSync(path.join(dir, n)).isDirectory());
}

/** Where the page `board --open` writes sends the browser (its meta refresh). */
function redirectOf(file: string): string {
  const m = /<meta http-equiv="refresh" content="0;url=([^"]+)">/.exec(fs.readFileSync(file, 'utf8'));
  return (m?.[1] ?? '').replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c)));
}

/** Another local user to be, as a campaign on a shared machine is: root can become `nobody` with runuser. */
const asNobody = process.getuid?.() === 0 && spawnSync('runuser', ['-u', 'nobody', '--', 'true']).status === 0;

/** An event stream read as a tab reads it: `next(event)` waits for the next event of that name (and passing `test`). */
function eventStream(port: number, url: string) {
  type Doc = Record<string, unknown> & { exists?: boolean; tasks: Array<{ id: string }> };
  const seen: Array<{ event: string; data: Doc }> = [];
  let buffer = '';
  let wake: () => void = () => undefined;
  const req = http.get(
    { host: '127.0.0.1', port, path: url, headers: { Host: `127.0.0.1:${port}`, Origin: `http://127.0.0.1:${port}` } },
    (res) => {
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        buffer += d;
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event !== undefined && data !== undefined) seen.push({ event, data: JSON.parse(data) as Doc });
        }
        wake();
      });
    },
  );
  req.on('error', () => undefined);
  return {
    async next(event: string | string[], test: (doc: Doc) => boolean = () => true, ms = 20_000): Promise<Doc> {
      const end = Date.now() + ms;
      const wanted = (name: string) => (Array.isArray(event) ? event.includes(name) : name === event);
      for (;;) {
        const at = seen.findIndex((e) => wanted(e.event) && test(e.data));
        if (at !== -1) return (seen.splice(0, at + 1).pop() as { data: Doc }).data;
        if (Date.now() > end) throw new Error(`no ${event} event within ${ms} ms; seen: ${seen.map((e) => e.event).join(', ')}`);
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 100);
        });
      }
    },
    close: () => req.destroy(),
  };
}

let boards: BoardRun[] = [];
afterEach(async () => {
  for (const b of boards) await b.stop('SIGKILL');
  boards = [];
});

async function board(config: string, args: string[] = [], env: Record<string, string | undefined> = {}): Promise<BoardRun> {
  const b = await startBoard(config, args, env);
  boards.push(b);
  return b;
}

describe('tasks board: serving', () => {
  it('prints its URL as JSON, serves the page with a strict policy, and stops on SIGTERM with 0', async () => {
    const { config } = demo();
    const b = await board(config);
    expect(b.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{32}\/$/);
    const page = await request(b.port, `/${b.token}/`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<script src="board.js" defer></script>');
    expect(page.body).not.toMatch(/<script>|\son\w+=/);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['access-control-allow-origin']).toBeUndefined();
    const js = await request(b.port, `/${b.token}/board.js`);
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toMatch(/^text\/javascript/);
    const list = JSON.parse((await request(b.port, `/${b.token}/api/list?id=demo`)).body) as {
      tasks: Array<{ id: string }>;
      facts: Record<string, { blocked: boolean; ready: boolean }>;
    };
    expect(list.tasks.map((t) => t.id)).toEqual(['1', '2', '3']);
    expect(list.facts['2']).toMatchObject({ blocked: false, ready: true });
    const ended = await b.stop('SIGTERM');
    expect(ended.code).toBe(0);
    expect(ended.stderr).toBe('');
  });

  it('exits 130 on Ctrl-C (SIGINT)', async () => {
    const { config } = demo();
    const b = await board(config);
    const ended = await b.stop('SIGINT');
    expect(ended.code).toBe(130);
  });

  it('refuses a request without the token, or with another one (404, nothing else said)', async () => {
    const { config } = demo();
    const b = await board(config);
    // One character changed: never to the one it already is (a random token can end in "x").
    const other = `${b.token.slice(0, -1)}${b.token.endsWith('x') ? 'y' : 'x'}`;
    for (const p of ['/', '/api/overview', `/${other}/`, `/${other}/api/overview`, '/%E0%A4%A/', `/x/${b.token}/`]) {
      const r = await request(b.port, p);
      expect(r.status, p).toBe(404);
      expect(r.body).toBe('not found\n');
    }
  });

  it('refuses a foreign Host (DNS rebinding), even with the token', async () => {
    const { config } = demo();
    const b = await board(config);
    for (const host of [
      `evil.example:${b.port}`,
      `127.0.0.1.nip.io:${b.port}`,
      `127.0.0.1:${b.port + 1}`,
      '127.0.0.1',
      `10.0.0.1:${b.port}`,
    ]) {
      const r = await request(b.port, `/${b.token}/api/overview`, { headers: { Host: host } });
      expect(r.status, host).toBe(403);
      expect(r.body).not.toContain('"lists"');
    }
    for (const host of [`localhost:${b.port}`, `[::1]:${b.port}`]) {
      expect((await request(b.port, `/${b.token}/api/overview`, { headers: { Host: host } })).status, host).toBe(200);
    }
  });

  it('refuses actions from another origin, without an Origin, or not as JSON; the files stay as they were', async () => {
    const { config, dir } = demo();
    const b = await board(config);
    const before = fs.readFileSync(path.join(dir, '3.json'), 'utf8');
    const start = { action: 'start', list: 'demo', id: '3', expect: { status: 'pending', owner: null } };
    const foreign = await postAction(b, start, { Origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    const crossSite = await postAction(b, start, { 'Sec-Fetch-Site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    const noOrigin = await request(b.port, `/${b.token}/api/action`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(start),
    });
    expect(noOrigin.status).toBe(403);
    const form = await postAction(b, start, { 'Content-Type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    const events = await request(b.port, `/${b.token}/api/events?list=demo`, { headers: { Origin: 'http://evil.example' } });
    expect(events.status).toBe(403);
    expect(fs.readFileSync(path.join(dir, '3.json'), 'utf8')).toBe(before);
    for (const r of [foreign, crossSite, noOrigin, form, events]) expect(r.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers a list whose folder is a FIFO or a link to /dev/zero as not a list, with no tasks; live, and again once it is a folder', async () => {
    const { config, dir } = demo();
    const tasksDir = path.dirname(dir);
    spawnSync('mkfifo', [path.join(tasksDir, 'fifo')]);
    fs.symlinkSync('/dev/zero', path.join(tasksDir, 'zero'));
    // A plain file where a list's folder would be (a list copied as one file, say).
    fs.writeFileSync(path.join(tasksDir, 'plain'), '{"id":"1"}');
    const b = await board(config);
    const listOf = async (id: string) => {
      const r = await request(b.port, `/${b.token}/api/list?id=${id}`);
      return { status: r.status, doc: r.status === 200 ? (JSON.parse(r.body) as { tasks: unknown[]; unreadable: string | null }) : r.body };
    };
    for (const id of ['fifo', 'zero']) {
      expect(await listOf(id)).toEqual({
        status: 200,
        doc: expect.objectContaining({ exists: false, tasks: [], unreadable: `${path.join(tasksDir, id)} is not a folder` }),
      });
    }
    expect((await listOf('demo')).doc).toMatchObject({ exists: true, unreadable: null });
    // What a tab on the list asks besides the list itself: each answered, none an internal error.
    for (const id of ['fifo', 'zero']) {
      const ask = async (route: string) => {
        const r = await request(b.port, `/${b.token}/api/${route}`);
        return [route, r.status, r.status === 200 ? JSON.parse(r.body) : r.body];
      };
      const notFolder = `${path.join(tasksDir, id)} is not a folder`;
      expect(await ask(`cost?list=${id}`)).toEqual([`cost?list=${id}`, 200, expect.objectContaining({ tasks: {}, error: notFolder })]);
      expect(await ask(`gone?list=${id}`)).toEqual([`gone?list=${id}`, 200, { why: null, targets: [], live: null, none: notFolder }]);
      for (const route of [`undo?list=${id}`, `carry?list=${id}`, `restore?list=${id}`, `history?list=${id}&task=1`])
        expect((await ask(route)).slice(0, 2)).toEqual([route, 200]);
    }
    // Nothing is tried there: every action is refused as the list is (not found: no list is there; not an I/O failure or "no such task").
    for (const action of [
      { action: 'create', list: 'fifo', subject: 'x' },
      { action: 'start', list: 'zero', id: '1', expect: { status: 'pending', owner: null } },
      { action: 'undo', list: 'fifo', txn: 'abc' },
      { action: 'create', list: 'plain', subject: 'x' },
      { action: 'done', list: 'plain', id: '1', expect: { status: 'in_progress', owner: null } },
      { action: 'release-gone', list: 'plain', ids: ['1'] },
    ]) {
      const r = await postAction(b, action);
      expect([r.status, JSON.parse(r.body)]).toEqual([
        404,
        { ok: false, error: { code: 'not_found', message: `${path.join(tasksDir, action.list)} is not a folder; nothing written` } },
      ]);
    }
    expect(fs.readFileSync(path.join(tasksDir, 'plain'), 'utf8')).toBe('{"id":"1"}');
    // A tab follows demo; its folder is replaced by a FIFO, then by a link to /dev/zero, then made a list again.
    const stream = eventStream(b.port, `/${b.token}/api/events?list=demo`);
    try {
      expect((await stream.next('list')).tasks).toHaveLength(3);
      fs.rmSync(dir, { recursive: true });
      spawnSync('mkfifo', [dir]);
      // Events of the folder as it was (or gone, between the two steps) may come first: the one that reports the FIFO.
      const notFolder = `${dir} is not a folder`;
      expect(await stream.next('list', (l) => l.unreadable === notFolder)).toMatchObject({
        exists: false,
        tasks: [],
        unreadable: notFolder,
      });
      expect((await listOf('demo')).doc).toMatchObject({ tasks: [], unreadable: `${dir} is not a folder` });
      fs.rmSync(dir);
      fs.symlinkSync('/dev/zero', dir);
      await new Promise((r) => setTimeout(r, 2500));
      expect((await listOf('demo')).doc).toMatchObject({ tasks: [], unreadable: `${dir} is not a folder` });
      fs.rmSync(dir);
      writeTask(dir, { id: '7', subject: 'Back again', description: '', status: 'pending', blocks: [], blockedBy: [] });
      expect(await stream.next('list', (l) => l.exists === true)).toMatchObject({ exists: true, unreadable: null, tasks: [{ id: '7' }] });
    } finally {
      stream.close();
    }
    const ended = await b.stop();
    expect(ended.code).toBe(0);
    expect(ended.stderr).toBe('');
  });

  it("stays up when a followed list folder is replaced by a FIFO or a file before it handles the folder's events", async () => {
    const { config, dir } = demo();
    const b = await board(config);
    const stream = eventStream(b.port, `/${b.token}/api/events?list=demo`);
    try {
      expect((await stream.next('list')).tasks).toHaveLength(3);
      for (const make of [() => spawnSync('mkfifo', [dir]), () => fs.writeFileSync(dir, 'not a list')]) {
        // Stopped, the board handles the removal's events only once the new entry is there
        // (as a board on a busy machine may): Node's own recursive watch threw then.
        process.kill(b.child.pid as number, 'SIGSTOP');
        try {
          fs.rmSync(dir, { recursive: true });
          make();
        } finally {
          process.kill(b.child.pid as number, 'SIGCONT');
        }
        const notFolder = `${dir} is not a folder`;
        expect(await stream.next('list', (l) => l.unreadable === notFolder)).toMatchObject({ tasks: [], unreadable: notFolder });
        fs.rmSync(dir);
        writeTask(dir, { id: '7', subject: 'Back again', description: '', status: 'pending', blocks: [], blockedBy: [] });
        expect(await stream.next('list', (l) => l.exists === true && l.unreadable === null)).toMatchObject({ tasks: [{ id: '7' }] });
      }
    } finally {
      stream.close();
    }
    expect(b.child.exitCode).toBeNull();
    const ended = await b.stop();
    expect(ended.code).toBe(0);
    expect(ended.stderr).toBe('');
  });

  it('stays up when a list no tab follows is replaced by a FIFO right after a write in it', async () => {
    const { config, dir } = demo();
    const other = path.join(path.dirname(dir), 'other');
    writeTask(other, { id: '1', subject: 'Elsewhere', description: '', status: 'pending', blocks: [], blockedBy: [] });
    const b = await board(config);
    const stream = eventStream(b.port, `/${b.token}/api/events?list=demo`);
    try {
      expect((await stream.next('list')).tasks).toHaveLength(3);
      // Its row is due to be read again (a write), and by then it is no folder.
      process.kill(b.child.pid as number, 'SIGSTOP');
      try {
        writeTask(other, { id: '2', subject: 'More', description: '', status: 'pending', blocks: [], blockedBy: [] });
        fs.rmSync(other, { recursive: true });
        spawnSync('mkfifo', [other]);
      } finally {
        process.kill(b.child.pid as number, 'SIGCONT');
      }
      // The overview read again after the change no longer counts its tasks.
      const overview = await stream
        .next('overview', (o) => !JSON.stringify(o).includes('"id":"other","kind":"tasks"'), 10_000)
        .catch(() => undefined);
      expect(b.child.exitCode, b.child.exitCode === null ? '' : 'the board ended').toBeNull();
      expect(overview).toBeDefined();
    } finally {
      stream.close();
    }
    expect(b.child.exitCode).toBeNull();
    const ended = await b.stop();
    expect(ended.code).toBe(0);
    expect(ended.stderr).toBe('');
  });

  it('shows the first list of a tasks folder made after it started at its next look (seconds, not the half-minute read), and again once the folder is made anew', async () => {
    const config = tempConfig();
    const b = await board(config);
    const stream = eventStream(b.port, `/${b.token}/api/events`);
    const hasList = (id: string) => (o: Record<string, unknown>) => (o.lists as Array<{ id: string }>).some((l) => l.id === id);
    try {
      await stream.next('overview');
      const started = Date.now();
      writeTask(path.join(config, 'tasks', 'late'), {
        id: '1',
        subject: 'Late',
        description: '',
        status: 'pending',
        blocks: [],
        blockedBy: [],
      });
      await stream.next('overview', hasList('late'), 15_000);
      expect(Date.now() - started).toBeLessThan(15_000);
      // The folder removed and made again: a list made in it shows, as does a write into it.
      fs.rmSync(path.join(config, 'tasks'), { recursive: true });
      writeTask(path.join(config, 'tasks', 'again'), {
        id: '1',
        subject: 'Again',
        description: '',
        status: 'pending',
        blocks: [],
        blockedBy: [],
      });
      await stream.next('overview', hasList('again'), 15_000);
      writeTask(path.join(config, 'tasks', 'again'), {
        id: '2',
        subject: 'More',
        description: '',
        status: 'pending',
        blocks: [],
        blockedBy: [],
      });
      // Its row, or the whole overview when one was due anyway.
      const total = (doc: Record<string, unknown>) =>
        (doc.id === 'again' ? doc : (doc.lists as Array<Record<string, unknown>> | undefined)?.find((l) => l.id === 'again'))?.total;
      expect(await stream.next(['row', 'overview'], (d) => total(d) === 2, 5000)).toBeDefined();
    } finally {
      stream.close();
    }
  });

  it('makes a change with the card state as its precondition: an agent change in between is 409, nothing written', async () => {
    const { config, dir } = demo();
    const b = await board(config);
    // The card showed #3 pending and unowned; an agent takes it first.
    agent(dir, 'update', '3', JSON.stringify({ owner: 'worker-1', status: 'in_progress' }));
    const after = fs.readFileSync(path.join(dir, '3.json'), 'utf8');
    const r = await postAction(b, {
      action: 'reassign',
      list: 'demo',
      id: '3',
      expect: { status: 'pending', owner: null },
      owner: 'alice',
    });
    expect(r.status).toBe(409);
    const body = JSON.parse(r.body) as { ok: boolean; error: { code: string; precondition: string; expected: string; actual: string } };
    expect(body).toMatchObject({
      ok: false,
      error: { code: 'conflict', precondition: 'if-status', expected: 'pending', actual: 'in_progress' },
    });
    expect(fs.readFileSync(path.join(dir, '3.json'), 'utf8')).toBe(after);
    // With the state as it is now, it goes through, and is the person's change in the journal.
    const ok = await postAction(b, {
      action: 'reassign',
      list: 'demo',
      id: '3',
      expect: { status: 'in_progress', owner: 'worker-1' },
      owner: 'alice',
    });
    expect(ok.status).toBe(200);
    expect((readJson(path.join(dir, '3.json')) as { owner: string }).owner).toBe('alice');
    const log = JSON.parse(runInProcessSync(config, ['-l', 'demo', 'log', '3', '--json']).stdout) as Array<{
      who: { kind: string };
      command: string;
    }>;
    expect(log.at(-1)).toMatchObject({ who: { kind: 'person' }, command: 'update' });
  });

  it("assigns to me: claims as the person and starts, by the agents' claim rule (a blocked or taken task refused, nothing written)", async () => {
    const { config, dir } = demo();
    writeTask(dir, { id: '4', subject: 'Waits on #3', description: '', status: 'pending', blocks: [], blockedBy: ['3'] });
    const b = await board(config, [], { USER: 'carol' });
    const ok = await postAction(b, { action: 'claim', list: 'demo', id: '3', expect: { status: 'pending', owner: null } });
    expect(JSON.parse(ok.body)).toMatchObject({ ok: true, message: 'Assigned #3 to carol and started it' });
    expect(readJson(path.join(dir, '3.json'))).toMatchObject({ owner: 'carol', status: 'in_progress' });
    const log = JSON.parse(runInProcessSync(config, ['-l', 'demo', 'log', '3', '--json']).stdout) as Array<{
      who: { kind: string };
      command: string;
    }>;
    expect(log.at(-1)).toMatchObject({ who: { kind: 'person' }, command: 'claim' });
    const before = fs.readFileSync(path.join(dir, '4.json'), 'utf8');
    const blocked = await postAction(b, { action: 'claim', list: 'demo', id: '4', expect: { status: 'pending', owner: null } });
    expect(blocked.status).toBe(409);
    expect((JSON.parse(blocked.body) as { error: { message: string } }).error.message).toMatch(/#3/);
    expect(fs.readFileSync(path.join(dir, '4.json'), 'utf8')).toBe(before);
  });

  it('starts a blocked task as tasks start does, with its warning', async () => {
    const { config, dir } = demo();
    writeTask(dir, { id: '4', subject: 'Waits on #3', description: '', status: 'pending', blocks: [], blockedBy: ['3'] });
    const b = await board(config);
    const r = JSON.parse(
      (await postAction(b, { action: 'start', list: 'demo', id: '4', expect: { status: 'pending', owner: null } })).body,
    ) as {
      ok: boolean;
      warnings?: string[];
    };
    const cli = runInProcessSync(config, ['-l', 'demo', 'update', '4', '--status', 'pending']);
    expect(cli.code).toBe(0);
    const said = runInProcessSync(config, ['-l', 'demo', 'start', '4']).stderr.trim();
    expect(r).toMatchObject({ ok: true, warnings: [said.replace(/^warning: /, '')] });
    expect(r.warnings?.[0]).toMatch(/#3/);
    // Not blocked: no warning.
    const plain = JSON.parse(
      (await postAction(b, { action: 'start', list: 'demo', id: '3', expect: { status: 'pending', owner: null } })).body,
    ) as object;
    expect(plain).not.toHaveProperty('warnings');
  });

  it("answers the Now view: notify's events over every list, work in progress, and changes as a feed, live", async () => {
    const { config, dir } = demo();
    writeTask(dir, { id: '4', subject: 'Review', description: '', status: 'pending', owner: 'carol', blocks: [], blockedBy: [] });
    const b = await board(config, [], { USER: 'carol' });
    const events = await openEvents(b);
    const first = await events.next((e) => e.event === 'now' && (e.data as { ready: boolean }).ready);
    expect(first.data).toMatchObject({
      needsPerson: 1,
      waiting: [{ type: 'ready-for-person', list: 'demo', key: 'ready-for-person|demo|4|carol', action: 'tasks -l demo get 4' }],
      working: [],
      feed: [],
    });
    const from = events.events.length;
    agent(dir, 'update', '3', JSON.stringify({ status: 'in_progress', owner: 'worker-1' }));
    const next = await events.next((e) => e.event === 'now' && (e.data as { working: unknown[] }).working.length > 0, { from });
    expect(next.data).toMatchObject({
      working: [{ list: 'demo', tasks: [{ id: '3', owner: 'worker-1', ownerGone: false, stalled: false }] }],
      feed: [{ list: 'demo', kind: 'change', task: '3', text: '"Run tests" started (worker-1)' }],
    });
    events.close();
    const now = JSON.parse((await request(b.port, `/${b.token}/api/now`)).body) as { needsPerson: number };
    expect(now.needsPerson).toBe(1);
  });

  it('blocks and unblocks only while the task is as shown', async () => {
    const { config, dir } = demo();
    const b = await board(config);
    agent(dir, 'update', '3', JSON.stringify({ status: 'in_progress' }));
    const stale = await postAction(b, { action: 'block', list: 'demo', id: '3', expect: { status: 'pending', owner: null }, by: ['2'] });
    expect(stale.status).toBe(409);
    // Neither side written: the blocker's side was taken back.
    expect((readJson(path.join(dir, '2.json')) as { blocks: string[] }).blocks).toEqual([]);
    expect((readJson(path.join(dir, '3.json')) as { blockedBy: string[] }).blockedBy).toEqual([]);
    const ok = await postAction(b, { action: 'block', list: 'demo', id: '3', expect: { status: 'in_progress', owner: null }, by: ['2'] });
    expect(ok.status).toBe(200);
    expect((readJson(path.join(dir, '2.json')) as { blocks: string[] }).blocks).toEqual(['3']);
    agent(dir, 'update', '3', JSON.stringify({ owner: 'bob' }));
    const staleUnblock = await postAction(b, {
      action: 'unblock',
      list: 'demo',
      id: '3',
      expect: { status: 'in_progress', owner: null },
      by: [],
    });
    expect(staleUnblock.status).toBe(409);
    expect((readJson(path.join(dir, '3.json')) as { blockedBy: string[] }).blockedBy).toEqual(['2']);
  });

  it('undoes only the change it showed', async () => {
    const { config, dir } = demo();
    const b = await board(config);
    expect((await postAction(b, { action: 'start', list: 'demo', id: '3', expect: { status: 'pending', owner: null } })).status).toBe(200);
    const shown = (JSON.parse((await request(b.port, `/${b.token}/api/list?id=demo`)).body) as { undo: { txn: string; command: string } })
      .undo;
    expect(shown.command).toBe('start');
    // Someone else's change with tasks comes after it: the undo shown is no longer the last change.
    expect(runInProcessSync(config, ['-l', 'demo', 'update', '2', '--owner', 'carol']).code).toBe(0);
    const stale = await postAction(b, { action: 'undo', list: 'demo', txn: shown.txn });
    expect(stale.status).toBe(409);
    expect((readJson(path.join(dir, '2.json')) as { owner?: string }).owner).toBe('carol');
    const now = (JSON.parse((await request(b.port, `/${b.token}/api/list?id=demo`)).body) as { undo: { txn: string } }).undo;
    expect((await postAction(b, { action: 'undo', list: 'demo', txn: now.txn })).status).toBe(200);
    expect((readJson(path.join(dir, '2.json')) as { owner?: string }).owner).toBeUndefined();
  });

  it('serves no action with --read-only (403), and leaves no lock after stopping mid-work', async () => {
    const { config, dir } = demo();
    const ro = await board(config, ['--read-only']);
    const r = await postAction(ro, { action: 'start', list: 'demo', id: '3', expect: { status: 'pending', owner: null } });
    expect(r.status).toBe(403);
    expect((JSON.parse((await request(ro.port, `/${ro.token}/api/overview`)).body) as { readOnly: boolean }).readOnly).toBe(true);
    await ro.stop();
    const rw = await board(config);
    const pending = Array.from({ length: 20 }, (_, i) =>
      postAction(rw, {
        action: i % 2 ? 'start' : 'reopen',
        list: 'demo',
        id: '3',
        expect: { status: i % 2 ? 'pending' : 'in_progress', owner: null },
      }).catch(() => undefined),
    );
    await new Promise((r) => setTimeout(r, 30));
    const ended = await rw.stop('SIGINT');
    await Promise.all(pending);
    expect(ended.code).toBe(130);
    expect(locksIn(dir)).toEqual([]);
    expect(runInProcessSync(config, ['-l', 'demo', 'check']).code).toBe(0);
  });

  it('rejects bad flags with one line; warns when listening beyond loopback', async () => {
    const { config } = demo();
    const bad = runInProcessSync(config, ['board', '--port', '70000']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('error: invalid --port "70000": expected a number from 0 to 65535 (0: any free port)\n');
    const first = await board(config);
    const busy = runInProcessSync(config, ['board', '--port', String(first.port)]);
    expect(busy.code).toBe(4);
    expect(busy.stderr).toMatch(/^error: port \d+ is in use; choose another with --port, or 0 for any\n$/);
    const wide = await board(config, ['--listen', '0.0.0.0']);
    const ended = await wide.stop();
    expect(stderrText(ended.stderr)).toMatch(/^warning: listening on 0\.0\.0\.0, not only on this machine/);
  });

  it('refuses a --listen that is empty or no address of this machine (exit 2, one line); answers at the address it was given', async () => {
    const { config } = demo();
    // Empty would listen on every interface and print http://:PORT.
    for (const [value, line] of [
      ['', 'error: invalid --listen "": expected an address of this machine to listen on (default: 127.0.0.1)\n'],
      [' ', 'error: invalid --listen " ": expected an address of this machine to listen on (default: 127.0.0.1)\n'],
      ['203.0.113.9', 'error: cannot listen on 203.0.113.9: not an address of this machine (EADDRNOTAVAIL)\n'],
    ] as const) {
      // A board that did listen would serve until stopped: ten seconds say it did.
      const r = runInProcessSync(config, ['board', '--listen', value], { timeoutMs: 10_000 });
      expect([value, r.code, r.stdout, r.stderr]).toEqual([value, 2, '', line]);
    }
    // Another loopback address: the URL it prints is one it answers to.
    const other = await board(config, ['--listen', '127.0.0.5']);
    expect(other.url).toMatch(/^http:\/\/127\.0\.0\.5:\d+\//);
    const get = (host: string, headerHost: string) =>
      new Promise<number>((resolve, reject) => {
        const url = new URL(other.url);
        http
          .get({ host, port: url.port, path: url.pathname, headers: { Host: headerHost } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          })
          .on('error', reject);
      });
    expect(await get('127.0.0.5', `127.0.0.5:${other.port}`)).toBe(200);
    expect(await get('127.0.0.5', `localhost:${other.port}`)).toBe(200);
    expect(await get('127.0.0.5', `evil.example:${other.port}`)).toBe(403);
    const ended = await other.stop();
    expect(ended.stderr).toBe('');
    // An IPv6 address in brackets, as URLs write it.
    const v6 = await board(config, ['--listen', '[::1]']);
    expect(v6.url).toMatch(/^http:\/\/\[::1\]:\d+\//);
  });

  it('--open gives the opener a private file that takes the browser to the board; an opener that fails is a warning', async () => {
    const { config } = demo();
    const bin = path.join(config, 'bin');
    fs.mkdirSync(bin);
    const seen = path.join(config, 'opened.txt');
    fs.writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${seen}'\n`, { mode: 0o755 });
    const b = await board(config, ['--open'], { PATH: `${bin}:${process.env.PATH}` });
    for (let i = 0; i < 100 && !fs.existsSync(seen); i++) await new Promise((r) => setTimeout(r, 50));
    const file = fs.readFileSync(seen, 'utf8');
    expect(file).not.toContain(b.token);
    expect(path.basename(file)).toBe('open-board.html');
    expect(redirectOf(file)).toBe(b.url);
    await b.stop();
    // Gone with the board, folder and all.
    expect(fs.existsSync(path.dirname(file))).toBe(false);
    fs.writeFileSync(path.join(bin, 'xdg-open'), '#!/bin/sh\nexit 3\n', { mode: 0o755 });
    const failing = await board(config, ['--open'], { PATH: `${bin}:${process.env.PATH}` });
    await new Promise((r) => setTimeout(r, 500));
    const ended = await failing.stop();
    expect(ended.code).toBe(0);
    expect(stderrText(ended.stderr)).toBe('warning: could not open a browser (xdg-open exited with 3); open the URL yourself\n');
  });

  it.skipIf(!asNobody)(
    '--open puts the token on no command line: another local user reading /proc/*/cmdline finds none, nor can read the file',
    async () => {
      const { config } = demo();
      const bin = path.join(config, 'bin');
      fs.mkdirSync(bin);
      const seen = path.join(config, 'opened.txt');
      // The stand-in opener records what it was given, then stays, as a browser does, while the other user looks.
      fs.writeFileSync(
        path.join(bin, 'xdg-open'),
        `#!/bin/sh\necho $$ > '${seen}.pid'\nprintf '%s' "$*" > '${seen}.tmp' && mv '${seen}.tmp' '${seen}'\nsleep 60\n`,
        { mode: 0o755 },
      );
      for (const runtime of [undefined, 0o700, 0o777]) {
        fs.rmSync(seen, { force: true });
        const runtimeDir = path.join(config, `runtime-${runtime}`);
        if (runtime !== undefined) {
          fs.mkdirSync(runtimeDir);
          fs.chmodSync(runtimeDir, runtime);
        }
        const b = await board(config, ['--open'], {
          PATH: `${bin}:${process.env.PATH}`,
          XDG_RUNTIME_DIR: runtime === undefined ? undefined : runtimeDir,
        });
        for (let i = 0; i < 200 && !fs.existsSync(seen); i++) await new Promise((r) => setTimeout(r, 50));
        const file = fs.readFileSync(seen, 'utf8');
        const opener = Number(fs.readFileSync(`${seen}.pid`, 'utf8'));
        try {
          const scan = spawnSync(
            'runuser',
            ['-u', 'nobody', '--', 'sh', '-c', 'for f in /proc/[0-9]*/cmdline; do tr "\\000" " " < "$f" 2>/dev/null; echo; done'],
            { encoding: 'utf8' },
          );
          expect(scan.status).toBe(0);
          // The other user sees the opener's command line and the board's own (the scan works)...
          expect(scan.stdout).toContain(`xdg-open ${file}`);
          expect(scan.stdout).toMatch(/tasks\.js board --json --open/);
          // ...and the token in none.
          expect(scan.stdout).not.toContain(b.token);
          // The file is the user's alone, in a folder of its own only the user can enter.
          const stat = fs.statSync(file);
          expect([stat.mode & 0o777, stat.uid]).toEqual([0o600, process.getuid?.()]);
          expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
          // In the runtime folder when it is private; a runtime folder others can write is not used.
          expect(path.dirname(path.dirname(file)) === runtimeDir).toBe(runtime === 0o700);
          const peek = spawnSync('runuser', ['-u', 'nobody', '--', 'cat', file], { encoding: 'utf8' });
          expect(peek.status).not.toBe(0);
          expect(peek.stdout).not.toContain(b.token);
          // The page it redirects to is the board, and the token gets the user in.
          const url = new URL(redirectOf(file));
          expect(url.href).toBe(b.url);
          const page = await request(b.port, url.pathname);
          expect(page.status).toBe(200);
          expect(page.body).toContain('<script src="board.js" defer></script>');
        } finally {
          process.kill(opener, 'SIGKILL');
          await b.stop();
        }
        expect(fs.existsSync(file)).toBe(false);
      }
    },
  );
});

describe('tasks board: the journal and hooks, as the commands have them', () => {
  it('records each action once, as a change of its own, when the board ends', async () => {
    const { config, dir } = demo();
    const b = await board(config);
    expect((await postAction(b, { action: 'start', list: 'demo', id: '3', expect: { status: 'pending', owner: null } })).status).toBe(200);
    const reassign = { action: 'reassign', list: 'demo', id: '2', expect: { status: 'pending', owner: null }, owner: 'alice' };
    expect((await postAction(b, reassign)).status).toBe(200);
    expect((await b.stop()).code).toBe(0);
    const journal = fs
      .readFileSync(path.join(dir, '.tasks-journal.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { txn: string; command: string; actor: { kind: string }; changes: Array<{ id: string }> });
    // Not a third entry for the whole run of `tasks board` holding both again.
    expect(journal.map((e) => [e.command, e.actor.kind, e.changes.map((c) => c.id)])).toEqual([
      ['start', 'person', ['3']],
      ['update', 'person', ['2']],
    ]);
    expect(new Set(journal.map((e) => e.txn)).size).toBe(2);
  });

  it('runs the hooks a command runs: a TaskCompleted hook that blocks is a 409 with its reason, free of escape codes; nothing written', async () => {
    const world = hookWorld();
    writeTask(world.list, { id: '1', subject: 'Ship it', description: '', status: 'in_progress', blocks: [], blockedBy: [] });
    const inputs = path.join(world.root, 'hook-input.jsonl');
    const gate = script(world, 'gate.sh', `cat >> "${inputs}"; echo >> "${inputs}"; printf '\\033[31m3 tests fail\\033[0m\\n' >&2; exit 2`);
    writeSettings(world, 'user', settingsWith({ TaskCompleted: [{ command: gate }] }));
    const before = fs.readFileSync(path.join(world.list, '1.json'), 'utf8');
    const b = await startBoard(world.config, [], {}, world.project);
    boards.push(b);
    const r = await postAction(b, { action: 'done', list: 'l', id: '1', expect: { status: 'in_progress', owner: null } });
    expect(r.status).toBe(409);
    expect(JSON.parse(r.body)).toEqual({
      ok: false,
      error: { code: 'hook', message: 'TaskCompleted hook blocked completing task #1: 3 tests fail', withoutHooks: true },
    });
    expect(fs.readFileSync(path.join(world.list, '1.json'), 'utf8')).toBe(before);
    // The hook was told what a command tells it: this process, the project the board started in.
    expect(logLines(inputs)).toEqual([
      expect.objectContaining({
        session_id: `tasks-cli-${b.child.pid}`,
        cwd: world.project,
        hook_event_name: 'TaskCompleted',
        task_id: '1',
      }),
    ]);
  });
});

describe("board: what the agents' work cost (GET api/cost)", () => {
  const A = 'aaaaaaaa-1111-4222-8333-444444444444';

  it("answers with each task's work and the list's, the figures of tasks cost; a bad price file is said, not thrown", async () => {
    const config = tempConfig();
    const xdg = path.join(config, 'xdg');
    const t0 = Date.now() - 3_600_000;
    writeTaskFile(config, A, { id: '1', subject: 'Port the parser', status: 'completed' });
    writeTaskFile(config, A, { id: '2', subject: 'Nobody worked on this' });
    new CostTranscript(A, '/work/app')
      .update(t0 + 1000, { taskId: '1', status: 'in_progress' }, t0 + 2000)
      .message(t0 + 62_000, { input: 1_000_000, output: 50_000 })
      .update(t0 + 300_000, { taskId: '1', status: 'completed' }, t0 + 302_000)
      .message(t0 + 400_000, { input: 1000 })
      .write(config);
    const b = await startBoard(config, [], { XDG_CONFIG_HOME: xdg });
    boards.push(b);
    const cost = JSON.parse((await request(b.port, `/${b.token}/api/cost?list=${A}`)).body) as CostPayload;
    const cli = JSON.parse(runInProcessSync(config, ['-l', A, 'cost', '--json'], { env: { XDG_CONFIG_HOME: xdg } }).stdout) as {
      total: { costUsd: number; messages: number };
    };
    expect(cost.error).toBeNull();
    expect(Object.keys(cost.tasks)).toEqual(['1']);
    // Opus 5.5: 1M input at $4, 50k output at $20 = $5.00, in progress from 2 s to 302 s.
    expect(cost.tasks['1']).toMatchObject({ tokens: 1_050_000, activeMs: 300_000, messages: 2, costUsd: 5 });
    expect(cost.tasks['1']?.text).toBe('5m 00s in progress · 1.1M tokens (2 messages, claude-opus-5-5) · $5.00 estimated');
    expect(cost.unattributed).toMatchObject({ tokens: 1000, messages: 2 });
    expect(cost.total.costUsd).toBeCloseTo(cli.total.costUsd, 10);
    expect(cost.total.messages).toBe(cli.total.messages);
    expect((await request(b.port, `/${b.token}/api/cost`)).status).toBe(400);
    fs.mkdirSync(path.join(xdg, 'tasks'), { recursive: true });
    fs.writeFileSync(path.join(xdg, 'tasks', 'prices.json'), '{bad');
    // One answer serves every tab for 2 s: ask again after it.
    await new Promise((r) => setTimeout(r, 2100));
    const bad = await request(b.port, `/${b.token}/api/cost?list=${A}`);
    expect(bad.status).toBe(200);
    expect((JSON.parse(bad.body) as CostPayload).error).toMatch(/^price file .*prices\.json: not JSON/);
  });
});

describe('tasks board: counts follow the files', () => {
  interface Row {
    id: string;
    total: number;
    counts: Record<string, number>;
  }
  const rowOf = (e: BoardEvent, id: string): Row | undefined =>
    e.event === 'overview' ? (e.data as { lists: Row[] }).lists.find((l) => l.id === id) : e.event === 'row' ? (e.data as Row) : undefined;

  it('counts tasks an agent writes after the board started, in every overview after (a re-read, a new tab, api/overview)', async () => {
    const config = tempConfig();
    const dir = path.join(config, 'tasks', 'web-sprint');
    for (const id of ['1', '2', '3', '4', '5'])
      writeTask(dir, { id, subject: `Step ${id}`, description: '', status: 'completed', blocks: [], blockedBy: [] });
    // A list from before the board: its files settled long ago, as the persistent cache trusts them.
    const before = new Date(Date.now() - 60_000);
    for (const name of fs.readdirSync(dir)) fs.utimesSync(path.join(dir, name), before, before);
    fs.utimesSync(dir, before, before);
    const b = await board(config);
    const tab = await openEvents(b);
    expect(rowOf(await tab.next((e) => e.event === 'overview'), 'web-sprint')).toMatchObject({ total: 5, counts: { completed: 5 } });

    // An agent plans two more steps.
    agent(dir, 'create', 'Step 6');
    agent(dir, 'create', 'Step 7');
    const seven = (e: BoardEvent) => rowOf(e, 'web-sprint')?.total === 7;
    const followed = await tab.next(seven);
    expect(rowOf(followed, 'web-sprint')).toMatchObject({ total: 7, counts: { completed: 5, pending: 2 } });

    // Anything that makes the board read every list again (here a list made beside it) keeps the count.
    const from = tab.events.length;
    agent(path.join(config, 'tasks', 'docs'), 'create', 'Write the guide');
    const reread = await tab.next((e) => e.event === 'overview' && rowOf(e, 'docs') !== undefined, { from });
    expect(rowOf(reread, 'web-sprint')).toMatchObject({ total: 7, counts: { completed: 5, pending: 2 } });
    tab.close();

    // A reload: a new tab's first overview, and the API's.
    await new Promise((r) => setTimeout(r, 200));
    const again = await openEvents(b, 'web-sprint');
    expect(rowOf(await again.next((e) => e.event === 'overview'), 'web-sprint')).toMatchObject({ total: 7 });
    again.close();
    const api = JSON.parse((await request(b.port, `/${b.token}/api/overview`)).body) as { lists: Row[] };
    expect(api.lists.find((l) => l.id === 'web-sprint')).toMatchObject({ total: 7, counts: { completed: 5, pending: 2 } });
  });
});
