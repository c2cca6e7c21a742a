/**
 * A task in progress whose file is dated ahead of the clock of the machine serving the
 * board (clock skew, a file copied from another machine, a VM resumed): the board counts
 * its stall from when it first saw that time, as `tasks watch` and `tasks notify` do
 * (stalled-work.ts timesAsSeen), and says by how much the file is dated ahead, where it
 * would otherwise show it "in the future" and never stall it until the clock got there.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type BoardRun, request, startBoard } from '../helpers/board.js';
import { task } from '../helpers/board-world.js';
import { run, snapshotDir, tempConfig } from '../helpers/cli.js';
import { writeTaskTranscript, writeTranscript } from '../helpers/session-files.mjs';
import { GONE_SESSION as GONE, writeGoneSession } from '../helpers/sessions-world.js';

/** A session whose list is named by its id. */
const SESSION = '5b5b5b5b-2222-4c4c-8d8d-000000000007';

const boards: BoardRun[] = [];
afterEach(async () => {
  for (const b of boards.splice(0)) await b.stop('SIGKILL');
});

interface Facts {
  changedAt?: number;
  aheadMs?: number;
  stalledMs?: number;
}

describe('the board and a task file dated ahead of its clock', () => {
  it('counts the task from when the board first saw it, the same on every read, and says how far ahead its file is', async () => {
    const config = tempConfig();
    const sprint = path.join(config, 'tasks', 'sprint');
    task(sprint, '1', 'Write the changelog', 'in_progress');
    task(sprint, '2', 'Tag the release', 'in_progress');
    const ahead = new Date(Date.now() + 3 * 3_600_000);
    fs.utimesSync(path.join(sprint, '1.json'), ahead, ahead);
    const files = snapshotDir(sprint);
    const b = await startBoard(config, [], { USER: 'carol' });
    boards.push(b);
    const read = async () =>
      JSON.parse((await request(b.port, `/${b.token}/api/list?id=sprint`)).body) as { at: number; facts: Record<string, Facts> };
    const first = await read();
    const one = first.facts['1'] as Facts;
    // Counted from when the board saw it: not 3 h on.
    expect(one.changedAt).toBeLessThanOrEqual(first.at);
    expect(first.at - (one.changedAt as number)).toBeLessThan(5000);
    expect(one.aheadMs).toBeGreaterThan(3 * 3_600_000 - 60_000);
    expect(one.aheadMs).toBeLessThanOrEqual(3 * 3_600_000);
    // A file dated in the past is told as it is, with no skew.
    expect(first.facts['2']?.aheadMs).toBeUndefined();
    await new Promise((r) => setTimeout(r, 1100));
    const second = await read();
    // The same first sight on the next read: the stall goes on counting, not starting anew.
    expect(second.facts['1']?.changedAt).toBe(one.changedAt);
    expect(second.at).toBeGreaterThan(first.at);
    expect(snapshotDir(sprint)).toEqual(files);
  });

  it('the Now view counts it from when it first saw it too, and says how far ahead its file is', async () => {
    const config = tempConfig();
    const sprint = path.join(config, 'tasks', 'sprint');
    task(sprint, '1', 'Write the changelog', 'in_progress');
    task(sprint, '2', 'Tag the release', 'in_progress');
    const ahead = new Date(Date.now() + 3 * 3_600_000);
    fs.utimesSync(path.join(sprint, '1.json'), ahead, ahead);
    const b = await startBoard(config, [], { USER: 'carol' });
    boards.push(b);
    type Now = {
      at: number;
      ready: boolean;
      working: Array<{ list: string; tasks: Array<{ id: string; changedAt: number | null; aheadMs?: number }> }>;
    };
    let now: Now;
    for (;;) {
      now = JSON.parse((await request(b.port, `/${b.token}/api/now`)).body) as Now;
      if (now.ready && now.working.length > 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const [one, two] = now.working.find((w) => w.list === 'sprint')?.tasks ?? [];
    expect(one?.changedAt).toBeLessThanOrEqual(now.at);
    expect(now.at - (one?.changedAt as number)).toBeLessThan(10_000);
    expect(one?.aheadMs).toBeGreaterThan(3 * 3_600_000 - 60_000);
    expect(two?.aheadMs).toBeUndefined();
  });
});

describe('the board and a task file dated ahead: one first sight', () => {
  it('its card and the Now view count it from the same moment, however late the list is first opened', async () => {
    const config = tempConfig();
    const sprint = path.join(config, 'tasks', 'sprint');
    task(sprint, '1', 'Write the changelog', 'in_progress');
    const ahead = new Date(Date.now() + 3 * 3_600_000);
    fs.utimesSync(path.join(sprint, '1.json'), ahead, ahead);
    const b = await startBoard(config, [], { USER: 'carol' });
    boards.push(b);
    type Now = { ready: boolean; working: Array<{ list: string; tasks: Array<{ id: string; changedAt: number | null }> }> };
    let now: Now;
    for (;;) {
      now = JSON.parse((await request(b.port, `/${b.token}/api/now`)).body) as Now;
      if (now.ready && now.working.length > 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const seenByNow = now.working.find((w) => w.list === 'sprint')?.tasks[0]?.changedAt as number;
    // The list opened a while after the board saw it.
    await new Promise((r) => setTimeout(r, 3000));
    const list = JSON.parse((await request(b.port, `/${b.token}/api/list?id=sprint`)).body) as { facts: Record<string, Facts> };
    expect(Math.abs((list.facts['1']?.changedAt as number) - seenByNow)).toBeLessThan(1000);
  });
});

describe('the board and a gone list dated ahead of its clock', () => {
  it('its last change is counted from when the board first saw it, the same on every read, with how far ahead it is', async () => {
    const config = tempConfig();
    const cwd = path.join(config, 'work', 'api');
    fs.mkdirSync(cwd, { recursive: true });
    // Its transcript copied from a machine whose clock runs 3 h ahead.
    const transcript = writeGoneSession(config, cwd);
    const ahead = new Date(Date.now() + 3 * 3_600_000);
    fs.utimesSync(transcript, ahead, ahead);
    const b = await startBoard(config, [], { USER: 'carol' });
    boards.push(b);
    type Gone = { lists: Array<{ id: string; changedAt: number; seenAt?: number; aheadMs?: number }> };
    const read = async () => {
      const before = Date.now();
      const gone = JSON.parse((await request(b.port, `/${b.token}/api/gone-lists`)).body) as Gone;
      return { before, row: gone.lists.find((l) => l.id === GONE) };
    };
    const first = await read();
    // Its time as tasks lists --all has it (3 h on), and when the board saw it: as it was asked.
    expect(Math.abs((first.row?.changedAt as number) - ahead.getTime())).toBeLessThan(1);
    expect(first.row?.seenAt).toBeGreaterThanOrEqual(first.before - 1000);
    expect(first.row?.seenAt).toBeLessThanOrEqual(Date.now());
    expect(Math.abs((first.row?.aheadMs as number) - (ahead.getTime() - (first.row?.seenAt as number)))).toBeLessThanOrEqual(1);
    await new Promise((r) => setTimeout(r, 1100));
    // The same first sight on the next read: "seen 1s ago", not "seen just now" again.
    expect((await read()).row?.seenAt).toBe(first.row?.seenAt);
  });
});

describe("the board and a list's session whose last activity is dated ahead of its clock", () => {
  it('the session is counted from when the board first saw that time, the same on every read, with how far ahead it is', async () => {
    const config = tempConfig();
    const cwd = path.join(config, 'work', 'api');
    fs.mkdirSync(cwd, { recursive: true });
    task(path.join(config, 'tasks', SESSION), '1', 'Write the changelog', 'pending');
    // Its transcript copied from a machine whose clock runs 3 h ahead.
    const ahead = Date.now() + 3 * 3_600_000;
    writeTranscript(config, { sessionId: SESSION, cwd, todos: false, start: ahead - 60_000, end: ahead });
    const b = await startBoard(config, [], { USER: 'carol' });
    boards.push(b);
    type Session = { lastActivity: number | null; seenAt?: number; aheadMs?: number };
    type Row = { id: string; session: Session | null };
    const read = async () => {
      const before = Date.now();
      const overview = JSON.parse((await request(b.port, `/${b.token}/api/overview`)).body) as { lists: Row[] };
      const list = JSON.parse((await request(b.port, `/${b.token}/api/list?id=${SESSION}`)).body) as { row: Row };
      return { before, session: overview.lists.find((l) => l.id === SESSION)?.session, ofList: list.row.session };
    };
    const first = await read();
    // Its time as `tasks lists` has it (3 h on), and when the board saw it: as it was asked.
    expect(Math.abs((first.session?.lastActivity as number) - ahead)).toBeLessThan(1000);
    expect(first.session?.seenAt).toBeGreaterThanOrEqual(first.before - 1000);
    expect(first.session?.seenAt).toBeLessThanOrEqual(Date.now());
    expect(
      Math.abs((first.session?.aheadMs as number) - ((first.session?.lastActivity as number) - (first.session?.seenAt as number))),
    ).toBeLessThanOrEqual(1);
    // The list's own row (the head's, before the overview has it) says the same first sight.
    expect(first.ofList?.seenAt).toBe(first.session?.seenAt);
    await new Promise((r) => setTimeout(r, 1100));
    // The same first sight on the next read: "seen 1s ago", not "seen just now" again.
    const second = await read();
    expect(second.session?.seenAt).toBe(first.session?.seenAt);
    expect(second.ofList?.seenAt).toBe(first.session?.seenAt);
  });
});

describe('the Now view and an event whose record is dated ahead of the clock', () => {
  it("a session's end dated ahead is counted from when the board first saw it, with how far ahead it is", async () => {
    const config = tempConfig();
    const cwd = path.join(config, 'work', 'api');
    fs.mkdirSync(cwd, { recursive: true });
    task(path.join(config, 'tasks', SESSION), '1', 'Write the changelog', 'pending');
    // Its session ended with the task open, its transcript copied from a machine whose clock runs 3 h ahead.
    const ahead = Date.now() + 3 * 3_600_000;
    writeTranscript(config, { sessionId: SESSION, cwd, todos: false, start: ahead - 60_000, end: ahead });
    const b = await startBoard(config, [], { USER: 'carol' });
    boards.push(b);
    type Event = { list: string; type: string; since: number; seen: boolean; aheadMs?: number };
    type Now = { at: number; ready: boolean; died: Event[] };
    let now: Now;
    const started = Date.now();
    for (;;) {
      now = JSON.parse((await request(b.port, `/${b.token}/api/now`)).body) as Now;
      if (now.ready && now.died.length > 0) break;
      if (Date.now() - started > 20_000) throw new Error(`no work left in the Now view: ${JSON.stringify(now)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const left = now.died.find((e) => e.list === SESSION && e.type === 'work-left') as Event;
    // When the board saw it, said as such: not 3 h on.
    expect(left.seen).toBe(true);
    expect(left.since).toBeGreaterThanOrEqual(started - 1000);
    expect(left.since).toBeLessThanOrEqual(now.at);
    expect(left.aheadMs).toBeGreaterThan(3 * 3_600_000 - 60_000);
    expect(left.aheadMs).toBeLessThanOrEqual(3 * 3_600_000);
  });
});

describe('the board and an agent gone whose last activity is dated ahead of the clock', () => {
  it('its task is counted gone from when the board first saw that time, the same on every read, with how far ahead it is', async () => {
    const config = tempConfig();
    const cwd = path.join(config, 'work', 'api');
    fs.mkdirSync(cwd, { recursive: true });
    task(path.join(config, 'tasks', SESSION), '1', 'Write the changelog', 'in_progress');
    // Its session ended holding the task (it made it and started it), its transcript copied from a machine whose clock runs 3 h ahead.
    const ahead = Date.now() + 3 * 3_600_000;
    const transcript = writeTaskTranscript(config, {
      sessionId: SESSION,
      cwd,
      calls: [
        {
          name: 'TaskCreate',
          input: { subject: 'Write the changelog', description: '' },
          result: { task: { id: '1', subject: 'Write the changelog' } },
          at: ahead - 60_000,
        },
        {
          name: 'TaskUpdate',
          input: { taskId: '1', status: 'in_progress' },
          result: { success: true, taskId: '1', updatedFields: ['status'] },
          at: ahead - 1000,
        },
      ],
    });
    fs.utimesSync(transcript, ahead / 1000, ahead / 1000);
    const b = await startBoard(config, [], { USER: 'carol' });
    boards.push(b);
    type Gone = { session: string | null; since: number | null; aheadMs?: number };
    const read = async () => {
      const before = Date.now();
      const list = JSON.parse((await request(b.port, `/${b.token}/api/list?id=${SESSION}`)).body) as {
        at: number;
        facts: Record<string, { agentGone?: Gone }>;
      };
      return { before, at: list.at, gone: list.facts['1']?.agentGone };
    };
    const first = await read();
    expect(first.gone?.session).toBe(SESSION);
    // When the board saw it: not 3 h on.
    expect(first.gone?.since).toBeGreaterThanOrEqual(first.before - 1000);
    expect(first.gone?.since).toBeLessThanOrEqual(first.at);
    expect(first.gone?.aheadMs).toBeGreaterThan(3 * 3_600_000 - 60_000);
    expect(first.gone?.aheadMs).toBeLessThanOrEqual(3 * 3_600_000);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await read()).gone?.since).toBe(first.gone?.since);
  });
});

describe("the board and a task's history whose records are dated ahead of the clock", () => {
  it('each such change is counted from when the board first read it, the same on every read, with how far ahead it is', async () => {
    const config = tempConfig();
    const cwd = path.join(config, 'work', 'api');
    fs.mkdirSync(cwd, { recursive: true });
    task(path.join(config, 'tasks', SESSION), '1', 'Write the changelog', 'in_progress');
    // The session that made and started it, its transcript copied from a machine whose clock runs 3 h ahead.
    const ahead = Date.now() + 3 * 3_600_000;
    writeTaskTranscript(config, {
      sessionId: SESSION,
      cwd,
      calls: [
        {
          name: 'TaskCreate',
          input: { subject: 'Write the changelog', description: '' },
          result: { task: { id: '1', subject: 'Write the changelog' } },
          at: ahead - 60_000,
        },
        {
          name: 'TaskUpdate',
          input: { taskId: '1', status: 'in_progress' },
          result: { success: true, taskId: '1', updatedFields: ['status'] },
          at: ahead - 1000,
        },
      ],
    });
    const b = await startBoard(config, [], { USER: 'carol' });
    boards.push(b);
    type Event = { at: string; source: string; seenAt?: number; aheadMs?: number };
    const read = async () => {
      const before = Date.now();
      const history = JSON.parse((await request(b.port, `/${b.token}/api/history?list=${SESSION}&task=1`)).body) as { events: Event[] };
      return { before, events: history.events.filter((e) => e.source === 'transcript') };
    };
    const first = await read();
    expect(first.events.length).toBe(2);
    for (const e of first.events) {
      // Its time as `tasks log` has it (3 h on), and when the board read it: as it was asked.
      expect(Date.parse(e.at)).toBeGreaterThan(Date.now() + 2 * 3_600_000);
      expect(e.seenAt).toBeGreaterThanOrEqual(first.before - 1000);
      expect(e.seenAt).toBeLessThanOrEqual(Date.now());
      expect(Math.abs((e.aheadMs as number) - (Date.parse(e.at) - (e.seenAt as number)))).toBeLessThanOrEqual(1);
    }
    await new Promise((r) => setTimeout(r, 1100));
    // The same first sight on the next read.
    expect((await read()).events.map((e) => e.seenAt)).toEqual(first.events.map((e) => e.seenAt));
  });
});

describe("the board and a list's last change recorded ahead of the clock (its undo button)", () => {
  it('the change to undo is counted from when the board first saw it, the same on every read, with how far ahead it is', async () => {
    const config = tempConfig();
    const sprint = path.join(config, 'tasks', 'sprint');
    task(sprint, '1', 'Write the changelog', 'pending');
    expect(run(config, ['-l', 'sprint', 'start', '1'], { env: { USER: 'carol' } }).code).toBe(0);
    // Its journal copied from a machine whose clock runs 3 h ahead.
    const journal = path.join(sprint, '.tasks-journal.jsonl');
    const ahead = new Date(Date.now() + 3 * 3_600_000).toISOString();
    fs.writeFileSync(journal, fs.readFileSync(journal, 'utf8').replace(/"at":"[^"]+"/g, `"at":"${ahead}"`));
    const b = await startBoard(config, [], { USER: 'carol' });
    boards.push(b);
    type Change = { command: string; at: string; seenAt?: number; aheadMs?: number };
    const read = async () => {
      const before = Date.now();
      const list = JSON.parse((await request(b.port, `/${b.token}/api/list?id=sprint`)).body) as { undo: Change | null };
      return { before, undo: list.undo };
    };
    const first = await read();
    // The change as the journal has it (3 h on), and when the board saw it: as it was asked.
    expect(first.undo?.command).toBe('start');
    expect(first.undo?.at).toBe(ahead);
    expect(first.undo?.seenAt).toBeGreaterThanOrEqual(first.before - 1000);
    expect(first.undo?.seenAt).toBeLessThanOrEqual(Date.now());
    expect(Math.abs((first.undo?.aheadMs as number) - (Date.parse(ahead) - (first.undo?.seenAt as number)))).toBeLessThanOrEqual(1);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await read()).undo?.seenAt).toBe(first.undo?.seenAt);
  });
});
