/**
 * A change an agent made just before it was killed, which its transcript never recorded
 * (Claude Code writes its transcript behind its turns): `log`, the board's history and
 * `get` name the crashed session that likely made it, not "a hand edit". The fixture is a
 * real crash (test/fixtures/claude-code-2.1.328/gone: crashed-unowned, session 4aa21e64
 * SIGKILLed while its next request waited); the change after its last entry is written here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../helpers/cli.js';
import { agentProcesses, deadPid, goneFixture } from '../helpers/gone-fixtures.js';
import { procStart } from '../helpers/session-files.mjs';

const agents = agentProcesses();

/** #1 completed by a write `afterMs` after the session's last transcript entry. */
function changedAfter(w: ReturnType<typeof goneFixture>, afterMs: number): void {
  const file = path.join(w.dir, '1.json');
  const task = JSON.parse(fs.readFileSync(file, 'utf8'));
  fs.writeFileSync(file, JSON.stringify({ ...task, status: 'completed' }, null, 2));
  const at = (w.newest + afterMs) / 1000;
  fs.utimesSync(file, at, at);
}

/**
 * The session resumed after its crash: a later run's first entry `entryAfterMs` after its
 * last one, and that run's end (Claude Code's `cost-state` line, whose `startTime` is the
 * run's start), `runStartAfterMs` after it.
 */
function resumed(w: ReturnType<typeof goneFixture>, runStartAfterMs: number, entryAfterMs: number): void {
  const folder = path.join(w.config, 'projects', fs.readdirSync(path.join(w.config, 'projects'))[0] as string);
  const file = path.join(folder, `${w.live.sessionId}.jsonl`);
  const lines = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const prompt = JSON.parse(lines.find((l) => JSON.parse(l).type === 'user') as string);
  const entry = { ...prompt, uuid: '00000000-0000-4000-8000-000000000001', timestamp: new Date(w.newest + entryAfterMs).toISOString() };
  const end = { type: 'cost-state', sessionId: w.live.sessionId, totalDuration: 1000, startTime: w.newest + runStartAfterMs };
  fs.appendFileSync(file, `${JSON.stringify(entry)}\n${JSON.stringify(end)}\n`);
}

const unrecorded = (stdout: string) => stdout.split('\n').find((l) => l.includes('changed with no record')) ?? '';

describe('a change no record explains, made just before a session crashed', () => {
  it('log names the crashed session that likely made it; log --json says crashed-agent with that session', () => {
    const w = goneFixture('crashed-unowned', { pid: deadPid(), endedAgoMs: 10 * 60_000 });
    changedAfter(w, 3_000);
    const text = run(w.config, ['-l', 'solo', 'log']);
    expect(text.code, text.stderr).toBe(0);
    expect(unrecorded(text.stdout)).toContain(
      'changed with no record: status in_progress → completed (likely the agent of session 4aa21e64, killed before its transcript recorded it)',
    );
    const json = run(w.config, ['-l', 'solo', 'log', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const events = JSON.parse(json.stdout) as Array<{ op: string; cause?: string; who: { kind: string; session: string | null } }>;
    expect(events.filter((e) => e.op === 'unrecorded')).toMatchObject([
      { cause: 'crashed-agent', who: { kind: 'unknown', session: w.live.sessionId } },
    ]);
    const get = run(w.config, ['-l', 'solo', 'get', '1']);
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toContain('likely the agent of session 4aa21e64, killed before its transcript recorded it');
  });

  it("resumed since (a later run, ended): the change made before the resume is still its crashed run's", () => {
    const w = goneFixture('crashed-unowned', { pid: deadPid(), endedAgoMs: 10 * 60_000 });
    changedAfter(w, 3_000);
    resumed(w, 60_000, 61_000);
    const text = run(w.config, ['-l', 'solo', 'log']);
    expect(text.code, text.stderr).toBe(0);
    expect(unrecorded(text.stdout)).toContain('(likely the agent of session 4aa21e64, killed before its transcript recorded it)');
  });

  it('a run of the session that began before the change (after the crash) was at work then: not the crashed run', () => {
    const w = goneFixture('crashed-unowned', { pid: deadPid(), endedAgoMs: 10 * 60_000 });
    changedAfter(w, 30_000);
    resumed(w, 20_000, 40_000);
    const text = run(w.config, ['-l', 'solo', 'log']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).not.toContain('killed before');
  });

  it('an entry after the change with no later run begun: the crashed run wrote on, and would have recorded it', () => {
    const w = goneFixture('crashed-unowned', { pid: deadPid(), endedAgoMs: 10 * 60_000 });
    changedAfter(w, 3_000);
    // A later entry, the run that wrote it begun before the change: the crashed run's own.
    resumed(w, -5_000, 6_000);
    const text = run(w.config, ['-l', 'solo', 'log']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).not.toContain('killed before');
  });

  it('long after its last entry, the change is not laid on the crashed session', () => {
    const w = goneFixture('crashed-unowned', { pid: deadPid(), endedAgoMs: 30 * 60_000 });
    changedAfter(w, 20 * 60_000);
    const text = run(w.config, ['-l', 'solo', 'log']);
    expect(text.code, text.stderr).toBe(0);
    expect(unrecorded(text.stdout)).toContain('(likely a hand edit)');
    expect(text.stdout).not.toContain('killed before');
  });

  it('a session still live is never taken for a crashed one', () => {
    const agent = agents({ CLAUDE_CODE_TASK_LIST_ID: 'solo' });
    const w = goneFixture('crashed-unowned', { pid: agent.pid, procStart: procStart(agent.pid), endedAgoMs: 10 * 60_000 });
    changedAfter(w, 3_000);
    const text = run(w.config, ['-l', 'solo', 'log']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).not.toContain('killed before');
  });
});
