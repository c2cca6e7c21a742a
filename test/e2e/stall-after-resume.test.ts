/**
 * A session resumed after its crash, idle at its prompt (a person about to tell it to go
 * on): its task in progress, unchanged since the crash, is not stalled at once; it stalls
 * the stall time after the resumed run began, as for any agent that just started. How long
 * the task has been unchanged is still said from its file. The fixture is a real crash
 * (test/fixtures/claude-code-2.1.328/gone: crashed-unowned), its crashed run's live-session
 * file left behind, as Claude Code leaves it, and a running process standing for the
 * resumed run with a live-session file of its own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../helpers/cli.js';
import { agentProcesses, deadPid, goneFixture } from '../helpers/gone-fixtures.js';
import { writeLiveSession } from '../helpers/session-files.mjs';

const agents = agentProcesses();

/** The crashed session resumed `agoMs` ago (its crashed run's file left behind), idle at its prompt; #1 in progress, unchanged for an hour. */
function resumedIdle(agoMs: number) {
  const { pid } = agents({ CLAUDE_CODE_TASK_LIST_ID: 'solo' });
  const w = goneFixture('crashed-unowned', { pid: deadPid(), endedAgoMs: 60 * 60_000 });
  writeLiveSession(w.config, { pid, sessionId: w.live.sessionId, cwd: w.live.cwd, status: 'idle', start: Date.now() - agoMs });
  const hourAgo = (Date.now() - 60 * 60_000) / 1000;
  fs.utimesSync(path.join(w.dir, '1.json'), hourAgo, hourAgo);
  return w;
}

const stalledIds = (config: string): string[] => {
  const r = run(config, ['-l', 'solo', 'list', '--stalled', '10m', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as Array<{ id: string }>).map((t) => t.id);
};

describe('a crashed session resumed, idle at its prompt', () => {
  it('resumed a minute ago: its task in progress is not stalled yet (10 min)', () => {
    const w = resumedIdle(60_000);
    expect(stalledIds(w.config)).toEqual([]);
  });

  it('resumed 20 minutes ago and still idle: stalled, unchanged for the hour its file says', () => {
    const w = resumedIdle(20 * 60_000);
    expect(stalledIds(w.config)).toEqual(['1']);
    const r = run(w.config, ['lists', '--stalled', '10m', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const [solo] = JSON.parse(r.stdout) as Array<{ list: string; stalled: Array<{ task: { id: string }; idleMs: number }> }>;
    expect(solo?.list).toBe('solo');
    expect(solo?.stalled[0]?.idleMs).toBeGreaterThan(59 * 60_000);
  });
});
