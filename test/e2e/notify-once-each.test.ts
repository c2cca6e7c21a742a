/**
 * `tasks notify` tells each condition once, and again only when it comes back: a task
 * held by a gone agent is told as the agent's death, not also as a stall; a stall is not
 * told again when another session's work on the list hid it for a while (the same task,
 * unchanged: the same spell); damage repaired and back is told again, however soon. Through
 * the built binary: notify is a long-running process, and the sessions are real processes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run, tempConfig } from '../helpers/cli.js';
import { listWith, notifyEnv, notifyHarness, taskOf, until } from '../helpers/notify.js';
import { writeLiveSession, writeTaskTranscript, writeTranscript } from '../helpers/session-files.mjs';

const h = notifyHarness();
const agents: ChildProcess[] = [];
afterEach(async () => {
  for (const a of agents.splice(0)) a.kill('SIGKILL');
  await h.cleanup();
});

/** What an exec target got: one JSON document a line. */
function sentTo(out: string): Array<{ event: string; text: string; tasks: Array<{ id: string }> }> {
  return fs.existsSync(out)
    ? fs
        .readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
}

const setMtime = (file: string, at: number) => fs.utimesSync(file, at / 1000, at / 1000);

describe('notify: one notice a condition', () => {
  it('a task left in progress by a gone agent, unchanged past --stalled: told once, as agent-died', () => {
    const config = tempConfig();
    const session = '0b2d0b0b-8d3b-4c55-a1e0-6b2f0c8d9e31';
    const cwd = path.join(config, 'home', 'api');
    fs.mkdirSync(cwd, { recursive: true });
    const now = Date.now();
    writeTranscript(config, { sessionId: session, cwd, start: now - 4 * 60 * 60_000, end: now - 3 * 60 * 60_000 });
    const dir = listWith(config, session, [taskOf('1', { status: 'in_progress', owner: 'worker-1' })]);
    setMtime(path.join(dir, '1.json'), now - 3 * 60 * 60_000);
    const out = path.join(config, 'sent.jsonl');
    const r = run(config, ['-l', session, 'notify', '--once', '--stalled', '1h', '--to', `exec:cat >> '${out}'; echo >> '${out}'`], {
      env: notifyEnv(config),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(sentTo(out).map((e) => e.event)).toEqual(['agent-died']);
    // Asked for stalls alone, the stall is told (nothing more specific was asked for).
    const only = run(
      config,
      ['-l', session, 'notify', '--once', '--stalled', '1h', '--on', 'stalled', '--to', 'exec:cat >/dev/null', '--json'],
      {
        env: notifyEnv(config),
      },
    );
    expect(only.code, only.stderr).toBe(0);
    expect(
      only.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).notification.event),
    ).toEqual(['stalled']);
  });

  it("work-left: a list whose last session ended minutes ago with a task pending is told, a person's task left out; one that ended hours ago is not", () => {
    const config = tempConfig();
    const now = Date.now();
    const cwd = path.join(config, 'home', 'api');
    fs.mkdirSync(cwd, { recursive: true });
    const lately = '1c2d0b0b-8d3b-4c55-a1e0-6b2f0c8d9e31';
    const old = '2c2d0b0b-8d3b-4c55-a1e0-6b2f0c8d9e31';
    writeTranscript(config, { sessionId: lately, cwd, start: now - 20 * 60_000, end: now - 5 * 60_000 });
    writeTranscript(config, { sessionId: old, cwd, start: now - 4 * 60 * 60_000, end: now - 3 * 60 * 60_000 });
    for (const [session, at] of [
      [lately, now - 6 * 60_000],
      [old, now - 3 * 60 * 60_000],
    ] as const) {
      const dir = listWith(config, session, [taskOf('1', { status: 'completed' }), taskOf('2', { subject: 'Ship it' }), taskOf('3')]);
      // #3 a person was given (with tasks, before the session ended): theirs, not work the agents left.
      const given = run(config, ['-l', session, 'update', '3', '--owner', 'alice'], { env: notifyEnv(config) });
      expect(given.code, given.stderr).toBe(0);
      for (const f of ['1.json', '2.json', '3.json']) setMtime(path.join(dir, f), at);
    }
    const out = path.join(config, 'sent.jsonl');
    // work-left alone: the people are known all the same.
    const r = run(config, ['notify', '--all', '--once', '--on', 'work-left', '--to', `exec:cat >> '${out}'; echo >> '${out}'`], {
      env: notifyEnv(config),
    });
    expect(r.code, r.stderr).toBe(0);
    const sent = sentTo(out);
    expect(sent.map((e) => [e.event, e.text])).toEqual([
      ['work-left', `session ${lately.slice(0, 8)} ended with 1 task not done in list ${lately.slice(0, 8)} (~/api): #2`],
    ]);
    expect(sent[0]?.tasks.map((t) => t.id)).toEqual(['2']);
  });

  it('work-left: a session resumed and ended again with work open is told again, though no look saw it run (--once from cron)', () => {
    const config = tempConfig();
    const now = Date.now();
    const cwd = path.join(config, 'home', 'api');
    fs.mkdirSync(cwd, { recursive: true });
    const session = '3c2d0b0b-8d3b-4c55-a1e0-6b2f0c8d9e31';
    writeTranscript(config, { sessionId: session, cwd, start: now - 20 * 60_000, end: now - 10 * 60_000 });
    const dir = listWith(config, session, [taskOf('1', { status: 'completed' }), taskOf('2', { subject: 'Ship it' })]);
    for (const f of ['1.json', '2.json']) setMtime(path.join(dir, f), now - 11 * 60_000);
    const out = path.join(config, 'sent.jsonl');
    const once = () => {
      const r = run(config, ['notify', '--all', '--once', '--on', 'work-left', '--to', `exec:cat >> '${out}'; echo >> '${out}'`], {
        env: notifyEnv(config),
      });
      expect(r.code, r.stderr).toBe(0);
      return sentTo(out).map((e) => e.event);
    };
    expect(once()).toEqual(['work-left']);
    expect(once()).toEqual(['work-left']);
    // Resumed (claude --resume: the same session, its transcript goes on) and ended again, #2 still open.
    writeTranscript(config, { sessionId: session, cwd, start: now - 20 * 60_000, end: now - 60_000 });
    expect(once()).toEqual(['work-left', 'work-left']);
    expect(once()).toEqual(['work-left', 'work-left']);
  });

  it("work-left: an ended session's transcript touched, not written (a backup, touch, an editor), is not told again", () => {
    const config = tempConfig();
    const now = Date.now();
    const cwd = path.join(config, 'home', 'api');
    fs.mkdirSync(cwd, { recursive: true });
    const session = '4c2d0b0b-8d3b-4c55-a1e0-6b2f0c8d9e31';
    const transcript = writeTranscript(config, { sessionId: session, cwd, start: now - 20 * 60_000, end: now - 10 * 60_000 });
    const dir = listWith(config, session, [taskOf('1', { status: 'completed' }), taskOf('2', { subject: 'Ship it' })]);
    for (const f of ['1.json', '2.json']) setMtime(path.join(dir, f), now - 11 * 60_000);
    const out = path.join(config, 'sent.jsonl');
    const once = () => {
      const r = run(config, ['notify', '--all', '--once', '--on', 'work-left', '--to', `exec:cat >> '${out}'; echo >> '${out}'`], {
        env: notifyEnv(config),
      });
      expect(r.code, r.stderr).toBe(0);
      return sentTo(out).map((e) => e.event);
    };
    expect(once()).toEqual(['work-left']);
    // Its file's time moves, its bytes do not: the session did nothing again.
    setMtime(transcript, now - 2 * 60_000);
    expect(once()).toEqual(['work-left']);
    setMtime(transcript, now - 30_000);
    expect(once()).toEqual(['work-left']);
  });

  it('agent-died: a session that died, was resumed and died again between two --once runs is told twice; one death, its transcript touched, once', () => {
    const config = tempConfig();
    const now = Date.now();
    const cwd = path.join(config, 'home', 'api');
    fs.mkdirSync(cwd, { recursive: true });
    const session = '5c2d0b0b-8d3b-4c55-a1e0-6b2f0c8d9e31';
    const transcript = writeTranscript(config, { sessionId: session, cwd, start: now - 40 * 60_000, end: now - 30 * 60_000 });
    listWith(config, session, [taskOf('1', { status: 'in_progress', owner: 'worker-1' })]);
    const out = path.join(config, 'sent.jsonl');
    const once = () => {
      const r = run(config, ['notify', '--all', '--once', '--on', 'agent-died', '--to', `exec:cat >> '${out}'; echo >> '${out}'`], {
        env: notifyEnv(config),
      });
      expect(r.code, r.stderr).toBe(0);
      return sentTo(out).map((e) => e.event);
    };
    expect(once()).toEqual(['agent-died']);
    expect(once()).toEqual(['agent-died']);
    setMtime(transcript, now - 60_000);
    expect(once()).toEqual(['agent-died']);
    // Resumed (the same session, its transcript goes on) and gone again, worker-1 still holding #1.
    writeTranscript(config, { sessionId: session, cwd, start: now - 40 * 60_000, end: now - 5 * 60_000 });
    expect(once()).toEqual(['agent-died', 'agent-died']);
    expect(once()).toEqual(['agent-died', 'agent-died']);
  });

  it("a stall told is not told again after another session's work on the list hid it for a while; a new spell is", async () => {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'app');
    fs.mkdirSync(cwd, { recursive: true });
    const dir = listWith(config, 'app', [taskOf('1', { status: 'in_progress', owner: 'agent-1' }), taskOf('2')]);
    setMtime(path.join(dir, '1.json'), Date.now() - 3 * 60 * 60_000);
    const out = path.join(config, 'sent.jsonl');
    const p = h.notify(config, ['-l', 'app', '--stalled', '1h', '--on', 'stalled', '--to', `exec:cat >> '${out}'; echo >> '${out}'`]);
    await p.waitForErr('notify: following');
    await until(() => sentTo(out).length === 1, 'the stall');
    await new Promise((r) => setTimeout(r, 1500));
    // Later (past the margin a look allows for its scan), another session shares the list (its
    // project's settings name it), busy on a turn and writing its transcript: it changes #2.
    const other = '5e0c9a41-7d2b-4f3e-9c1a-2b8d6f4e0a14';
    fs.mkdirSync(path.join(cwd, '.claude'), { recursive: true });
    fs.writeFileSync(path.join(cwd, '.claude', 'settings.json'), JSON.stringify({ env: { CLAUDE_CODE_TASK_LIST_ID: 'app' } }));
    const agent = spawn('sleep', ['120'], { stdio: 'ignore' });
    agents.push(agent);
    writeTaskTranscript(config, {
      sessionId: other,
      cwd,
      running: true,
      calls: [{ name: 'TaskUpdate', input: { taskId: '2', status: 'in_progress' }, result: { success: true }, at: Date.now() }],
    });
    writeLiveSession(config, { pid: agent.pid as number, sessionId: other, cwd, status: 'busy', name: 'app-b2' });
    fs.writeFileSync(path.join(dir, '2.json'), JSON.stringify(taskOf('2', { status: 'in_progress', owner: 'agent-2' })));
    // Rounds while it is at work (the stall is hidden), then it goes idle (the stall shows again).
    await new Promise((r) => setTimeout(r, 4500));
    writeLiveSession(config, { pid: agent.pid as number, sessionId: other, cwd, status: 'idle', name: 'app-b2' });
    await new Promise((r) => setTimeout(r, 4500));
    expect(sentTo(out).map((e) => e.tasks.map((t) => t.id))).toEqual([['1']]);
    // #1 changed (a new spell), and unchanged past --stalled again: told again.
    fs.writeFileSync(
      path.join(dir, '1.json'),
      JSON.stringify(taskOf('1', { status: 'in_progress', owner: 'agent-1', subject: 'Task 1 again' })),
    );
    setMtime(path.join(dir, '1.json'), Date.now() - 2 * 60 * 60_000);
    agent.kill('SIGKILL');
    await until(() => sentTo(out).length === 2, 'the new spell');
    expect(sentTo(out)[1]?.text).toMatch(/^#1 "Task 1 again"/);
  });

  it('damage repaired and back soon after is told again: the repair was seen', async () => {
    const config = tempConfig();
    const dir = listWith(config, 'app', [taskOf('1'), taskOf('9')]);
    const good = fs.readFileSync(path.join(dir, '9.json'), 'utf8');
    const out = path.join(config, 'sent.jsonl');
    const p = h.notify(config, ['-l', 'app', '--on', 'damage', '--to', `exec:cat >> '${out}'; echo >> '${out}'`]);
    await p.waitForErr('notify: following');
    fs.writeFileSync(path.join(dir, '9.json'), '{"id":"9",');
    await until(() => sentTo(out).length === 1, 'the damage');
    // Repaired at once (within the scan's margin of the claim), seen repaired, then broken again.
    fs.writeFileSync(path.join(dir, '9.json'), good);
    await new Promise((r) => setTimeout(r, 2500));
    fs.writeFileSync(path.join(dir, '9.json'), '{"id":"9",');
    await until(() => sentTo(out).length === 2, 'the damage again');
    expect(sentTo(out).map((e) => e.event)).toEqual(['damage', 'damage']);
  });
});

