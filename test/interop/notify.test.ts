/**
 * Interop: `tasks notify` following lists the real Claude Code writes.
 *
 * - An agent completes its list: list-completed reaches a webhook within 3 s of its run's
 *   end (a headless run is at work until it exits: notify-busy-gate.test.ts); a restarted
 *   notify does not send it again.
 * - An agent holding work in progress is SIGKILLed: agent-died within 10 s, naming its
 *   task, its owner and release --gone; nothing while it was alive.
 * - From cron (`--once`): an agent killed holding work, or between steps with its plan
 *   open, is told once, its transcript touched after or not; resumed with `--resume` and
 *   killed again, it is told again, with no run between the two deaths.
 * - An agent ends its run with its task in progress while another works on the list:
 *   agent-died within 10 s for its owner alone.
 * - An agent sets a task in progress, then waits on its next turn: stalled once the task
 *   has gone unchanged for --stalled, while the agent is still alive.
 * - A TaskCompleted hook refuses an agent's completion: hook-refused, with the task and
 *   the hook's reason, read from the agent's transcript (the task file is unchanged).
 *   Forked after it (`--resume --fork-session`, whose transcript begins with copies of
 *   its parent's entries), the refusal is not told again as the fork's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAsync } from '../helpers/cli.js';
import { receiver, startNotify, until } from '../helpers/notify.js';
import { parseNdjson } from '../helpers/replay.js';
import { runAgent } from './agent.js';
import { startInteractive } from './interactive.js';
import type { Turn } from './mock-model.js';
import { gate, liveFiles, waitFor, world } from './session-world.js';

const CREATE = (subject: string): Turn => [{ name: 'TaskCreate', input: { subject, description: `${subject}, from the agent` } }];
const UPDATE = (id: string, input: Record<string, unknown>): Turn => [{ name: 'TaskUpdate', input: { taskId: id, ...input } }];
const LIST: Turn = [{ name: 'TaskList', input: {} }];

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function webhook() {
  const r = await receiver();
  cleanups.push(() => r.close());
  return r;
}

function notify(config: string, home: string, args: string[]) {
  const p = startNotify(config, args, { HOME: home, XDG_STATE_HOME: path.join(config, 'state') });
  cleanups.push(() => p.stop());
  return p;
}

const posted = (got: Array<{ body: string }>) => got.map((g) => JSON.parse(g.body) as Record<string, unknown>);

describe('the real Claude Code: notify', () => {
  it("an agent that completes its list: list-completed within 3 s of its run's end; a restart does not repeat it", async () => {
    const w = world();
    const proj = w.dir('app');
    const hook = await webhook();
    const args = ['-l', 'nightly', '--to', `webhook:${hook.url}`, '--on', 'list-completed'];
    const first = notify(w.config, w.home, args);
    await first.waitForErr('notify: following list nightly');
    await runAgent({
      configDir: w.config,
      listId: 'nightly',
      cwd: proj,
      turns: [
        CREATE('Build'),
        CREATE('Test'),
        UPDATE('1', { status: 'in_progress' }),
        UPDATE('1', { status: 'completed' }),
        UPDATE('2', { status: 'in_progress' }),
        UPDATE('2', { status: 'completed' }),
        LIST,
      ],
    });
    const endedAt = Date.now();
    await until(() => hook.got.length === 1, 'list-completed', 10_000);
    expect((hook.got[0]?.at ?? 0) - endedAt).toBeLessThan(3_000);
    expect(posted(hook.got)[0]).toMatchObject({
      event: 'list-completed',
      list: 'nightly',
      project: '~/app',
      tasks: [
        { id: '1', subject: 'Build', status: 'completed' },
        { id: '2', subject: 'Test', status: 'completed' },
      ],
    });
    expect((await first.stop()).code).toBe(0);
    const again = notify(w.config, w.home, args);
    await again.waitForErr('notify: following');
    await new Promise((r) => setTimeout(r, 2500));
    expect(hook.got).toHaveLength(1);
  });

  it('an agent SIGKILLed holding work: agent-died within 10 s, with its task, owner and release --gone', async () => {
    const w = world();
    const job = w.dir('ci/job-1');
    const hook = await webhook();
    const p = notify(w.config, w.home, ['-l', 'nightly', '--to', `webhook:${hook.url}`, '--on', 'agent-died']);
    await p.waitForErr('notify: following list nightly');
    const held = gate();
    const dying = runAgent({
      configDir: w.config,
      listId: 'nightly',
      cwd: job,
      turns: [CREATE('Build'), UPDATE('1', { status: 'in_progress', owner: 'worker-c' }), LIST],
      beforeTurn: (i) => (i === 2 ? held.wait() : undefined),
    }).catch(() => undefined);
    try {
      await held.arrived;
      const victim = await waitFor('the agent', () => liveFiles(w.config).find((f) => f.cwd === job));
      // Alive and holding #1: nothing to tell.
      await new Promise((r) => setTimeout(r, 3000));
      expect(hook.got).toEqual([]);
      const killedAt = Date.now();
      process.kill(victim.pid, 'SIGKILL');
      await until(() => hook.got.length === 1, 'agent-died', 15_000);
      expect((hook.got[0]?.at ?? 0) - killedAt).toBeLessThan(10_000);
      const [doc] = posted(hook.got);
      expect(doc).toMatchObject({
        event: 'agent-died',
        list: 'nightly',
        session: victim.sessionId,
        project: '~/ci/job-1',
        tasks: [{ id: '1', subject: 'Build', status: 'in_progress', owner: 'worker-c' }],
        action: 'tasks -l nightly release --gone',
      });
      expect(doc?.text).toBe(`worker-c holds #1 in list nightly (~/ci/job-1), but session ${victim.sessionId.slice(0, 8)} crashed`);
    } finally {
      held.open();
      await dying;
    }
  });
  it('an agent killed holding work, resumed and killed again between two notify --once runs (cron): agent-died twice; runs with nothing new, its transcript touched, tell nothing', async () => {
    const w = world();
    const job = w.dir('ci/job-3');
    const out = path.join(w.config, 'sent.jsonl');
    const once = async () => {
      const r = await runAsync(
        w.config,
        ['-l', 'nightly', 'notify', '--once', '--on', 'agent-died', '--to', `exec:cat >> '${out}'; echo >> '${out}'`],
        { env: { HOME: w.home, XDG_STATE_HOME: path.join(w.config, 'state') } },
      );
      expect(r.code, r.stderr).toBe(0);
      return fs.existsSync(out)
        ? fs
            .readFileSync(out, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l).event)
        : [];
    };
    const first = await runAgent({
      configDir: w.config,
      listId: 'nightly',
      cwd: job,
      turns: [CREATE('Build'), UPDATE('1', { status: 'in_progress', owner: 'worker-c' }), LIST],
      killAtTurn: 2,
    });
    const session = first.stream.sessionId as string;
    expect(await once()).toEqual(['agent-died']);
    expect(await once()).toEqual(['agent-died']);
    // A backup tool touches it: nothing was written, nobody died again.
    const transcript = fs
      .readdirSync(path.join(w.config, 'projects'))
      .map((d) => path.join(w.config, 'projects', d, `${session}.jsonl`))
      .find((f) => fs.existsSync(f)) as string;
    const later = new Date();
    fs.utimesSync(transcript, later, later);
    expect(await once()).toEqual(['agent-died']);
    // Resumed (the same session), and killed again still holding #1, with no notify run between.
    await runAgent({ configDir: w.config, listId: 'nightly', cwd: job, args: ['--resume', session], turns: [LIST, LIST], killAtTurn: 1 });
    expect(await once()).toEqual(['agent-died', 'agent-died']);
    expect(await once()).toEqual(['agent-died', 'agent-died']);
  });

  it('an agent killed between steps, its plan open: notify --once tells work-left once, its transcript touched or not; resumed and killed again, anew', async () => {
    const w = world();
    const job = w.dir('ci/job-4');
    const out = path.join(w.config, 'sent.jsonl');
    const once = async () => {
      const r = await runAsync(
        w.config,
        ['-l', 'nightly', 'notify', '--once', '--on', 'work-left', '--to', `exec:cat >> '${out}'; echo >> '${out}'`],
        { env: { HOME: w.home, XDG_STATE_HOME: path.join(w.config, 'state') } },
      );
      expect(r.code, r.stderr).toBe(0);
      return fs.existsSync(out)
        ? fs
            .readFileSync(out, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l).event)
        : [];
    };
    const first = await runAgent({
      configDir: w.config,
      listId: 'nightly',
      cwd: job,
      turns: [CREATE('Build'), CREATE('Test'), LIST],
      killAtTurn: 2,
    });
    const session = first.stream.sessionId as string;
    expect(await once()).toEqual(['work-left']);
    const transcript = fs
      .readdirSync(path.join(w.config, 'projects'))
      .map((d) => path.join(w.config, 'projects', d, `${session}.jsonl`))
      .find((f) => fs.existsSync(f)) as string;
    for (const ahead of [1000, 60_000]) {
      const at = new Date(Date.now() + ahead);
      fs.utimesSync(transcript, at, at);
      expect(await once()).toEqual(['work-left']);
    }
    await runAgent({ configDir: w.config, listId: 'nightly', cwd: job, args: ['--resume', session], turns: [LIST, LIST], killAtTurn: 1 });
    expect(await once()).toEqual(['work-left', 'work-left']);
    expect(await once()).toEqual(['work-left', 'work-left']);
  });

  it('an agent that ends its run holding work while another lives on the list: agent-died within 10 s, for it alone', async () => {
    const w = world();
    const hook = await webhook();
    const p = notify(w.config, w.home, ['-l', 'nightly', '--to', `webhook:${hook.url}`, '--on', 'agent-died']);
    await p.waitForErr('notify: following list nightly');
    const held = gate();
    const working = runAgent({
      configDir: w.config,
      listId: 'nightly',
      cwd: w.dir('ci/job-1'),
      turns: [CREATE('Build'), UPDATE('1', { status: 'in_progress', owner: 'worker-a' }), LIST],
      beforeTurn: (i) => (i === 2 ? held.wait() : undefined),
    }).catch(() => undefined);
    try {
      await held.arrived;
      const run = await runAgent({
        configDir: w.config,
        listId: 'nightly',
        cwd: w.dir('ci/job-2'),
        turns: [CREATE('Test'), UPDATE('2', { status: 'in_progress', owner: 'worker-b' })],
      });
      const endedAt = Date.now();
      const quitter = { sessionId: (parseNdjson(run.stdout)[0] as { session_id?: string }).session_id ?? '' };
      await until(() => hook.got.length === 1, 'agent-died', 15_000);
      expect((hook.got[0]?.at ?? 0) - endedAt).toBeLessThan(10_000);
      const [doc] = posted(hook.got);
      expect(doc).toMatchObject({
        event: 'agent-died',
        list: 'nightly',
        session: quitter.sessionId,
        tasks: [{ id: '2', subject: 'Test', status: 'in_progress', owner: 'worker-b' }],
      });
      expect(doc?.text).toMatch(new RegExp(`^worker-b holds #2 in list nightly .*, but session ${quitter.sessionId.slice(0, 8)} ended$`));
      // The live agent's work is not told as dead.
      await new Promise((r) => setTimeout(r, 3000));
      expect(hook.got).toHaveLength(1);
    } finally {
      held.open();
      await working;
    }
  });
  it('an agent SIGKILLed between steps, its next task pending: work-left within 10 s, naming it; nothing while alive', async () => {
    const w = world();
    const job = w.dir('ci/job-4');
    const hook = await webhook();
    const p = notify(w.config, w.home, ['-l', 'nightly', '--to', `webhook:${hook.url}`, '--on', 'work-left,agent-died']);
    await p.waitForErr('notify: following list nightly');
    const held = gate();
    const dying = runAgent({
      configDir: w.config,
      listId: 'nightly',
      cwd: job,
      turns: [CREATE('Build'), CREATE('Test'), UPDATE('1', { status: 'in_progress' }), UPDATE('1', { status: 'completed' }), LIST],
      beforeTurn: (i) => (i === 4 ? held.wait() : undefined),
    }).catch(() => undefined);
    try {
      await held.arrived;
      const victim = await waitFor('the agent', () => liveFiles(w.config).find((f) => f.cwd === job));
      // Alive between its steps, #2 planned: nothing to tell.
      await new Promise((r) => setTimeout(r, 3000));
      expect(hook.got).toEqual([]);
      const killedAt = Date.now();
      process.kill(victim.pid, 'SIGKILL');
      await until(() => hook.got.length === 1, 'work-left', 15_000);
      expect((hook.got[0]?.at ?? 0) - killedAt).toBeLessThan(10_000);
      const [doc] = posted(hook.got);
      expect(doc).toMatchObject({
        event: 'work-left',
        list: 'nightly',
        session: victim.sessionId,
        project: '~/ci/job-4',
        tasks: [{ id: '2', subject: 'Test', status: 'pending', owner: null }],
        action: 'tasks -l nightly list',
      });
      expect(doc?.text).toBe(`session ${victim.sessionId.slice(0, 8)} crashed with 1 task not done in list nightly (~/ci/job-4): #2`);
      // Told once.
      await new Promise((r) => setTimeout(r, 3000));
      expect(hook.got).toHaveLength(1);
    } finally {
      held.open();
      await dying;
    }
  });

  it('an interactive session /clear-ed with a task open, then exited before any prompt: not told as work-left; resumed and ended, it is', async () => {
    const w = world();
    const proj = w.dir('work/web');
    const byPrompt = (prompt: string): Turn | undefined => {
      const subject = /^create (.+)$/m.exec(prompt)?.[1];
      return subject === undefined ? undefined : CREATE(subject);
    };
    const a = await startInteractive({ configDir: w.config, cwd: proj, home: w.home, byPrompt });
    cleanups.push(() => a.stop());
    const first = await waitFor('the live file', () => liveFiles(w.config)[0]);
    await a.waitFor((s) => /auto mode|for shortcuts/.test(s), 'the prompt');
    const hook = await webhook();
    const p = notify(w.config, w.home, ['-l', first.sessionId, '--to', `webhook:${hook.url}`, '--on', 'work-left']);
    await p.waitForErr('notify: following list');
    a.type('create Mine');
    await waitFor('the task', () => fs.existsSync(path.join(w.config, 'tasks', first.sessionId, '1.json')) || undefined);
    await new Promise((r) => setTimeout(r, 2500));
    a.type('/clear');
    await waitFor('the new session', () => liveFiles(w.config).find((f) => f.pid === first.pid && f.sessionId !== first.sessionId));
    await new Promise((r) => setTimeout(r, 3000));
    expect(hook.got).toEqual([]);
    // Its process exits with no turn in the new session: nothing on disk says /clear any more.
    a.type('/exit');
    await waitFor('the process to end', () => liveFiles(w.config).every((f) => f.pid !== first.pid) || undefined, 15_000);
    await new Promise((r) => setTimeout(r, 5000));
    expect(hook.got.map((g) => g.body)).toEqual([]);
    // Resumed later (the same id), it plans more and its run ends with both open: that end is told.
    await runAgent({ configDir: w.config, listId: undefined, cwd: proj, args: ['--resume', first.sessionId], turns: [CREATE('More')] });
    await until(() => hook.got.length === 1, 'work-left of the resumed run', 15_000);
    expect(posted(hook.got)[0]).toMatchObject({ event: 'work-left', session: first.sessionId, tasks: [{ id: '1' }, { id: '2' }] });
  });

  it('an agent whose run ends with a task pending: work-left, ended; notify --once after it tells it too', async () => {
    const w = world();
    const job = w.dir('ci/job-5');
    const hook = await webhook();
    const p = notify(w.config, w.home, ['-l', 'nightly', '--to', `webhook:${hook.url}`, '--on', 'work-left,list-completed']);
    await p.waitForErr('notify: following list nightly');
    const run = await runAgent({
      configDir: w.config,
      listId: 'nightly',
      cwd: job,
      turns: [CREATE('Build'), CREATE('Test'), UPDATE('1', { status: 'in_progress' }), UPDATE('1', { status: 'completed' })],
    });
    const session = (parseNdjson(run.stdout)[0] as { session_id?: string }).session_id ?? '';
    await until(() => hook.got.length === 1, 'work-left', 15_000);
    expect(posted(hook.got)[0]).toMatchObject({ event: 'work-left', session, tasks: [{ id: '2', status: 'pending' }] });
    expect(posted(hook.got)[0]?.text).toBe(`session ${session.slice(0, 8)} ended with 1 task not done in list nightly (~/ci/job-5): #2`);
    // A notify of its own (its own sent state), started after the end: one look tells it.
    const later = await webhook();
    const once = notify(w.config, w.home, ['-l', 'nightly', '--once', '--to', `webhook:${later.url}`, '--on', 'work-left']);
    await until(() => later.got.length === 1, 'work-left from --once', 15_000);
    expect(posted(later.got)[0]).toMatchObject({ event: 'work-left', session });
    await until(() => once.child.exitCode !== null, 'notify --once to exit', 10_000);
    expect(once.child.exitCode).toBe(0);
  });

  it('an agent that starts a task, then waits on its next turn: stalled after --stalled 5s, the agent still alive', async () => {
    const w = world();
    const job = w.dir('ci/job-3');
    const hook = await webhook();
    const p = notify(w.config, w.home, ['-l', 'nightly', '--to', `webhook:${hook.url}`, '--on', 'stalled', '--stalled', '5s']);
    await p.waitForErr('notify: following list nightly');
    const held = gate();
    const waiting = runAgent({
      configDir: w.config,
      listId: 'nightly',
      cwd: job,
      turns: [CREATE('Deploy'), UPDATE('1', { status: 'in_progress', owner: 'worker-d' }), UPDATE('1', { status: 'completed' })],
      beforeTurn: (i) => (i === 2 ? held.wait() : undefined),
    }).catch(() => undefined);
    try {
      await held.arrived;
      const started = fs.statSync(path.join(w.config, 'tasks', 'nightly', '1.json')).mtimeMs;
      const agent = await waitFor('the agent', () => liveFiles(w.config).find((f) => f.cwd === job));
      await until(() => hook.got.length === 1, 'stalled', 30_000);
      const after = (hook.got[0]?.at ?? 0) - started;
      console.log(`notify: stalled sent ${after} ms after the task was started (--stalled 5s)`);
      expect(after).toBeGreaterThanOrEqual(5_000);
      expect(after).toBeLessThan(15_000);
      // The agent is alive, waiting on its turn: stalled, not dead.
      expect(() => process.kill(agent.pid, 0)).not.toThrow();
      const [doc] = posted(hook.got);
      expect(doc).toMatchObject({
        event: 'stalled',
        list: 'nightly',
        project: '~/ci/job-3',
        tasks: [{ id: '1', subject: 'Deploy', status: 'in_progress', owner: 'worker-d' }],
        action: 'tasks -l nightly get 1',
      });
      expect(doc?.text).toMatch(
        /^#1 "Deploy" in list nightly \(~\/ci\/job-3\) has been in progress for \d+s without a change \(worker-d\), and no session is at work$/,
      );
    } finally {
      held.open();
      await waiting;
    }
  });

  it("a TaskCompleted hook refuses the agent's completion: hook-refused within 15 s, with the task and the hook's reason", async () => {
    const w = world();
    const proj = w.dir('app');
    fs.writeFileSync(
      path.join(w.config, 'settings.json'),
      JSON.stringify({ hooks: { TaskCompleted: [{ hooks: [{ type: 'command', command: "echo 'tests must pass first' >&2; exit 2" }] }] } }),
    );
    const hook = await webhook();
    const p = notify(w.config, w.home, ['-l', 'nightly', '--to', `webhook:${hook.url}`, '--on', 'hook-refused']);
    await p.waitForErr('notify: following list nightly');
    await runAgent({
      configDir: w.config,
      listId: 'nightly',
      cwd: proj,
      turns: [CREATE('Ship'), UPDATE('1', { status: 'completed' }), LIST],
    });
    const ended = Date.now();
    await until(() => hook.got.length === 1, 'hook-refused', 15_000);
    console.log(`notify: hook-refused sent ${(hook.got[0]?.at ?? 0) - ended} ms after the agent's run ended`);
    expect(JSON.parse(fs.readFileSync(path.join(w.config, 'tasks', 'nightly', '1.json'), 'utf8'))).toMatchObject({ status: 'pending' });
    const [doc] = posted(hook.got);
    expect(doc).toMatchObject({
      event: 'hook-refused',
      list: 'nightly',
      tasks: [{ id: '1', subject: 'Ship', status: 'pending' }],
      action: 'tasks -l nightly get 1',
    });
    expect(doc?.text).toMatch(
      /^a TaskCompleted hook refused session [0-9a-f]{8}'s completion of #1 "Ship" in list nightly .*: tests must pass first$/,
    );
    await new Promise((r) => setTimeout(r, 2500));
    expect(hook.got).toHaveLength(1);
  });

  it("a session forked after a hook refused its completion: the refusal is told once, of the parent, not again as the fork's", async () => {
    const w = world();
    const proj = w.dir('app');
    fs.writeFileSync(
      path.join(w.config, 'settings.json'),
      JSON.stringify({ hooks: { TaskCompleted: [{ hooks: [{ type: 'command', command: "echo 'tests must pass first' >&2; exit 2" }] }] } }),
    );
    const parent = await runAgent({
      configDir: w.config,
      listId: undefined,
      cwd: proj,
      turns: [CREATE('Ship'), UPDATE('1', { status: 'completed' })],
    });
    const parentId = parent.stream.sessionId as string;
    const fork = await runAgent({
      configDir: w.config,
      listId: undefined,
      cwd: proj,
      args: ['--resume', parentId, '--fork-session'],
      turns: [CREATE('Ship it another way')],
    });
    const forkId = fork.stream.sessionId as string;
    expect(forkId).not.toBe(parentId);
    expect(fs.existsSync(path.join(w.config, 'tasks', forkId, '1.json'))).toBe(true);
    const hook = await webhook();
    const once = await runAsync(w.config, ['notify', '--all', '--once', '--on', 'hook-refused', '--to', `webhook:${hook.url}`], {
      env: { HOME: w.home, XDG_STATE_HOME: path.join(w.config, 'state') },
    });
    expect(once.code, once.stderr).toBe(0);
    expect(posted(hook.got).map((d) => [d.list, d.session])).toEqual([[parentId, parentId]]);
  });
});
