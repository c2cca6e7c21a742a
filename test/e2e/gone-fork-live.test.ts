/**
 * A crashed session's task while its fork lives on the same list (the real Claude Code
 * 2.1.328's files, test/fixtures/claude-code-2.1.328/gone/forked-live): session d3f0527f,
 * owner `w1` of #1 in progress, is SIGKILLed; its fork 0ea1b2eb took #2 as `w2` on the
 * same list. A fork goes on from its parent's work (it began with copies of the parent's
 * entries), so while it lives #1 may be at work: `check` must not call #1's owner gone
 * with a hint to `release --gone`, which gives nothing back then. Once the fork is over,
 * both agree that #1 and #2 are gone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { snapshotDir } from '../helpers/cli.js';
import { agentProcesses, deadPid, goneFixture } from '../helpers/gone-fixtures.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { writeLiveSession } from '../helpers/session-files.mjs';

const FORK = '0ea1b2eb-1961-46fa-9b97-f1ced9375f7a';
const agentProcess = agentProcesses();

/** The parent crashed five minutes ago; the fork live (its own live-session file, a process standing for it) or over. */
function world(forkLive: boolean) {
  const w = goneFixture('forked-live', { pid: deadPid(), endedAgoMs: 5 * 60_000 });
  if (forkLive) {
    const { pid } = agentProcess({ CLAUDE_CODE_TASK_LIST_ID: 'rf' });
    writeLiveSession(w.config, { pid, sessionId: FORK, cwd: w.live.cwd, status: 'idle', start: Date.now() - 120_000 });
  }
  return w;
}

type CheckJson = { findings: Array<{ code: string; id?: string }> };
const goneIds = (w: { config: string }) =>
  (JSON.parse(runInProcessSync(w.config, ['-l', 'rf', 'check', '--json']).stdout) as CheckJson).findings
    .filter((f) => f.code === 'owner_gone')
    .map((f) => f.id);

describe("a crashed session's task while its fork lives on the same list", () => {
  it('check finds no owner gone, and release --gone gives nothing back and writes nothing', () => {
    const w = world(true);
    expect(goneIds(w)).toEqual([]);
    const before = snapshotDir(w.dir);
    const released = runInProcessSync(w.config, ['-l', 'rf', 'release', '--gone']);
    expect(released.code, released.stderr).toBe(0);
    expect(released.stdout).not.toMatch(/Released/);
    // Which sign of life keeps it, as with nothing else to release.
    expect(released.stderr).toMatch(/nothing released: session 0ea1b2eb, a fork of d3f0527f, is live and may go on with #1/);
    expect(snapshotDir(w.dir)).toEqual(before);
    expect(JSON.parse(fs.readFileSync(path.join(w.dir, '1.json'), 'utf8'))).toMatchObject({ status: 'in_progress', owner: 'w1' });
  });

  it('once the fork is over too, check names #1 and #2 and release --gone gives back the same two', () => {
    const w = world(false);
    expect(goneIds(w)).toEqual(['1', '2']);
    const dry = runInProcessSync(w.config, ['-l', 'rf', 'release', '--gone', '--dry-run']);
    expect(dry.stdout).toMatch(/Would release task #1 from w1 .*session d3f0527f crashed/);
    expect(dry.stdout).toMatch(/Would release task #2 from w2 .*session 0ea1b2eb ended/);
    // list's one warning names each owner's own end, not the first one's for both.
    const listed = runInProcessSync(w.config, ['-l', 'rf', 'list']);
    expect(listed.stderr).toContain(
      'warning: 2 unfinished tasks are owned by agents whose sessions are over (session d3f0527f crashed, session 0ea1b2eb ended): tasks -l rf release --gone gives them back',
    );
  });
});
