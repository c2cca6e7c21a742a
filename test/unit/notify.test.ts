import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexTasks } from '../../src/core/graph/blockers.js';
import { type ListFacts, listEvents, stallKey } from '../../src/core/notify/notify-events.js';
import { NOTIFY_EVENTS, parseEvents, parseTarget, shownTarget } from '../../src/core/notify/notify-plan.js';
import { SentState, sentStatePath } from '../../src/core/notify/sent-state.js';
import type { Task } from '../../src/core/store/schema.js';
import { renderStarted, terminalBell } from '../../src/render/notify-lines.js';

const task = (id: string, fields: Partial<Task> = {}): Task => ({
  id,
  subject: `Task ${id}`,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...fields,
});

function facts(tasks: Task[], more: Partial<ListFacts> = {}): ListFacts {
  return {
    listId: 'app',
    shortId: 'app',
    project: '~/app',
    session: undefined,
    tasks,
    index: indexTasks(tasks),
    people: new Set(['pat']),
    stalled: new Map(),
    gone: [],
    errors: [],
    ...more,
  };
}

const ALL = new Set(NOTIFY_EVENTS);

describe('targets and events, checked', () => {
  it('reads each kind of target; Slack and Discord webhooks are told apart', () => {
    expect(parseTarget('desktop').kind).toBe('desktop');
    expect(parseTarget('exec:notify-me --loud')).toMatchObject({ kind: 'exec', command: 'notify-me --loud' });
    expect(parseTarget('webhook:https://hooks.slack.com/services/T0/B0/XYZ')).toMatchObject({ kind: 'webhook', chat: 'slack' });
    expect(parseTarget('webhook:https://discord.com/api/webhooks/1/abc')).toMatchObject({ kind: 'webhook', chat: 'discord' });
    expect(parseTarget('webhook:https://example.com/in')).toMatchObject({ kind: 'webhook', chat: undefined });
  });

  it('shows a URL target by its host alone: never credentials, path or query', () => {
    const t = parseTarget('ntfy:https://bob:hunter2@ntfy.example.com:8443/secret-topic?auth=tok');
    expect(shownTarget(t)).toBe('ntfy:https://ntfy.example.com:8443/…');
    expect(shownTarget(parseTarget('webhook:http://127.0.0.1:9000/'))).toBe('webhook:http://127.0.0.1:9000');
  });

  it('a bad target is a usage error that does not echo its secret', () => {
    expect(() => parseTarget('slack:https://hooks.slack.com/services/T0/B0/SECRET')).toThrow(
      /^--to slack:https:\/\/hooks\.slack\.com\/…: unknown target/,
    );
    expect(() => parseTarget('webhook:not a url')).toThrow(/not a URL/);
  });

  it('--on: comma-separated and repeatable; all; unknown names refused', () => {
    expect(parseEvents(undefined)).toEqual([...NOTIFY_EVENTS]);
    expect(parseEvents(['stalled,agent-died', 'stalled'])).toEqual(['stalled', 'agent-died']);
    expect(parseEvents(['all'])).toEqual([...NOTIFY_EVENTS]);
    expect(() => parseEvents(['stall'])).toThrow(/--on stall: unknown event/);
    expect(() => parseEvents([','])).toThrow(/name at least one event/);
  });
});