describe('notify: two notify with one target, each asked for other events (two cron lines)', () => {
  it('each tells its own events once: neither drops what the other told as cleared', async () => {
    const config = tempConfig();
    listWith(config, 'app', [taskOf('1', { status: 'completed' }), taskOf('2', { owner: 'ann' })]);
    const out = path.join(config, 'sent.jsonl');
    const to = `exec:cat >> '${out}'; echo >> '${out}'`;
    const once = (on: string) => {
      const r = run(config, ['-l', 'app', 'notify', '--once', '--on', on, '--to', to], { env: notifyEnv(config, { USER: 'ann' }) });
      expect(r.code, r.stderr).toBe(0);
    };
    for (let round = 0; round < 3; round++) {
      once('ready-for-person');
      // Past the scan's margin: the other run reads the files well after this claim.
      await new Promise((r) => setTimeout(r, 700));
      once('list-completed,damage');
      await new Promise((r) => setTimeout(r, 700));
    }
    expect(sentTo(out).map((e) => e.event)).toEqual(['ready-for-person']);
  });

  it("the claims of lists whose folder is gone (a CI job's list, removed after its run) are forgotten: the state does not grow with every list ever told", () => {
    const config = tempConfig();
    const jobs = ['ci-1', 'ci-2', 'ci-3'];
    for (const job of jobs) listWith(config, job, [taskOf('1', { status: 'completed' })]);
    listWith(config, 'app', [taskOf('1', { status: 'completed' })]);
    const out = path.join(config, 'sent.jsonl');
    const once = () => {
      const r = run(config, ['notify', '--all', '--once', '--to', `exec:cat >> '${out}'; echo >> '${out}'`], { env: notifyEnv(config) });
      expect(r.code, r.stderr).toBe(0);
    };
    const claimedLists = () => {
      const dir = path.join(config, 'state', 'tasks');
      const state = JSON.parse(fs.readFileSync(path.join(dir, fs.readdirSync(dir)[0] as string), 'utf8'));
      return [
        ...new Set(Object.values(state.sent as Record<string, object>).flatMap((keys) => Object.keys(keys).map((k) => k.split('|')[1]))),
      ].sort();
    };
    once();
    expect(sentTo(out)).toHaveLength(4);
    expect(claimedLists()).toEqual(['app', ...jobs]);
    for (const job of jobs) fs.rmSync(path.join(config, 'tasks', job), { recursive: true });
    once();
    expect(claimedLists()).toEqual(['app']);
    // What is still there is not told again.
    expect(sentTo(out)).toHaveLength(4);
    // The folder of lists missing altogether (a config folder not mounted yet): nothing is forgotten.
    const tasks = path.join(config, 'tasks');
    fs.renameSync(tasks, `${tasks}.away`);
    once();
    expect(claimedLists()).toEqual(['app']);
    fs.renameSync(`${tasks}.away`, tasks);
    once();
    expect(sentTo(out)).toHaveLength(4);
  });

  it('a first run for a target keeps quiet about lists finished long ago; later runs tell what they have not told, however old', () => {
    const config = tempConfig();
    const now = Date.now();
    const finished = (list: string, at: number) => {
      const dir = listWith(config, list, [taskOf('1', { status: 'completed' }), taskOf('2', { status: 'completed' })]);
      for (const f of ['1.json', '2.json']) setMtime(path.join(dir, f), at);
    };
    finished('last-autumn', now - 60 * 24 * 60 * 60_000);
    finished('just-now', now - 60_000);
    const out = path.join(config, 'sent.jsonl');
    const to = `exec:cat >> '${out}'; echo >> '${out}'`;
    const once = () => run(config, ['notify', '--all', '--once', '--on', 'list-completed', '--to', to], { env: notifyEnv(config) });
    let r = once();
    expect(r.code, r.stderr).toBe(0);
    expect(sentTo(out).map((e) => e.text)).toEqual([expect.stringContaining('just-now')]);
    // Kept as told: the next run does not send it either.
    r = once();
    expect(r.code, r.stderr).toBe(0);
    expect(sentTo(out)).toHaveLength(1);
    // A list finished 40 minutes before a later run (cron every hour) is told: the target is not new.
    finished('an-hour-ago', now - 40 * 60_000);
    r = once();
    expect(r.code, r.stderr).toBe(0);
    expect(sentTo(out).map((e) => e.text)).toEqual([expect.stringContaining('just-now'), expect.stringContaining('an-hour-ago')]);
    // Another target, new: its first run keeps quiet about both old ones, as the first did.
    const other = path.join(config, 'other.jsonl');
    r = run(config, ['notify', '--all', '--once', '--on', 'list-completed', '--to', `exec:cat >> '${other}'; echo >> '${other}'`], {
      env: notifyEnv(config),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(sentTo(other).map((e) => e.text)).toEqual([expect.stringContaining('just-now')]);
  });
});
