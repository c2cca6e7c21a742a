/**
 * `tasks notify` against real receivers on loopback: a webhook server, an ntfy-shaped
 * receiver, an exec: script. Through the built binary: notify is a long-running process
 * whose restarts, signals and a second copy of it are what is under test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, baseEnv, run, runAsync, tempConfig, writeTask } from '../helpers/cli.js';
import { contractProblems } from '../helpers/json-contract.js';
import { listWith, notifyEnv, notifyHarness, posted, taskOf, until } from '../helpers/notify.js';
import { projectFolder, writeLiveSession, writeTaskTranscript } from '../helpers/session-files.mjs';

const h = notifyHarness();
afterEach(h.cleanup);
const { webhook, notify } = h;

const stateFiles = (config: string) =>
  fs.existsSync(path.join(config, 'state', 'tasks')) ? fs.readdirSync(path.join(config, 'state', 'tasks')) : [];

describe('notify: bad input', () => {
  it('an unknown target or event is exit 2 before anything runs: nothing sent, no state written', async () => {
    const config = tempConfig();
    listWith(config, 'app', [taskOf('1', { status: 'completed' })]);
    const hook = await webhook();
    const env = notifyEnv(config);
    const cases: Array<[string[], RegExp]> = [
      [['--to', 'pager:555'], /--to pager:555: unknown target; use desktop, ntfy:<url>, webhook:<url>, exec:<command>/],
      [['--to', `webhook:${hook.url}`, '--on', 'list-done'], /--on list-done: unknown event/],
      [['--to', `webhook:${hook.url}`, '--to', 'webhook:ftp://x/y'], /only http and https/],
      [['--to', 'exec:'], /needs a command/],
      [['--to', `webhook:${hook.url}`, '--stalled', 'soon'], /--stalled/],
      [[], /--to: name where to send/],
      [['--to', `webhook:${hook.url}`, '--all', '--here'], /cannot be used together/],
      [['--to', `webhook:${hook.url}`, '--on', 'hook-refuse'], /--on hook-refuse: unknown event/],
    ];
    for (const [args, message] of cases) {
      // Nothing answers while a synchronous run blocks this process: nothing must be sent.
      const r = run(config, ['-l', 'app', 'notify', '--once', ...args], { env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stdout).toBe('');
    }
    await new Promise((r) => setTimeout(r, 100));
    expect(hook.got).toEqual([]);
    expect(stateFiles(config)).toEqual([]);
  });

  it("a URL's secret path, query and password never appear on stdout, stderr or in --json, even when it fails", async () => {
    const config = tempConfig();
    listWith(config, 'app', [taskOf('1', { status: 'completed' })]);
    const hook = await webhook(() => ({ status: 503 }));
    const secret = 'tk_9f8e7d6c5b4a';
    const url = `${hook.url.replace('http://', `http://robot:${secret}pw@`)}/hooks/${secret}?token=${secret}`;
    const r = await runAsync(config, ['-l', 'app', 'notify', '--once', '--retries', '2', '--to', `webhook:${url}`, '--json'], {
      env: notifyEnv(config),
    });
    expect(r.code).toBe(1);
    expect(hook.got).toHaveLength(2);
    // Sent with the credentials as Basic authorization, to the path asked for.
    expect(hook.got[0]?.url).toBe(`/hooks/${secret}?token=${secret}`);
    expect(hook.got[0]?.headers.authorization).toBe(`Basic ${Buffer.from(`robot:${secret}pw`).toString('base64')}`);
    for (const text of [
      r.stdout,
      r.stderr,
      fs.readFileSync(path.join(config, 'state', 'tasks', stateFiles(config)[0] as string), 'utf8'),
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(r.stderr).toContain(`webhook:${hook.url}/…`);
    const line = JSON.parse(r.stdout) as { outcome: string; target: string; attempts: number; error: string };
    expect(line).toMatchObject({
      outcome: 'failed',
      target: `webhook:${hook.url}/…`,
      attempts: 2,
      error: `${hook.url}/… answered HTTP 503`,
    });
    expect(contractProblems('notify', r.stdout)).toEqual([]);
  });
});

describe('notify --help', () => {
  it('shows no empty list as the default of --to and --on (--on defaults to every event, --to must be given)', () => {
    const r = run(tempConfig(), ['notify', '--help']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/--to <target>/);
    expect(r.stdout).not.toContain('(default: [])');
  });
});

describe('notify --all: the tasks folder unreadable for a while', () => {
  it('says so once and goes on: the list followed before is told once the folder reads again', async () => {
    const config = tempConfig();
    listWith(config, 'app', [taskOf('1'), taskOf('2', { status: 'completed' })]);
    const hook = await webhook();
    const p = notify(config, ['--all', '--to', `webhook:${hook.url}`, '--on', 'list-completed']);
    await p.waitForErr('notify: following list app');
    // A link to itself where the folder was: every look for lists fails ELOOP (a mode-000 folder does so for a user).
    const tasks = path.join(config, 'tasks');
    fs.renameSync(tasks, `${tasks}.away`);
    fs.symlinkSync('tasks', tasks);
    await p.waitForErr('cannot look for lists');
    await new Promise((r) => setTimeout(r, 2500));
    fs.rmSync(tasks);
    fs.renameSync(`${tasks}.away`, tasks);
    writeTask(path.join(tasks, 'app'), { ...taskOf('1'), status: 'completed' });
    await until(() => hook.got.length === 1, 'list-completed after the folder came back');
    const ended = await p.stop();
    expect(ended.code).toBe(0);
    expect(p.stderr().match(/cannot look for lists/g)).toHaveLength(1);
    expect(p.stderr()).not.toMatch(/\n\s+at /);
  });
});

describe('notify: a list that does not exist', () => {
  it('--once: exit 3, one line, nothing sent, no state written', () => {
    const config = tempConfig();
    listWith(config, 'other', [taskOf('1', { status: 'completed' })]);
    const out = path.join(config, 'sent.jsonl');
    const r = run(config, ['-l', 'nosuch', 'notify', '--once', '--to', `exec:cat >> '${out}'`], { env: notifyEnv(config) });
    expect(r.code).toBe(3);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^error: list folder .*nosuch does not exist$/)]);
    expect(r.stdout).toBe('');
    expect(fs.existsSync(out)).toBe(false);
    expect(stateFiles(config)).toEqual([]);
  });

  it('following: waited for, said so once at the start, and followed when it appears', async () => {
    const config = tempConfig();
    fs.mkdirSync(path.join(config, 'tasks'), { recursive: true });
    const hook = await webhook();
    const p = notify(config, ['-l', 'later', '--to', `webhook:${hook.url}`, '--on', 'list-completed']);
    await p.waitForErr('notify: following list later (it does not exist yet: waiting for its folder to appear)');
    await new Promise((r) => setTimeout(r, 2500));
    listWith(config, 'later', [taskOf('1', { status: 'completed' })]);
    await until(() => hook.got.length === 1, 'list-completed of the new list');
    expect((await p.stop()).code).toBe(0);
    // No warning each round while it waited: the start note is all.
    expect(p.stderr()).not.toMatch(/warning/);
  });
});

describe('notify: a webhook', () => {
  it('tells list-completed once, as the documented JSON document; a restart does not repeat it; cleared and back, it is told again', async () => {
    const config = tempConfig();
    const dir = listWith(config, 'app', [taskOf('1', { status: 'completed' }), taskOf('2', { status: 'in_progress', owner: 'agent-1' })]);
    const hook = await webhook();
    const first = notify(config, ['-l', 'app', '--to', `webhook:${hook.url}/in`, '--on', 'list-completed']);
    await first.waitForErr('notify: following list app');
    const doneAt = Date.now();
    writeTask(dir, taskOf('2', { status: 'completed', owner: 'agent-1' }));
    await until(() => hook.got.length === 1, 'the webhook to be called');
    // The watcher's default settings: within a second of the change (a margin for a loaded machine).
    expect((hook.got[0]?.at ?? 0) - doneAt).toBeLessThan(2_000);
    const [doc] = posted(hook.got);
    expect(contractProblems('notify-message', JSON.stringify(doc))).toEqual([]);
    expect(doc).toMatchObject({
      event: 'list-completed',
      list: 'app',
      tasks: [
        { id: '1', status: 'completed' },
        { id: '2', status: 'completed', owner: 'agent-1' },
      ],
      action: 'tasks -l app list',
      text: 'every task of list app is completed (2)',
    });
    expect(hook.got[0]?.headers['content-type']).toBe('application/json');
    await until(() => first.stdout().includes('sent  list-completed  app  -> webhook:'), 'the line on stdout');
    expect((await first.stop()).code).toBe(0);

    // A restart: the list is still completed; nothing is sent again.
    const second = notify(config, ['-l', 'app', '--to', `webhook:${hook.url}/in`, '--on', 'list-completed']);
    await second.waitForErr('notify: following');
    await new Promise((r) => setTimeout(r, 1500));
    expect(hook.got).toHaveLength(1);
    // Cleared (a new task) and back (done): told again.
    writeTask(dir, taskOf('3'));
    await new Promise((r) => setTimeout(r, 800));
    writeTask(dir, taskOf('3', { status: 'completed' }));
    await until(() => hook.got.length === 2, 'the second list-completed');
    expect(posted(hook.got)[1]).toMatchObject({ event: 'list-completed', tasks: [{ id: '1' }, { id: '2' }, { id: '3' }] });
    expect((await second.stop()).code).toBe(0);
    expect(hook.got).toHaveLength(2);
  });
});

describe('notify: a list folder removed and made again (a job that cleans its list between runs)', () => {
  it('--once tells the new folder finished, though its plan has the ids and size of the one told before; then not again', async () => {
    const config = tempConfig();
    const out = path.join(config, 'sent.jsonl');
    const once = () =>
      run(config, ['-l', 'nightly', 'notify', '--once', '--to', `exec:cat >> '${out}'; echo >> '${out}'`], { env: notifyEnv(config) });
    const finished = (plan: string) =>
      listWith(config, 'nightly', [
        taskOf('1', { subject: `Build ${plan}`, status: 'completed' }),
        taskOf('2', { subject: `Test ${plan}`, status: 'completed' }),
      ]);
    const told = () =>
      fs
        .readFileSync(out, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => (JSON.parse(l) as { event: string; tasks: Array<{ subject: string }> }).tasks[0]?.subject);
    finished('v1');
    expect(once().code).toBe(0);
    expect(told()).toEqual(['Build v1']);
    // The next run: the folder removed, the same plan made again (ids from 1) and finished.
    fs.rmSync(path.join(config, 'tasks', 'nightly'), { recursive: true });
    await new Promise((r) => setTimeout(r, 1500));
    finished('v2');
    const second = once();
    expect(second.code, second.stderr).toBe(0);
    expect(told()).toEqual(['Build v1', 'Build v2']);
    // Once: the same finished folder is not told again.
    expect(once().code).toBe(0);
    expect(told()).toEqual(['Build v1', 'Build v2']);
  });
});

describe('notify --once from cron: a target that is down', () => {
  it('what a run could not send is told by the next run, the target back; then not again', async () => {
    const config = tempConfig();
    listWith(config, 'app', [taskOf('1', { status: 'completed' })]);
    let down = true;
    const hook = await webhook(() => ({ status: down ? 503 : 200 }));
    const once = () =>
      runAsync(config, ['-l', 'app', 'notify', '--once', '--retries', '2', '--to', `webhook:${hook.url}/in`], { env: notifyEnv(config) });
    const first = await once();
    expect(first.code).toBe(1);
    expect(first.stderr).toContain('could not be sent after 2 tries');
    expect(hook.got).toHaveLength(2);
    down = false;
    const second = await once();
    expect(second.code, second.stderr).toBe(0);
    expect(hook.got).toHaveLength(3);
    expect(posted(hook.got)[2]).toMatchObject({ event: 'list-completed', list: 'app' });
    const third = await once();
    expect(third.code, third.stderr).toBe(0);
    expect(hook.got).toHaveLength(3);
  });
});

describe('notify following: a target that is down for a while', () => {
  it('a send that failed every try is tried again later by the same process, once the target is back; then not again', async () => {
    const config = tempConfig();
    listWith(config, 'app', [taskOf('1', { status: 'completed' })]);
    let down = true;
    const hook = await webhook(() => ({ status: down ? 503 : 200 }));
    const p = notify(config, ['-l', 'app', '--retries', '2', '--json', '--to', `webhook:${hook.url}/in`], {
      TASKS_NOTIFY_RESEND_MS: '1000',
    });
    await p.waitForErr('could not be sent after 2 tries');
    expect(p.stderr()).toMatch(/could not be sent after 2 tries: .*503; trying again in 1s if it still holds/);
    expect(hook.got).toHaveLength(2);
    // Still down at the next try: two more requests, and the wait doubles.
    await p.waitForErr(/trying again in 2s/);
    expect(hook.got).toHaveLength(4);
    down = false;
    await until(() => hook.got.length === 5, 'the event sent once the target is back', 15_000);
    expect(posted(hook.got)[4]).toMatchObject({ event: 'list-completed', list: 'app' });
    // Sent: not again, by this process or the next run.
    await new Promise((r) => setTimeout(r, 2500));
    expect(hook.got).toHaveLength(5);
    const ended = await p.stop();
    expect(ended.code, ended.stderr).toBe(0);
    const lines = ended.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { outcome: string; againInMs?: number });
    expect(lines.map((l) => [l.outcome, l.againInMs])).toEqual([
      ['failed', 1000],
      ['failed', 2000],
      ['sent', undefined],
    ]);
    expect(contractProblems('notify', ended.stdout)).toEqual([]);
    const next = await runAsync(config, ['-l', 'app', 'notify', '--once', '--to', `webhook:${hook.url}/in`], { env: notifyEnv(config) });
    expect(next.code, next.stderr).toBe(0);
    expect(hook.got).toHaveLength(5);
  });

  it('an event that clears while its send waits to be tried again is not sent', async () => {
    const config = tempConfig();
    const dir = listWith(config, 'app', [taskOf('1', { status: 'completed' })]);
    let down = true;
    const hook = await webhook(() => ({ status: down ? 503 : 200 }));
    const p = notify(config, ['-l', 'app', '--retries', '1', '--to', `webhook:${hook.url}/in`], { TASKS_NOTIFY_RESEND_MS: '1500' });
    await p.waitForErr('could not be sent after 1 try');
    // Reopened before the next try: the list is no longer finished.
    writeTask(dir, { ...taskOf('1'), status: 'pending' });
    down = false;
    await new Promise((r) => setTimeout(r, 3500));
    expect(hook.got).toHaveLength(1);
    await p.stop();
  });
});

describe('notify: a webhook that answers with a redirect', () => {
  it('is not followed (the body would go where the URL does not say) nor tried again, as another 4xx: one request, said why', async () => {
    const config = tempConfig();
    listWith(config, 'app', [taskOf('1', { status: 'completed' })]);
    const hook = await webhook(() => ({ status: 301, headers: { Location: 'https://hooks.example.invalid/moved' } }));
    const r = await runAsync(config, ['-l', 'app', 'notify', '--once', '--to', `webhook:${hook.url}/in/secret`], {
      env: notifyEnv(config),
    });
    expect(r.code).toBe(1);
    expect(hook.got).toHaveLength(1);
    expect(r.stderr).not.toContain('trying again');
    expect(r.stderr).toMatch(/could not be sent after 1 try: .*answered HTTP 301 \(a redirect, not followed\)/);
    expect(r.stderr).not.toContain('secret');
  });
});

describe('notify: ntfy and exec', () => {
  it("ntfy gets ntfy's headers (Title, Priority, Tags, Click) and the text; exec gets the event JSON on stdin", async () => {
    const config = tempConfig();
    listWith(config, 'app', [taskOf('1', { status: 'completed' })]);
    const ntfy = await webhook();
    const script = path.join(config, 'hook.sh');
    const out = path.join(config, 'got.json');
    fs.writeFileSync(script, `#!/bin/sh\ncat > '${out}'\necho "$#" >> '${out}.args'\n`, { mode: 0o755 });
    const r = await runAsync(
      config,
      [
        '-l',
        'app',
        'notify',
        '--once',
        '--to',
        `ntfy:${ntfy.url}/agents-topic`,
        '--to',
        `exec:${script}`,
        '--click',
        'http://127.0.0.1:4000/',
      ],
      { env: notifyEnv(config) },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(ntfy.got).toHaveLength(1);
    const got = ntfy.got[0];
    expect(got?.url).toBe('/agents-topic');
    expect(got?.headers).toMatchObject({
      title: 'Done: list app',
      priority: '3',
      tags: 'white_check_mark',
      click: 'http://127.0.0.1:4000/',
    });
    expect(got?.body).toBe('every task of list app is completed (1)\ntasks -l app list');
    const doc = fs.readFileSync(out, 'utf8');
    expect(contractProblems('notify-message', doc)).toEqual([]);
    expect(JSON.parse(doc)).toMatchObject({ event: 'list-completed', list: 'app', action: 'tasks -l app list' });
    expect(r.stdout).toMatch(/sent {2}list-completed {2}app {2}-> ntfy:http:\/\/127\.0\.0\.1:\d+\/… {2}Done: list app/);
  });

  it('a failing exec command is reported with its status and stderr; --once exits 1', () => {
    const config = tempConfig();
    listWith(config, 'app', [taskOf('1', { status: 'completed' })]);
    const r = run(config, ['-l', 'app', 'notify', '--once', '--retries', '1', '--to', 'exec:echo no room >&2; exit 3'], {
      env: notifyEnv(config),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'warning: exec:echo no room >&2; exit 3: list-completed of list app could not be sent after 1 try: echo no room >&2; exit 3 failed (exit 3): no room',
    );
  });
});

describe('notify: the events', () => {
  it('ready-for-person, stalled, blocked-cycle and damage, each once, with the command to act', () => {
    const config = tempConfig();
    const person = 'pat';
    const dir = listWith(config, 'app', [
      taskOf('1', { owner: person, subject: 'Approve the schema', blocks: ['2'] }),
      taskOf('2', { blockedBy: ['1'] }),
      taskOf('3', { status: 'in_progress', owner: 'agent-1' }),
      taskOf('4', { blockedBy: ['5'], blocks: ['5'] }),
      taskOf('5', { blockedBy: ['4'], blocks: ['4'] }),
    ]);
    const old = (Date.now() - 3 * 60 * 60_000) / 1000;
    fs.utimesSync(path.join(dir, '3.json'), old, old);
    fs.writeFileSync(path.join(dir, '6.json'), '{"id": "6", "subj');
    const out = path.join(config, 'events.jsonl');
    const env = notifyEnv(config, { USER: person, LOGNAME: person });
    const args = ['-l', 'app', 'notify', '--once', '--stalled', '1h', '--to', `exec:cat >> ${out}`, '--json'];
    const r = run(config, args, { env });
    expect(r.code, r.stderr).toBe(0);
    expect(contractProblems('notify', r.stdout)).toEqual([]);
    const events = fs
      .readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; action: string; text: string; tasks: Array<{ id: string }> });
    const by = Object.fromEntries(events.map((e) => [e.event, e]));
    expect(Object.keys(by).sort()).toEqual(['blocked-cycle', 'damage', 'ready-for-person', 'stalled']);
    expect(by['ready-for-person']).toMatchObject({ action: 'tasks -l app get 1', tasks: [{ id: '1' }, { id: '2' }] });
    expect(by['ready-for-person']?.text).toBe('#1 "Approve the schema" in list app is pat\'s and ready; 1 task waits on it (#2)');
    expect(by.stalled).toMatchObject({ action: 'tasks -l app get 3', tasks: [{ id: '3' }] });
    expect(by.stalled?.text).toMatch(/^#3 "Task 3" in list app has been in progress for 3h without a change \(agent-1\)/);
    expect(by['blocked-cycle']).toMatchObject({ action: 'tasks -l app check', tasks: [{ id: '4' }, { id: '5' }] });
    // Said once: that none of them can start ends the text, the cycle's own words do not say it again.
    expect(by['blocked-cycle']?.text).toMatch(/^dependency cycle #[45] -> #[45] -> #[45] in list app: none of them can ever start$/);
    expect(by.damage?.action).toMatch(/^tasks -l app check/);
    expect(by.damage?.text).toContain('6.json');
    // Once: a second look sends nothing.
    const again = run(config, args, { env });
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('');
    expect(fs.readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(4);
    // --on narrows: another target, only stalled.
    const only = run(
      config,
      ['-l', 'app', 'notify', '--once', '--stalled', '1h', '--on', 'stalled', '--to', 'exec:cat >/dev/null', '--json'],
      {
        env,
      },
    );
    expect(
      only.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { notification: { event: string } }).notification.event),
    ).toEqual(['stalled']);
  });
});

describe('notify: a restart of a long-running notify', () => {
  it('does not repeat blocked-cycle and damage, which wait out their grace at the new start', async () => {
    const config = tempConfig();
    const dir = listWith(config, 'app', [
      taskOf('1', { blockedBy: ['2'], blocks: ['2'] }),
      taskOf('2', { blockedBy: ['1'], blocks: ['1'] }),
    ]);
    fs.writeFileSync(path.join(dir, '9.json'), '{"id":"9",');
    const out = path.join(config, 'sent.jsonl');
    const args = ['-l', 'app', '--to', `exec:cat >> '${out}'; echo >> '${out}'`];
    const sent = () =>
      fs.existsSync(out)
        ? fs
            .readFileSync(out, 'utf8')
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((l) => (JSON.parse(l) as { event: string }).event)
            .sort()
        : [];
    const first = notify(config, args);
    await first.waitForErr('notify: following');
    await until(() => sent().length === 2, 'blocked-cycle and damage');
    expect(sent()).toEqual(['blocked-cycle', 'damage']);
    expect((await first.stop()).code).toBe(0);
    // Restarted a while later (the claims are older than the new process's first read).
    await new Promise((r) => setTimeout(r, 1500));
    // The second process: past the 1.5 s grace and a round or two more, nothing again.
    const second = notify(config, args);
    await second.waitForErr('notify: following');
    await new Promise((r) => setTimeout(r, 4500));
    expect((await second.stop()).code).toBe(0);
    expect(sent()).toEqual(['blocked-cycle', 'damage']);
    // Repaired and damaged again: a new spell, told again (the claim was dropped when it cleared).
    const third = notify(config, args);
    await third.waitForErr('notify: following');
    fs.writeFileSync(
      path.join(dir, '9.json'),
      JSON.stringify({ id: '9', subject: 'Nine', description: '', status: 'pending', blocks: [], blockedBy: [] }),
    );
    await new Promise((r) => setTimeout(r, 2500));
    fs.writeFileSync(path.join(dir, '9.json'), '{"id":"9",');
    await until(() => sent().length === 3, 'damage again');
    expect((await third.stop()).code).toBe(0);
    expect(sent()).toEqual(['blocked-cycle', 'damage', 'damage']);
  });
});

describe('notify: a damaged sent-state file', () => {
  it('damaged again later: the copy kept the first time is not overwritten, the second kept beside it', () => {
    const config = tempConfig();
    listWith(config, 'app', [taskOf('1', { status: 'completed' })]);
    const args = ['-l', 'app', 'notify', '--once', '--to', 'exec:cat >/dev/null'];
    const env = notifyEnv(config);
    expect(run(config, args, { env }).code).toBe(0);
    const dir = path.join(config, 'state', 'tasks');
    const file = path.join(dir, stateFiles(config)[0] as string);
    fs.writeFileSync(file, '{first damage');
    expect(run(config, args, { env }).code).toBe(0);
    fs.writeFileSync(file, '{second damage');
    const again = run(config, args, { env });
    expect(again.code, again.stderr).toBe(0);
    const kept = fs.readdirSync(dir).filter((n) => n.startsWith(`${path.basename(file)}.bad`));
    expect(kept.map((n) => fs.readFileSync(path.join(dir, n), 'utf8')).sort()).toEqual(['{first damage', '{second damage']);
    const aside = kept.find((n) => fs.readFileSync(path.join(dir, n), 'utf8') === '{second damage') as string;
    expect(again.stderr).toContain(`(kept as ${path.join(dir, aside)})`);
  });

  it('is started anew with a warning on stderr, and kept aside as .bad; told once again, then once only', () => {
    for (const damage of ['{garbage', '[]']) {
      const config = tempConfig();
      listWith(config, 'app', [taskOf('1', { status: 'completed' })]);
      const args = ['-l', 'app', 'notify', '--once', '--to', 'exec:cat >/dev/null'];
      const env = notifyEnv(config);
      const first = run(config, args, { env });
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toMatch(/sent {2}list-completed/);
      expect(first.stderr).not.toMatch(/warning/);
      const [name] = stateFiles(config);
      const file = path.join(config, 'state', 'tasks', name as string);
      fs.writeFileSync(file, damage);
      const second = run(config, args, { env });
      expect(second.code, second.stderr).toBe(0);
      // Told again, and said why.
      expect(second.stdout).toMatch(/sent {2}list-completed/);
      const warnings = second.stderr.split('\n').filter((l) => l.startsWith('warning:'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`notify's state file ${file} could not be read`);
      expect(warnings[0]).toMatch(/started anew \(kept as .*\.bad\); events told before may be told again$/);
      expect(fs.readFileSync(`${file}.bad`, 'utf8')).toBe(damage);
      // The new state holds: nothing told a third time, nothing said.
      const third = run(config, args, { env });
      expect({ code: third.code, stdout: third.stdout }).toEqual({ code: 0, stdout: '' });
      expect(third.stderr).not.toMatch(/warning/);
    }
  });
});

describe('notify: stalled while a session is busy', () => {
  const SESSION = '55555555-5555-4555-8555-555555555555';
  const agents: ChildProcess[] = [];
  afterEach(() => {
    for (const a of agents.splice(0)) a.kill('SIGKILL');
  });

  /**
   * A session busy on a turn (its live-session file says so; its process runs: a real
   * one, as the index checks it) on its own list, #1 in progress for 3 h, its transcript
   * last written `quietMs` ago.
   */
  function busySession(quietMs: number, last: 'result' | 'tool call in flight' = 'result') {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'proj');
    fs.mkdirSync(cwd, { recursive: true });
    const dir = listWith(config, SESSION, [taskOf('1', { status: 'in_progress', owner: 'agent-1' })]);
    const old = (Date.now() - 3 * 60 * 60_000) / 1000;
    fs.utimesSync(path.join(dir, '1.json'), old, old);
    const at = Date.now() - quietMs - 20;
    writeTaskTranscript(config, {
      sessionId: SESSION,
      cwd,
      running: true,
      calls: [
        { name: 'TaskList', input: {}, result: { tasks: [] }, at },
        ...(last === 'result' ? [] : [{ name: 'Bash', input: { command: 'npm test' }, at, pending: true }]),
      ],
    });
    // Why a process: the session is live only while its live-session file's process runs.
    const agent = spawn('sleep', ['60']);
    agents.push(agent);
    writeLiveSession(config, { pid: agent.pid as number, sessionId: SESSION, cwd, status: 'busy' });
    return config;
  }

  const stalledSent = (config: string) => {
    const r = run(
      config,
      ['-l', SESSION, 'notify', '--once', '--stalled', '1h', '--on', 'stalled', '--to', 'exec:cat >/dev/null', '--json'],
      {
        env: notifyEnv(config),
      },
    );
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.trim() === '' ? [] : r.stdout.trim().split('\n');
  };

  it('busy but silent for as long as --stalled (a request that hangs): stalled, as watch judges it', () => {
    expect(stalledSent(busySession(2 * 60 * 60_000))).toHaveLength(1);
  });

  it('busy, its transcript silent as long, but ending in a tool call awaiting its result (a long test suite): at work, not stalled', () => {
    expect(stalledSent(busySession(2 * 60 * 60_000, 'tool call in flight'))).toEqual([]);
  });

  it('busy and writing its transcript: at work, not stalled', () => {
    expect(stalledSent(busySession(1000))).toEqual([]);
  });
});