describe('what needs a person', () => {
  it('list-completed holds while every task is completed, under a key of its task count and highest id', () => {
    const done = listEvents(facts([task('1', { status: 'completed' }), task('2', { status: 'completed' })]), ALL);
    expect(done.map((e) => e.key)).toEqual(['list-completed|app|2:2']);
    // Finished anew with a task more (between two looks, even): another key, told anew; ids order as numbers.
    const more = [task('1', { status: 'completed' }), task('2', { status: 'completed' }), task('10', { status: 'completed' })];
    expect(listEvents(facts(more), ALL).map((e) => e.key)).toEqual(['list-completed|app|3:10']);
    expect(listEvents(facts([task('1', { status: 'completed' }), task('2')]), ALL)).toEqual([]);
    expect(listEvents(facts([]), ALL)).toEqual([]);
  });

  it('list-completed waits while a session of the list is at work (busy on a turn, or just started): it may yet add tasks', () => {
    const tasks = [task('1', { status: 'completed' })];
    expect(listEvents(facts(tasks, { busy: [{ sessionId: 's1', pid: 42, state: 'busy' }] }), ALL)).toEqual([]);
    expect(listEvents(facts(tasks, { busy: [{ pid: 43, state: 'starting' }] }), ALL)).toEqual([]);
    expect(listEvents(facts(tasks, { busy: [] }), ALL).map((e) => e.type)).toEqual(['list-completed']);
  });

  it('needs-you cuts a very long waitingFor (damage) to 100 characters with an ellipsis', () => {
    const waiting = [{ session: '66666666-6666-4666-8666-666666666666', name: 'w1', waitingFor: 'x'.repeat(5000), since: undefined }];
    const [e] = listEvents(facts([task('1', { status: 'in_progress' })], { waiting }), ALL).filter((x) => x.type === 'needs-you');
    expect(e?.text).toBe(`session w1 (66666666) of list app (~/app) is waiting for you (${'x'.repeat(99)}…)`);
  });

  it('ready-for-person: a person-owned open task with no open blocker; not while it waits, not an agent-owned one', () => {
    const tasks = [task('1', { owner: 'pat' }), task('2', { owner: 'pat', blockedBy: ['3'] }), task('3', { owner: 'agent-1' })];
    expect(listEvents(facts(tasks), ALL).map((e) => e.key)).toEqual(['ready-for-person|app|1|pat']);
  });

  it("agent-died keys on the owner, the tasks it holds and its session's end: another task held, or another death, is another event", () => {
    const died = { owner: 'w', why: 'session c1a55e00 crashed', session: 'c1a55e00-x', endedAt: 7000.4 };
    const gone = [died];
    const one = listEvents(facts([task('1', { status: 'in_progress', owner: 'w' })], { gone }), ALL);
    const two = listEvents(
      facts([task('1', { status: 'in_progress', owner: 'w' }), task('2', { status: 'in_progress', owner: 'w' })], { gone }),
      ALL,
    );
    expect(one.map((e) => [e.key, e.session, e.action])).toEqual([
      ['agent-died|app|w|1|7000', 'c1a55e00-x', 'tasks -l app release --gone'],
    ]);
    expect(two.map((e) => e.key)).toEqual(['agent-died|app|w|1,2|7000']);
    // Resumed and gone again, still holding #1: its end is later.
    const again = listEvents(facts([task('1', { status: 'in_progress', owner: 'w' })], { gone: [{ ...died, endedAt: 9000 }] }), ALL);
    expect(again.map((e) => e.key)).toEqual(['agent-died|app|w|1|9000']);
  });

  it('a task held by a gone agent and unchanged past the stall time: agent-died alone, unless only stalls are asked for', () => {
    const tasks = [task('1', { status: 'in_progress', owner: 'w' }), task('2', { status: 'in_progress', owner: 'v' })];
    const gone = [{ owner: 'w', why: 'session c1a55e00 crashed', session: 'c1a55e00-x' }];
    const stalled = new Map([
      ['1', 3_600_000],
      ['2', 3_600_000],
    ]);
    const times = new Map([
      ['1', 1000.4],
      ['2', 2000],
    ]);
    expect(listEvents(facts(tasks, { gone, stalled, times }), ALL).map((e) => e.key)).toEqual([
      'stalled|app|2|2000',
      'agent-died|app|w|1|',
    ]);
    expect(listEvents(facts(tasks, { gone, stalled, times }), new Set(['stalled'] as const)).map((e) => e.key)).toEqual([
      'stalled|app|1|1000',
      'stalled|app|2|2000',
    ]);
  });

  it('work-left: the open tasks the last session left, under a key of that session and its end; what agent-died tells is not told again', () => {
    const left = { session: 'c1a55e00-x', why: 'session c1a55e00 crashed', endedAt: 5000 };
    const tasks = [
      task('1', { status: 'completed' }),
      task('2', { status: 'in_progress', owner: 'w' }),
      task('3'),
      task('4', { owner: 'pat' }),
    ];
    const gone = [{ owner: 'w', why: 'session c1a55e00 crashed', session: 'c1a55e00-x' }];
    const people = new Set(['pat']);
    const events = listEvents(facts(tasks, { left, gone, people }), new Set(['work-left', 'agent-died'] as const));
    expect(events.map((e) => e.key)).toEqual(['agent-died|app|w|2|', 'work-left|app|c1a55e00-x|5000']);
    expect(events[1]).toMatchObject({
      session: 'c1a55e00-x',
      title: 'Work left: app',
      text: 'session c1a55e00 crashed with 1 task not done in list app (~/app): #3',
      action: 'tasks -l app list',
      happenedAt: 5000,
    });
    expect(events[1]?.tasks.map((t) => t.id)).toEqual(['3']);
    // Asked alone, it names the held task too; nothing left but what agent-died holds: not told.
    expect(listEvents(facts(tasks, { left, gone, people }), new Set(['work-left'] as const))[0]?.tasks.map((t) => t.id)).toEqual([
      '2',
      '3',
    ]);
    expect(listEvents(facts(tasks.slice(0, 2), { left, gone }), new Set(['work-left', 'agent-died'] as const)).map((e) => e.type)).toEqual([
      'agent-died',
    ]);
    // No end told: nothing.
    expect(listEvents(facts(tasks, { gone, people }), new Set(['work-left'] as const))).toEqual([]);
  });

  it('work-left leaves out a task hidden from agents (metadata._internal) and one made or reopened after the session ended', () => {
    const left = { session: 'c1a55e00-x', why: 'session c1a55e00 ended', endedAt: 100_000 };
    const tasks = [task('1'), task('2', { metadata: { _internal: true } }), task('3'), task('4')];
    // #3 was written 4 s after the session's last entry (its own last write); #4 a minute after it (a person's, for later).
    const times = new Map([
      ['1', 90_000],
      ['2', 90_000],
      ['3', 104_000],
      ['4', 160_000],
    ]);
    const events = listEvents(facts(tasks, { left, times }), new Set(['work-left'] as const));
    expect(events.map((e) => e.tasks.map((t) => t.id))).toEqual([['1', '3']]);
    const later = new Map([...times, ['1', 160_000], ['3', 160_000]]);
    expect(listEvents(facts(tasks, { left, times: later }), new Set(['work-left'] as const))).toEqual([]);
  });

  it('tasks with no owner a session over held: agent-died names the session and only those tasks; another unowned task stalls as before', () => {
    const tasks = [task('1', { status: 'in_progress' }), task('2', { status: 'in_progress' })];
    const gone = [{ owner: undefined, why: 'session c1a55e00 crashed', session: 'c1a55e00-x', tasks: ['1'] }];
    const stalled = new Map([
      ['1', 3_600_000],
      ['2', 3_600_000],
    ]);
    const times = new Map([
      ['1', 1000],
      ['2', 2000],
    ]);
    const events = listEvents(facts(tasks, { gone, stalled, times }), ALL);
    expect(events.map((e) => e.key)).toEqual(['stalled|app|2|2000', 'agent-died|app|session c1a55e00-x|1|']);
    expect(events[1]).toMatchObject({
      title: 'Agent gone: session c1a55e00 in app',
      text: 'session c1a55e00 crashed holding #1 in list app (~/app)',
    });
  });

  it("a stall's key names its task's change time: the same spell, the same key; a change, a new one", () => {
    const tasks = [task('1', { status: 'in_progress' })];
    const key = (at: number) => listEvents(facts(tasks, { stalled: new Map([['1', 9e6]]), times: new Map([['1', at]]) }), ALL)[0]?.key;
    expect(key(5000)).toBe(stallKey('app', '1', 5000));
    expect(key(5000)).not.toBe(key(6000));
  });

  it('only the events asked for', () => {
    const tasks = [task('1', { status: 'completed' })];
    expect(listEvents(facts(tasks), new Set(['stalled'] as const))).toEqual([]);
  });
});

