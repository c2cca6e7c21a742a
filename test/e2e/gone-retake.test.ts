/**
 * A crashed agent's task that a live session took up as it was: agent A (the real Claude
 * Code 2.1.328's files, test/fixtures/claude-code-2.1.328/gone/crashed-unowned, ended
 * 15 minutes ago) set #1 in progress with no owner and was killed; then session B, live on
 * the same list, calls `TaskUpdate {taskId:"1", status:"in_progress"}`. Claude Code answers
 * `updatedFields: []` and writes nothing (checked with 2.1.332), so only B's transcript
 * says B took #1 up: `get`, `list`, `check` and `release --gone` must not call #1 gone,
 * nor give it back. A live session that only looked at #1 takes nothing up: #1 stays gone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { snapshotDir } from '../helpers/cli.js';
import { agentProcesses, deadPid, goneFixture } from '../helpers/gone-fixtures.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { writeLiveSession, writeTaskTranscript } from '../helpers/session-files.mjs';

const CRASHED = '4aa21e64-031c-4afc-99a4-d063429beef5';
const TAKER = 'b7e1c2d3-4f50-4a61-8b72-9c83d4e5f601';
const ENDED_AGO = 15 * 60_000;

const agentProcess = agentProcesses();

type Call = { name: string; input: Record<string, unknown>; result: Record<string, unknown>; at: number };

/** A's crash, then B live on `solo` with these calls (a minute ago and on), its transcript still growing. */
function world(calls: (at: number) => Call[]) {
  const w = goneFixture('crashed-unowned', { pid: deadPid(), endedAgoMs: ENDED_AGO });
  const { pid } = agentProcess({ CLAUDE_CODE_TASK_LIST_ID: 'solo' });
  const cwd = path.join(path.dirname(w.config), 'work', 'b');
  writeLiveSession(w.config, { pid, sessionId: TAKER, cwd, status: 'busy', start: Date.now() - 120_000 });
  writeTaskTranscript(w.config, { sessionId: TAKER, cwd, calls: calls(Date.now() - 60_000), running: true });
  return w;
}

const RETAKE = (at: number): Call => ({
  name: 'TaskUpdate',
  input: { taskId: '1', status: 'in_progress' },
  // As Claude Code 2.1.332 answers a TaskUpdate that changes nothing: no file is written.
  result: { success: true, taskId: '1', updatedFields: [] },
  at,
});

const LOOK = (at: number): Call => ({
  name: 'TaskGet',
  input: { taskId: '1' },
  result: { task: { id: '1', subject: 'Fix it', description: 'd', status: 'in_progress', blocks: [], blockedBy: [] } },
  at,
});

describe('a live session sets a crashed agent’s #1 in progress again (Claude Code writes nothing)', () => {
  it('get, get --json and list do not call #1 gone (one that only looked at #1 would leave it gone)', () => {
    const looked = world((at) => [LOOK(at)]);
    const seen = JSON.parse(runInProcessSync(looked.config, ['-l', 'solo', 'get', '1', '--json']).stdout) as { gone?: { session: string } };
    expect(seen.gone?.session).toBe(CRASHED);
    const w = world((at) => [RETAKE(at)]);
    const got = runInProcessSync(w.config, ['-l', 'solo', 'get', '1']);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).not.toMatch(/gone/);
    const json = JSON.parse(runInProcessSync(w.config, ['-l', 'solo', 'get', '1', '--json']).stdout) as Record<string, unknown>;
    expect(json).not.toHaveProperty('gone');
    const listed = runInProcessSync(w.config, ['-l', 'solo', 'list']);
    expect(listed.stdout).toMatch(/^1\tin_progress\t/m);
    expect(listed.stderr).not.toMatch(/gone/);
  });

  it('check finds no agent_gone; release --gone gives nothing back and writes nothing', () => {
    const w = world((at) => [RETAKE(at)]);
    const checked = JSON.parse(runInProcessSync(w.config, ['-l', 'solo', 'check', '--json']).stdout) as {
      findings: Array<{ code: string }>;
    };
    expect(checked.findings.map((f) => f.code)).not.toContain('agent_gone');
    const before = snapshotDir(w.dir);
    const released = runInProcessSync(w.config, ['-l', 'solo', 'release', '--gone']);
    expect(released.stdout).not.toMatch(/Put task #1/);
    expect(snapshotDir(w.dir)).toEqual(before);
    expect(JSON.parse(fs.readFileSync(path.join(w.dir, '1.json'), 'utf8'))).toMatchObject({ status: 'in_progress' });
  });
});