describe('notify: a session waiting for a person', () => {
  const SESSION = '66666666-6666-4666-8666-666666666666';
  const agents: ChildProcess[] = [];
  afterEach(() => {
    for (const a of agents.splice(0)) a.kill('SIGKILL');
  });

  /** A live session (a real process) on its own list, #1 in progress for 3 h; its live-session file as Claude Code 2.1.328 writes it at a permission prompt. */
  function waitingSession() {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'proj');
    fs.mkdirSync(cwd, { recursive: true });
    const dir = listWith(config, SESSION, [taskOf('1', { status: 'in_progress', owner: 'agent-1' })]);
    const old = (Date.now() - 3 * 60 * 60_000) / 1000;
    fs.utimesSync(path.join(dir, '1.json'), old, old);
    writeTaskTranscript(config, {
      sessionId: SESSION,
      cwd,
      running: true,
      calls: [{ name: 'TaskList', input: {}, result: { tasks: [] }, at: Date.now() - 2 * 60 * 60_000 }],
    });
    const agent = spawn('sleep', ['60']);
    agents.push(agent);
    const live = (status: string, statusAt: number) =>
      writeLiveSession(config, {
        pid: agent.pid as number,
        sessionId: SESSION,
        cwd,
        status,
        name: 'proj-w1',
        statusAt,
        ...(status === 'waiting' ? { waitingFor: 'permission prompt' } : {}),
      });
    live('waiting', Date.now() - 60_000);
    return { config, live };
  }

  it('lists --json has activity "waiting" and waitingFor', () => {
    const { config } = waitingSession();
    const json = run(config, ['lists', '--json'], { env: notifyEnv(config) });
    expect(contractProblems('lists', json.stdout)).toEqual([]);
    const [row] = JSON.parse(json.stdout) as Array<{ activity: string; waitingFor: string }>;
    expect(row).toMatchObject({ activity: 'waiting', waitingFor: 'permission prompt' });
  });

  it('--once tells needs-you, not "stalled … no session is at work"', () => {
    const { config } = waitingSession();
    const r = run(config, ['-l', SESSION, 'notify', '--once', '--stalled', '1h', '--to', 'exec:cat >/dev/null', '--json'], {
      env: notifyEnv(config),
    });
    expect(r.code, r.stderr).toBe(0);
    const sent = r.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { notification: { event: string; text: string } }).notification);
    expect(sent.map((e) => e.event)).toEqual(['needs-you']);
    expect(sent[0]?.text).toMatch(/^session proj-w1 \(66666666\) of list \S+ \(~\/proj\) is waiting for you \(permission prompt\)$/);
  });

  it('a long-running notify: the wait is not stalled time; a stall is told only --stalled after the wait ended (refused with Esc: idle)', async () => {
    const { config, live } = waitingSession();
    const out = path.join(config, 'sent.jsonl');
    const sent = () =>
      fs.existsSync(out)
        ? fs
            .readFileSync(out, 'utf8')
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((l) => (JSON.parse(l) as { event: string }).event)
        : [];
    const n = notify(config, [
      '-l',
      SESSION,
      '--stalled',
      '4s',
      '--on',
      'needs-you,stalled',
      '--to',
      `exec:cat >> '${out}'; echo >> '${out}'`,
    ]);
    await n.waitForErr('notify: following');
    await until(() => sent().length === 1, 'needs-you');
    // Over a round while it waits: nothing stalls.
    await new Promise((r) => setTimeout(r, 2500));
    const answered = Date.now();
    live('idle', answered);
    await until(() => sent().length === 2, 'the stall');
    const told = Date.now();
    expect((await n.stop()).code).toBe(0);
    expect(sent()).toEqual(['needs-you', 'stalled']);
    expect(told - answered).toBeGreaterThanOrEqual(4000);
  });

  it('a long-running notify tells each waiting spell once: again after the session went busy and came back to waiting', async () => {
    const { config, live } = waitingSession();
    const out = path.join(config, 'sent.jsonl');
    const args = ['-l', SESSION, '--to', `exec:cat >> '${out}'; echo >> '${out}'`, '--on', 'needs-you'];
    const sent = () =>
      fs.existsSync(out)
        ? fs
            .readFileSync(out, 'utf8')
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as { event: string })
        : [];
    const first = notify(config, args);
    await first.waitForErr('notify: following');
    await until(() => sent().length === 1, 'the first needs-you');
    expect(sent()[0]).toMatchObject({ event: 'needs-you', session: SESSION });
    // Still waiting, over several rounds (2 s each): not told again.
    await new Promise((r) => setTimeout(r, 4500));
    expect(sent()).toHaveLength(1);
    // Answered (busy), then at a prompt again: a new spell, told again.
    live('busy', Date.now());
    await new Promise((r) => setTimeout(r, 2500));
    live('waiting', Date.now());
    await until(() => sent().length === 2, 'the second needs-you');
    expect((await first.stop()).code).toBe(0);
    // A restart while the same spell lasts: not told again.
    const second = notify(config, args);
    await second.waitForErr('notify: following');
    await new Promise((r) => setTimeout(r, 3000));
    expect((await second.stop()).code).toBe(0);
    expect(sent()).toHaveLength(2);
  });
});

