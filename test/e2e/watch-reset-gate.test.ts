/**
 * `watch --until all-completed` on the list of an interactive session that clears its list
 * itself (docs/task-store.md section 6, reset): about 5 s after every task is completed,
 * Claude Code deletes the list's files, and a turn that goes on past that (a test run, a
 * summary) is still busy then. The work was done: once the session is idle the gate
 * passes. A list emptied with work open in it (#90709) is no work done.
 */

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempConfig, writeTask } from '../helpers/cli.js';
import { writeLiveSession, writeTaskTranscript } from '../helpers/session-files.mjs';
import { startWatch } from '../helpers/watch.js';

const SESSION = '5b1f6a2e-0c3d-4e5f-8a9b-0c1d2e3f4a5b';
const t = (id: string, status: string) => ({ id, subject: `task ${id}`, description: '', status, blocks: [], blockedBy: [] });

// The sessions' processes: running, and not above the watch (a watch leaves out the session it runs in).
const agents: Array<ReturnType<typeof spawn>> = [];
afterAll(() => {
  for (const a of agents) a.kill('SIGKILL');
});

function busyWorld(statuses: string[]) {
  const config = tempConfig();
  const cwd = path.join(config, 'home', 'proj');
  const list = path.join(config, 'tasks', SESSION);
  const at = Date.now() - 60_000;
  // A session at work, its turn not over: its transcript has no end yet.
  writeTaskTranscript(config, {
    sessionId: SESSION,
    cwd,
    running: true,
    calls: statuses.map((_, i) => ({
      name: 'TaskCreate',
      input: { subject: `task ${i + 1}`, description: '' },
      result: { task: { id: String(i + 1), subject: `task ${i + 1}` } },
      at: at + i * 1000,
    })),
  });
  const agent = spawn('sleep', ['600'], { stdio: 'ignore' });
  agents.push(agent);
  const live = writeLiveSession(config, { pid: agent.pid as number, sessionId: SESSION, cwd, status: 'busy' });
  for (const [i, s] of statuses.entries()) writeTask(list, t(String(i + 1), s));
  const idle = () => {
    const body = JSON.parse(fs.readFileSync(live, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(live, JSON.stringify({ ...body, status: 'idle', updatedAt: Date.now(), statusUpdatedAt: Date.now() }));
  };
  /** What Claude Code's reset does: the mark raised to the last id, every task file deleted. */
  const reset = () => {
    fs.writeFileSync(path.join(list, '.highwatermark'), String(statuses.length));
    for (const f of fs.readdirSync(list)) if (f.endsWith('.json')) fs.rmSync(path.join(list, f));
  };
  return { config, idle, reset };
}

describe('a finished list its session clears while its turn goes on', () => {
  for (const statuses of [['completed', 'completed'], ['completed']]) {
    it(`${statuses.length} completed, cleared while busy: the gate passes once the session is idle`, async () => {
      const w = busyWorld(statuses);
      const watch = startWatch(w.config, ['-l', SESSION, 'watch', '--until', 'all-completed', '--timeout', '10s', '--json']);
      await watch.waitFor((e) => e.event === 'waiting', 'the wait for the busy session');
      w.reset();
      await watch.waitFor((e) => e.event === 'list-cleared' || e.event === 'deleted', 'the reset');
      await new Promise((r) => setTimeout(r, 300));
      w.idle();
      const r = await watch.exited;
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout.trim().split('\n').at(-1) as string)).toMatchObject({ event: 'end', reason: 'condition-met', met: true });
    });
  }

  it('a list emptied with a task still pending in it is no work done: the gate waits', async () => {
    const w = busyWorld(['completed', 'pending']);
    const watch = startWatch(w.config, ['-l', SESSION, 'watch', '--until', 'all-completed', '--timeout', '4s', '--json']);
    await watch.waitFor((e) => e.event === 'snapshot', 'the snapshot');
    await new Promise((r) => setTimeout(r, 300));
    w.reset();
    await watch.waitFor((e) => e.event === 'list-cleared', 'the emptying');
    w.idle();
    expect((await watch.exited).code).toBe(124);
  });

  it('a task completed then deleted, then another left pending: the gate waits', async () => {
    const w = busyWorld(['completed']);
    const config = w.config;
    const list = path.join(config, 'tasks', SESSION);
    const watch = startWatch(config, ['-l', SESSION, 'watch', '--until', 'all-completed', '--timeout', '4s', '--json']);
    await watch.waitFor((e) => e.event === 'waiting', 'the wait');
    w.reset();
    await watch.waitFor((e) => e.event === 'deleted', 'the reset');
    writeTask(list, t('2', 'pending'));
    await watch.waitFor((e) => e.event === 'created', 'the next task');
    w.idle();
    expect((await watch.exited).code).toBe(124);
  });
});

describe('a list emptied with work open, then given new work that is finished and cleared', () => {
  it('the new work done counts: the gate passes once the session is idle, as it would had the turn ended before the clear', async () => {
    const w = busyWorld(['completed', 'pending']);
    const list = path.join(w.config, 'tasks', SESSION);
    const watch = startWatch(w.config, ['-l', SESSION, 'watch', '--until', 'all-completed', '--timeout', '8s', '--json']);
    await watch.waitFor((e) => e.event === 'snapshot', 'the snapshot');
    await new Promise((r) => setTimeout(r, 300));
    w.reset();
    await watch.waitFor((e) => e.event === 'list-cleared', 'the emptying with task 2 open');
    // The agent starts over: new tasks, each completed.
    writeTask(list, t('3', 'completed'));
    writeTask(list, t('4', 'completed'));
    await watch.waitFor((e) => e.event === 'created' && (e.task as { id?: string })?.id === '4', 'the new work');
    // Claude Code clears the finished list about 5 s later, the turn still going on.
    fs.writeFileSync(path.join(list, '.highwatermark'), '4');
    for (const f of fs.readdirSync(list)) if (f.endsWith('.json')) fs.rmSync(path.join(list, f));
    await watch.waitFor((e) => e.event === 'list-cleared' || e.event === 'deleted', 'the clear of the finished work');
    await new Promise((r) => setTimeout(r, 300));
    w.idle();
    const r = await watch.exited;
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().split('\n').at(-1) as string)).toMatchObject({ event: 'end', reason: 'condition-met', met: true });
  });
});

describe('a list emptied with work open, its open task seen to go first', () => {
  it('the completed task seen to go after it is no work done: the gate waits', async () => {
    const w = busyWorld(['completed', 'pending']);
    const list = path.join(w.config, 'tasks', SESSION);
    const watch = startWatch(w.config, ['-l', SESSION, 'watch', '--until', 'all-completed', '--timeout', '5s', '--json']);
    await watch.waitFor((e) => e.event === 'snapshot', 'the snapshot');
    await new Promise((r) => setTimeout(r, 300));
    fs.writeFileSync(path.join(list, '.highwatermark'), '2');
    fs.rmSync(path.join(list, '2.json'));
    await watch.waitFor((e) => e.event === 'deleted', 'the open task gone');
    fs.rmSync(path.join(list, '1.json'));
    await watch.waitFor((e) => e.event === 'deleted' && (e.task as { id?: string })?.id === '1', 'the completed one gone');
    w.idle();
    expect((await watch.exited).code).toBe(124);
  });
});