describe('the sent state', () => {
  const temp = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-notify-')), 'state.json');
  const settle = (fresh: string[], active: string[], scannedAt: number) => ({ listId: 'app', fresh, active: new Set(active), scannedAt });

  it('claims an event once per target, across instances (restarts); a cleared one may be claimed again', async () => {
    const file = temp();
    let now = 1000;
    const a = new SentState(file, () => now);
    expect(await a.settle(['t1', 't2'], settle(['k|app|'], ['k|app|'], 900))).toEqual([
      { target: 't1', key: 'k|app|', at: 1000 },
      { target: 't2', key: 'k|app|', at: 1000 },
    ]);
    const restarted = new SentState(file, () => now);
    expect(await restarted.settle(['t1'], settle(['k|app|'], ['k|app|'], 950))).toEqual([]);
    now = 2000;
    // Cleared, as read at 1500, after the claim (1000): the claim goes.
    await restarted.settle(['t1'], settle([], [], 1500));
    expect(await restarted.settle(['t1'], settle(['k|app|'], ['k|app|'], 1900))).toEqual([{ target: 't1', key: 'k|app|', at: 2000 }]);
  });

  it('a look at files read before a claim does not clear that claim: its process is behind', async () => {
    const file = temp();
    let now = 5000;
    const state = new SentState(file, () => now);
    await state.settle(['t'], settle(['k|app|'], ['k|app|'], 4900));
    now = 6000;
    // A slower process (or one just started) whose files were read at 4000, before the claim.
    await state.settle(['t'], settle([], [], 4000));
    expect(await state.settle(['t'], settle(['k|app|'], ['k|app|'], 5900))).toEqual([]);
    // Another list's look never touches this one's claims.
    await state.settle(['t'], { listId: 'web', fresh: [], active: new Set(), scannedAt: 9999 });
    expect(await state.settle(['t'], settle(['k|app|'], ['k|app|'], 5900))).toEqual([]);
  });

  it("a lasting key's claim stays though not active (a stall hidden a while); a claim this process saw clear goes at once", async () => {
    const file = temp();
    let now = 5000;
    const state = new SentState(file, () => now);
    const [claim] = await state.settle(['t'], settle(['s|app|1', 'd|app|x'], ['s|app|1', 'd|app|x'], 4000));
    expect(claim).toEqual({ target: 't', key: 's|app|1', at: 5000 });
    now = 6000;
    // Neither active, read long after the claims: the lasting one stays, the other goes.
    await state.settle(['t'], { ...settle([], [], 5900), lasting: new Set(['s|app|1']) });
    expect(await state.settle(['t'], settle(['s|app|1', 'd|app|x'], ['s|app|1', 'd|app|x'], 5950))).toEqual([
      { target: 't', key: 'd|app|x', at: 6000 },
    ]);
    // Seen clear by the process that claimed it, though its files' read is within the margin: it goes.
    now = 6100;
    await state.settle(['t'], { ...settle([], ['s|app|1'], 5600), ownCleared: new Map([['d|app|x', 6000]]) });
    expect(await state.settle(['t'], settle(['d|app|x'], ['d|app|x', 's|app|1'], 5700))).toEqual([
      { target: 't', key: 'd|app|x', at: 6100 },
    ]);
    // Another claim than the one seen clear (another process claimed it again meanwhile) stays.
    now = 6200;
    await state.settle(['t'], { ...settle([], ['s|app|1'], 5600), ownCleared: new Map([['d|app|x', 6000]]) });
    expect(await state.settle(['t'], settle(['d|app|x'], ['d|app|x'], 5700))).toEqual([]);
  });

  it('a state an earlier version kept (agent-died without its end; work-left by the file time) tells none of its events again, and a later end anew', async () => {
    const file = temp();
    // As the earlier version kept it: a death claimed at 5000; an end its transcript file dated 4200.
    fs.writeFileSync(file, JSON.stringify({ version: 1, sent: { t: { 'agent-died|app|w|1': 5000, 'work-left|app|s1|4200': 5000 } } }));
    let now = 6000;
    const state = new SentState(file, () => now);
    // The same death (its last entry at 4000), the same end (its last entry at 4000, before the file's time): not told.
    const same = ['agent-died|app|w|1|4000', 'work-left|app|s1|4000'];
    expect(await state.settle(['t'], settle(same, same, 5900))).toEqual([]);
    expect(Object.keys(JSON.parse(fs.readFileSync(file, 'utf8')).sent.t).sort()).toEqual(same);
    expect(await state.settle(['t'], settle(same, same, 5950))).toEqual([]);
    // Resumed after the claim and gone again: told.
    fs.writeFileSync(file, JSON.stringify({ version: 1, sent: { t: { 'agent-died|app|w|1': 5000, 'work-left|app|s1|4200': 5000 } } }));
    now = 9000;
    const later = ['agent-died|app|w|1|8000', 'work-left|app|s1|8000'];
    expect((await state.settle(['t'], settle(later, later, 8900))).map((c) => c.key)).toEqual(later);
  });

  it('makes its folders 0700, as the XDG rule asks: the board keeps its token in the same folder', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-notify-'));
    const file = sentStatePath({ xdgStateHome: path.join(root, 'state'), home: root, configDir: path.join(root, 'c') }) as string;
    new SentState(file, () => 1).ready();
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(root, 'state')).mode & 0o777).toBe(0o700);
  });

  it('lives in $XDG_STATE_HOME/tasks, else ~/.local/state/tasks, a file per config folder', () => {
    expect(sentStatePath({ xdgStateHome: '/x/state', home: '/h', configDir: '/h/.claude' })).toMatch(
      /^\/x\/state\/tasks\/notify-claude-[0-9a-f]{12}\.json$/,
    );
    expect(sentStatePath({ xdgStateHome: 'relative', home: '/h', configDir: '/h/.claude' })).toMatch(
      /^\/h\/\.local\/state\/tasks\/notify-claude-/,
    );
    expect(sentStatePath({ xdgStateHome: undefined, home: undefined, configDir: '/c' })).toBeUndefined();
  });
});