describe("notify: a hook's refusal", () => {
  const SESSION = '66666666-6666-4666-8666-666666666666';
  /** A session's own list, #1 pending; its transcript: the agent's TaskUpdate to completed, refused by a hook `agoMs` ago. */
  function refusedSession(agoMs: number) {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'proj');
    fs.mkdirSync(cwd, { recursive: true });
    listWith(config, SESSION, [taskOf('1', { subject: 'Ship the parser', status: 'pending' })]);
    writeTaskTranscript(config, {
      sessionId: SESSION,
      cwd,
      calls: [
        {
          name: 'TaskUpdate',
          input: { taskId: '1', status: 'completed' },
          result: { success: false, taskId: '1', updatedFields: [], error: 'TaskCompleted hook feedback' },
          content: 'TaskCompleted hook feedback:\n[./ci-check.sh]: tests must pass first\n',
          at: Date.now() - agoMs,
        },
      ],
    });
    return config;
  }
  const notifyOnce = (config: string) =>
    run(config, ['-l', SESSION, 'notify', '--once', '--on', 'hook-refused', '--to', 'exec:cat >/dev/null', '--json'], {
      env: notifyEnv(config),
    });

  it('tells a TaskCompleted refusal from the transcript once, with the task, the session and the reason; a restart does not repeat it', () => {
    const config = refusedSession(60_000);
    const first = notifyOnce(config);
    expect(first.code, first.stderr).toBe(0);
    const sent = first.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      outcome: 'sent',
      notification: { event: 'hook-refused', session: SESSION, tasks: [{ id: '1', subject: 'Ship the parser' }] },
    });
    expect(sent[0].notification.text).toBe(
      'a TaskCompleted hook refused session 66666666\'s completion of #1 "Ship the parser" in list 66666666-6 (~/proj): tests must pass first',
    );
    expect(sent[0].notification.action).toBe('tasks -l 66666666-6 get 1');
    expect(contractProblems('notify', first.stdout)).toEqual([]);
    const again = notifyOnce(config);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe('');
  });

  it("a fork's copies of its parent's entries are not the fork's refusals: told once, of the parent, never again for the fork's own list", () => {
    const config = refusedSession(60_000);
    const FORK = '77777777-7777-4777-8777-777777777777';
    const cwd = path.join(config, 'home', 'proj');
    const dir = path.join(config, 'projects', projectFolder(cwd));
    // `claude --resume <parent> --fork-session`: its transcript begins with copies of the
    // parent's user and assistant entries (their times kept, sessionId rewritten, each
    // assistant entry naming the parent in requestSessionId), then its own turn, whose
    // TaskCreate makes its own list.
    const copies = fs
      .readFileSync(path.join(dir, `${SESSION}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === 'user' || e.type === 'assistant')
      .map((e) => ({ ...e, sessionId: FORK, ...(e.type === 'assistant' ? { requestSessionId: SESSION } : {}) }));
    const at = new Date(Date.now() - 30_000).toISOString();
    const own = [
      { sessionId: FORK, cwd, type: 'user', timestamp: at, message: { role: 'user', content: 'try it another way' } },
      {
        sessionId: FORK,
        cwd,
        type: 'assistant',
        timestamp: at,
        message: {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_fork_0', name: 'TaskCreate', input: { subject: 'Another way' } }],
        },
      },
      {
        sessionId: FORK,
        cwd,
        type: 'user',
        timestamp: at,
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_fork_0', content: 'Task #1 created successfully: Another way' }],
        },
        toolUseResult: { task: { id: '1', subject: 'Another way' } },
      },
    ];
    fs.writeFileSync(path.join(dir, `${FORK}.jsonl`), `${[...copies, ...own].map((l) => JSON.stringify(l)).join('\n')}\n`);
    listWith(config, FORK, [taskOf('1', { subject: 'Another way', status: 'pending' })]);
    const r = run(config, ['notify', '--all', '--once', '--on', 'hook-refused', '--to', 'exec:cat >/dev/null', '--json'], {
      env: notifyEnv(config),
    });
    expect(r.code, r.stderr).toBe(0);
    const sent = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).notification);
    expect(sent.map((n) => [n.list, n.session])).toEqual([[SESSION, SESSION]]);
  });

  it('a refusal older than 30 minutes is no news', () => {
    const r = notifyOnce(refusedSession(2 * 60 * 60_000));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
  });
});

describe('notify --all', () => {
  it('follows a list that appears while it runs', async () => {
    const config = tempConfig();
    listWith(config, 'old', [taskOf('1')]);
    const hook = await webhook();
    const p = notify(config, ['--all', '--to', `webhook:${hook.url}`, '--on', 'list-completed']);
    await p.waitForErr('notify: following list old');
    listWith(config, 'fresh', [taskOf('1', { status: 'completed' })]);
    await until(() => hook.got.length === 1, 'list-completed of the new list', 15_000);
    expect(posted(hook.got)[0]).toMatchObject({ event: 'list-completed', list: 'fresh' });
    expect((await p.stop()).code).toBe(0);
  });
});

describe('notify: an exec target that does not answer', () => {
  it('is killed at the timeout with every process it started, and --once exits then, not when they would end', async () => {
    const config = tempConfig();
    listWith(config, 'app', [taskOf('1', { status: 'completed' })]);
    // A distinct duration names the shell's own child among the machine's processes.
    const sleep = `sleep 37.${process.pid % 1000}`;
    const started = Date.now();
    const r = await runAsync(config, ['-l', 'app', 'notify', '--once', '--retries', '1', '--to', `exec:${sleep}; true`], {
      env: notifyEnv(config, { TASKS_NOTIFY_TIMEOUT_MS: '500' }),
      timeoutMs: 30_000,
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/could not be sent after 1 try: .*no answer within 0\.5s/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(running(sleep)).toEqual([]);
  });

  it("a terminal's Ctrl-C (SIGINT to the foreground group) reaches it as it reaches notify: both end at once", async () => {
    const config = tempConfig();
    listWith(config, 'app', [taskOf('1', { status: 'completed' })]);
    const sleep = `sleep 41.${process.pid % 1000}`;
    // A group of its own, as a terminal's foreground job is.
    const job = spawn(process.execPath, [BIN, '-l', 'app', 'notify', '--once', '--retries', '1', '--to', `exec:${sleep}; true`], {
      env: { ...baseEnv(config), ...notifyEnv(config) },
      detached: true,
      stdio: 'ignore',
    });
    const pid = job.pid as number;
    await until(() => running(sleep).length > 0, 'the exec target to start');
    const sent = Date.now();
    const ended = new Promise((resolve) => job.on('exit', resolve));
    process.kill(-pid, 'SIGINT');
    await ended;
    expect(Date.now() - sent).toBeLessThan(5_000);
    await until(() => running(sleep).length === 0, 'the exec target to end');
  });
});

/** The pids of the processes whose command line is `command`. */
function running(command: string): string[] {
  return fs
    .readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ').trim() === command;
      } catch {
        return false;
      }
    });
}
