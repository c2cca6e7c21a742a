/**
 * The board's list payload carries a task in progress whose agent is gone (`agentGone` in
 * its facts) with the answer `tasks get --json` gives (its `gone` object), against the
 * files the real Claude Code 2.1.328 wrote (test/fixtures/claude-code-2.1.328/gone),
 * moved in time to have ended 15 minutes ago; the board's process and the command, side by side.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ListPayload } from '../../src/board/board-protocol.js';
import { type BoardRun, request, startBoard } from '../helpers/board.js';
import { goneFixture } from '../helpers/gone-fixtures.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { procStart, writeLiveSession } from '../helpers/session-files.mjs';

const PERSON = { USER: 'carol', LOGNAME: 'carol' };
const ENDED_AGO = 15 * 60_000;

const children: ChildProcess[] = [];
let board: BoardRun | undefined;
afterEach(async () => {
  await board?.stop();
  board = undefined;
});
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

function agentProcess(env: Record<string, string>): number {
  const child = spawn('sleep', ['600'], { argv0: 'claude', stdio: 'ignore', env: { ...process.env, ...env } });
  children.push(child);
  return child.pid as number;
}

async function listOf(config: string, id: string): Promise<ListPayload> {
  board = await startBoard(config, [], PERSON);
  const r = await request(board.port, `/${board.token}/api/list?id=${id}`);
  expect(r.status, r.body).toBe(200);
  return JSON.parse(r.body) as ListPayload;
}

describe('the board and tasks get: a task whose agent is gone', () => {
  it('a solo agent killed holding #1 with no owner: agentGone says what get --json says', async () => {
    const deadPid = Number(spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim());
    const w = goneFixture('crashed-unowned', { pid: deadPid, endedAgoMs: ENDED_AGO });
    const got = JSON.parse(runInProcessSync(w.config, ['-l', 'solo', 'get', '1', '--json'], { env: PERSON }).stdout) as {
      gone: { session: string; why: string; since: string };
    };
    const list = await listOf(w.config, 'solo');
    const facts = list.facts['1'];
    expect(facts?.agentGone).toEqual({ session: got.gone.session, why: got.gone.why, since: Date.parse(got.gone.since) });
    expect(facts?.agentGone?.why).toBe('session 4aa21e64 crashed');
    expect(facts?.ownerGone).toBe(false);
  });

  it('while its process runs, the session holds #1: no agentGone', async () => {
    const pid = agentProcess({ CLAUDE_CODE_TASK_LIST_ID: 'solo' });
    const w = goneFixture('crashed-unowned', { pid, procStart: procStart(pid), endedAgoMs: ENDED_AGO });
    const list = await listOf(w.config, 'solo');
    expect(list.facts['1']).toBeDefined();
    expect(list.facts['1']).not.toHaveProperty('agentGone');
  });

  it("a crashed session's task that its live fork may go on with: not marked gone, as check and release --gone leave it", async () => {
    const deadPid = Number(spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim());
    const w = goneFixture('forked-live', { pid: deadPid, endedAgoMs: 5 * 60_000 });
    const fork = agentProcess({ CLAUDE_CODE_TASK_LIST_ID: 'rf' });
    writeLiveSession(w.config, { pid: fork, sessionId: '0ea1b2eb-1961-46fa-9b97-f1ced9375f7a', cwd: w.live.cwd, status: 'idle' });
    const checked = JSON.parse(runInProcessSync(w.config, ['-l', 'rf', 'check', '--json'], { env: PERSON }).stdout) as {
      findings: Array<{ code: string }>;
    };
    expect(checked.findings.map((f) => f.code)).not.toContain('owner_gone');
    const list = await listOf(w.config, 'rf');
    expect([list.facts['1']?.ownerGone, list.facts['2']?.ownerGone]).toEqual([false, false]);
  });

  it('an owner gone with a /clear is marked by its owner, not as an agent gone', async () => {
    const pid = agentProcess({});
    const w = goneFixture('cleared-shared', { pid, procStart: procStart(pid), endedAgoMs: ENDED_AGO });
    const list = await listOf(w.config, 'team');
    expect(list.facts['1']?.ownerGone).toBe(true);
    expect(list.facts['1']).not.toHaveProperty('agentGone');
  });
});