describe('a sent state that cannot be kept', () => {
  // Under a regular file: no folder can be made there, even by root.
  const blocked = () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-notify-'));
    fs.writeFileSync(path.join(root, 'file'), '');
    return path.join(root, 'file', 'tasks', 'state.json');
  };

  it('ready() and settle() fail with one io error naming the folder and how to choose another', async () => {
    const file = blocked();
    const state = new SentState(file, () => 1);
    const said = new RegExp(
      `^notify cannot keep what it sent in ${path.dirname(file)} \\(EEXIST: .*\\): set XDG_STATE_HOME to a folder you can write$`,
    );
    expect(() => state.ready()).toThrow(expect.objectContaining({ code: 'io', message: expect.stringMatching(said) }));
    await expect(
      state.settle(['t'], { listId: 'app', fresh: ['k|app|'], active: new Set(['k|app|']), scannedAt: 0 }),
    ).rejects.toMatchObject({
      code: 'io',
      message: expect.stringMatching(said),
    });
  });

  it('a state file that is a symbolic link is refused, saying so (not "too many symbolic links" and "a folder you can write"), the link and its file left as they were', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-notify-'));
    const real = path.join(root, 'synced.json');
    fs.writeFileSync(real, '{"version":1,"sent":{}}');
    const file = path.join(root, 'tasks', 'state.json');
    fs.mkdirSync(path.dirname(file));
    fs.symlinkSync(real, file);
    expect(() => new SentState(file, () => 1).ready()).toThrow(
      expect.objectContaining({
        code: 'io',
        message: `notify's state file ${file} is a symbolic link, which notify does not follow (it replaces its file whole, which would break the link): put the file itself in its place, or set XDG_STATE_HOME to another folder`,
      }),
    );
    expect(fs.lstatSync(file).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(real, 'utf8')).toBe('{"version":1,"sent":{}}');
  });

  it('kept in memory only (no file: a view that sends nothing) is always ready', async () => {
    const state = new SentState(undefined, () => 1);
    state.ready();
    expect(await state.settle(['t'], { listId: 'app', fresh: ['k|app|'], active: new Set(['k|app|']), scannedAt: 0 })).toHaveLength(1);
  });
});

describe('the start note', () => {
  const note = (once: boolean) =>
    renderStarted({ lists: [], shown: (id) => id, events: ['list-completed'], targets: ['desktop'], desktop: undefined, once });

  it('--once with no lists says nothing of following new ones', () => {
    expect(note(true)).toBe('notify: looking once at no lists (none to look at); telling list-completed to desktop');
    expect(note(false)).toBe('notify: following no lists yet (new ones are followed as they appear); telling list-completed to desktop');
  });
});

describe('the terminal fallback', () => {
  it('a bell and an OSC 9 whose text cannot end the sequence early', () => {
    expect(terminalBell('Done: app', 'every task\u0007 done\u001b]')).toBe('\u0007\u001b]9;Done: app: every task  done ]\u0007');
  });
});
