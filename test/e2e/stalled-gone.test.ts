/**
 * `--stalled` shows a task whose agent is known gone whatever the list's other sessions do
 * and however lately it changed: a dead agent's task waits on nobody. Against the files the
 * real Claude Code 2.1.328 wrote (test/fixtures/claude-code-2.1.328/gone/crashed-unowned: a
 * solo agent killed while #1, in progress with no owner, was its work), moved in time:
 *
 * - crashed 2 minutes ago, younger than the stall asked for (1h);
 * - crashed 15 minutes ago while another session of the list is busy on a turn (its
 *   transcript growing: written within the stall asked for, 10m), which only looked at #1.
 *   Its own work, #2 in progress for 15 minutes that no session claimed, is not stalled
 *   while it is at work: the stall's rule is kept.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentProcesses, deadPid, goneFixture } from '../helpers/gone-fixtures.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { writeLiveSession, writeTaskTranscript } from '../helpers/session-files.mjs';

const CRASHED = '4aa21e64-031c-4afc-99a4-d063429beef5';
const BUSY = 'c1d2e3f4-0a1b-4c2d-8e3f-4a5b6c7d8e90';

const agentProcess = agentProcesses();

const GONE = { session: CRASHED, state: 'crashed', why: 'session 4aa21e64 crashed', unowned: true };

type Listed = Array<{ id: string; gone?: Record<string, unknown> }>;
type Item = { list: string; stalled: Array<{ task: { id: string }; idleMs: number; gone?: Record<string, unknown> }> };

/** A crashed, then a session of `solo` busy on a turn now: it looked at #1, and #2 (in progress, 15 minutes old) is its work. */
function busyBeside() {
  const w = goneFixture('crashed-unowned', { pid: deadPid(), endedAgoMs: 15 * 60_000 });
  const second = path.join(w.dir, '2.json');
  fs.writeFileSync(
    second,
    JSON.stringify({ id: '2', subject: 'Its own work', description: 'b', status: 'in_progress', blocks: [], blockedBy: [] }, null, 2),
  );
  const old = (Date.now() - 15 * 60_000) / 1000;
  fs.utimesSync(second, old, old);
  const { pid } = agentProcess({ CLAUDE_CODE_TASK_LIST_ID: 'solo' });
  const cwd = path.join(path.dirname(w.config), 'work', 'b');
  writeLiveSession(w.config, { pid, sessionId: BUSY, cwd, status: 'busy', start: Date.now() - 20 * 60_000 });
  const at = Date.now() - 5_000;
  writeTaskTranscript(w.config, {
    sessionId: BUSY,
    cwd,
    running: true,
    calls: [
      {
        name: 'TaskGet',
        input: { taskId: '1' },
        result: { task: { id: '1', subject: 'Fix it', description: 'a', status: 'in_progress', blocks: [], blockedBy: [] } },
        at,
      },
    ],
  });
  return w;
}

describe('list --stalled and lists --stalled: a crashed agent’s #1 younger than the stall asked for', () => {
  const young = () => goneFixture('crashed-unowned', { pid: deadPid(), endedAgoMs: 2 * 60_000 });

  it('list --stalled 1h --json gives #1 with its gone object; piped, its line and the agent_gone warning', () => {
    const w = young();
    const r = runInProcessSync(w.config, ['-l', 'solo', 'list', '--stalled', '1h', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const listed = JSON.parse(r.stdout) as Listed;
    expect(listed.map((t) => t.id)).toEqual(['1']);
    expect(listed[0]?.gone).toMatchObject(GONE);
    const piped = runInProcessSync(w.config, ['-l', 'solo', 'list', '--stalled', '1h']);
    expect(piped.stdout).toMatch(/^1\tin_progress\t-\t-\tFix it$/m);
    expect(piped.stderr).toMatch(/agent_gone|agent is gone/);
  });

  it('lists --stalled 1h --json gives #1, marked gone, with how long it has gone unchanged', () => {
    const w = young();
    const r = runInProcessSync(w.config, ['lists', '--stalled', '1h', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const item = (JSON.parse(r.stdout) as Item[]).find((i) => i.list === 'solo');
    expect(item?.stalled.map((s) => s.task.id)).toEqual(['1']);
    expect(item?.stalled[0]?.gone).toMatchObject(GONE);
    expect(item?.stalled[0]?.idleMs).toBeGreaterThan(60_000);
    expect(item?.stalled[0]?.idleMs).toBeLessThan(60 * 60_000);
  });
});

describe('list --stalled and lists --stalled: a crashed agent’s #1 while another session of the list is busy', () => {
  it('list --stalled 10m --json gives #1 with its gone object, and not the busy session’s #2', () => {
    const w = busyBeside();
    const r = runInProcessSync(w.config, ['-l', 'solo', 'list', '--stalled', '10m', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const listed = JSON.parse(r.stdout) as Listed;
    expect(listed.map((t) => t.id)).toEqual(['1']);
    expect(listed[0]?.gone).toMatchObject(GONE);
  });

  it('list --stalled 10m piped: #1 alone, said gone on stderr', () => {
    const w = busyBeside();
    const r = runInProcessSync(w.config, ['-l', 'solo', 'list', '--stalled', '10m']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^1\tin_progress\t-\t-\tFix it$/m);
    expect(r.stdout).not.toMatch(/^2\t/m);
    expect(r.stderr).toMatch(/session 4aa21e64 crashed/);
  });

  it('lists --stalled 10m --json gives #1, marked gone, and not #2', () => {
    const w = busyBeside();
    const r = runInProcessSync(w.config, ['lists', '--stalled', '10m', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const item = (JSON.parse(r.stdout) as Item[]).find((i) => i.list === 'solo');
    expect(item?.stalled.map((s) => s.task.id)).toEqual(['1']);
    expect(item?.stalled[0]?.gone).toMatchObject(GONE);
  });
});
