/**
 * A session's fate, as the agent-gone marks tell it (`get`, `list`, `check`), is that of
 * its last run, and neither the reason nor its time shifts with no new event in its life:
 *
 * - killed, then resumed (`--resume` keeps the id) and ended cleanly: it ended, when the
 *   resume did, though the killed run's live-session file is still there;
 * - cleared (`/clear`), then its process killed or exited cleanly: on its own list it stays
 *   "was cleared", at the time of the clear; on a shared list, where the process went on
 *   with the list as a new session, that session's end (crashed, ended) is the one told.
 *
 * Against the files the real Claude Code 2.1.328 wrote (test/fixtures/claude-code-2.1.328/
 * gone, README there), moved in time to have ended 15 minutes ago; a resume's entries are
 * added as Claude Code appends them. Processes of this test stand for the agent's: a pid
 * that has exited (a crash), or a running one named `claude`, killed in the test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type AgentProcess, agentProcesses, deadPid, goneFixture } from '../helpers/gone-fixtures.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { procStart } from '../helpers/session-files.mjs';

const CRASHED = '4aa21e64-031c-4afc-99a4-d063429beef5';
const CLEARED = '0501500a-0102-45c0-a9d1-40a96af97d11';
const AFTER_CLEAR = 'b8c060f7-fa3b-4c80-b903-cb3706295d74';
const ENDED_AGO = 15 * 60_000;

const agentProcess = agentProcesses();

async function kill(child: AgentProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** A whole second (a file's time keeps it exactly), `agoMs` before now. */
const secondsAgo = (agoMs: number) => Math.floor((Date.now() - agoMs) / 1000) * 1000;

type Gone = { session: string | null; state: string | null; since: string | null; why: string; unowned: boolean };

function goneOf(config: string, list: string, id = '1'): Gone | undefined {
  return (JSON.parse(runInProcessSync(config, ['-l', list, 'get', id, '--json']).stdout) as { gone?: Gone }).gone;
}

function checkMessages(config: string, list: string): string[] {
  const r = runInProcessSync(config, ['-l', list, 'check', '--json']);
  return (JSON.parse(r.stdout) as { findings: Array<{ message: string }> }).findings.map((f) => f.message);
}

/** Append a resumed run's entries to the session's transcript, as `--resume` does: a prompt at `from`, and `cost-state` at `to` when it ended cleanly. */
function resume(config: string, sessionId: string, from: number, to: number | undefined): void {
  const projects = path.join(config, 'projects');
  const [folder] = fs.readdirSync(projects);
  const file = path.join(projects, folder as string, `${sessionId}.jsonl`);
  const user = {
    type: 'user',
    message: { role: 'user', content: 'go on' },
    timestamp: new Date(from).toISOString(),
    cwd: '/tmp/tmp.W6AEOdfKWk/work',
    sessionId,
    version: '2.1.328',
    gitBranch: 'HEAD',
  };
  fs.appendFileSync(file, `${JSON.stringify(user)}\n`);
  if (to !== undefined) fs.appendFileSync(file, `${JSON.stringify({ type: 'cost-state', sessionId, totalCostUSD: 0.001 })}\n`);
  const at = (to ?? from) / 1000;
  fs.utimesSync(file, at, at);
}

/** A live-session file for one more run of the session, by a process now gone (killed), started at `startedAt`. */
function leftOver(config: string, sessionId: string, startedAt: number): void {
  const pid = deadPid();
  const file = { pid, sessionId, cwd: '/tmp/tmp.W6AEOdfKWk/work', startedAt, kind: 'print', status: 'busy', updatedAt: startedAt };
  fs.writeFileSync(path.join(config, 'sessions', `${pid}.json`), JSON.stringify(file));
}

describe('killed, then resumed: the fate of the last run', () => {
  it('the resume ended cleanly: ended, at the end of the resume, though the killed run left its live-session file; killed again: crashed', () => {
    const w = goneFixture('crashed-unowned', { pid: deadPid(), endedAgoMs: ENDED_AGO });
    expect(goneOf(w.config, 'solo')).toMatchObject({ state: 'crashed', why: 'session 4aa21e64 crashed' });
    const end = secondsAgo(2 * 60_000);
    resume(w.config, CRASHED, end - 20_000, end);
    expect(goneOf(w.config, 'solo')).toEqual({
      session: CRASHED,
      name: 'work-de',
      state: 'ended',
      since: new Date(end).toISOString(),
      why: 'session 4aa21e64 ended',
      unowned: true,
    });
    expect(runInProcessSync(w.config, ['-l', 'solo', 'get', '1']).stdout).toMatch(/agent gone: session 4aa21e64 ended 2 min ago/);
    expect(checkMessages(w.config, 'solo')).toEqual([
      'task #1 is in progress with no owner, and its agent is gone: session 4aa21e64 ended holding it',
    ]);
    // Resumed once more and killed again: that run's file is left too, and the transcript records no end after it.
    const again = secondsAgo(60_000);
    leftOver(w.config, CRASHED, again);
    resume(w.config, CRASHED, again + 5_000, undefined);
    expect(goneOf(w.config, 'solo')).toMatchObject({ state: 'crashed', why: 'session 4aa21e64 crashed' });
  });

  it("an end recorded before the killed run began is an earlier run's: still crashed; recorded after it, ended", () => {
    const w = goneFixture('crashed-unowned', { pid: deadPid(), endedAgoMs: ENDED_AGO });
    const end = secondsAgo(5 * 60_000);
    resume(w.config, CRASHED, end - 20_000, end);
    expect(goneOf(w.config, 'solo')).toMatchObject({ state: 'ended' });
    // A resume begun after that end, killed before it wrote a thing.
    leftOver(w.config, CRASHED, end + 30_000);
    expect(goneOf(w.config, 'solo')).toMatchObject({ state: 'crashed', why: 'session 4aa21e64 crashed' });
  });
});

/** The cleared-shared recording with #1's owner emptied (a solo agent's usual TaskUpdate), its file's time kept. */
function unowned(dir: string): void {
  const file = path.join(dir, '1.json');
  const { mtime } = fs.statSync(file);
  const task = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  delete task.owner;
  fs.writeFileSync(file, JSON.stringify(task));
  fs.utimesSync(file, mtime, mtime);
}

/** The process exits cleanly, `agoMs` before now: its live-session file goes, and the session it is on records its end. */
async function exitCleanly(config: string, agent: AgentProcess, sessionId: string, agoMs: number): Promise<number> {
  await kill(agent);
  fs.rmSync(path.join(config, 'sessions', `${agent.pid}.json`));
  const projects = path.join(config, 'projects');
  const [folder] = fs.readdirSync(projects);
  const file = path.join(projects, folder as string, `${sessionId}.jsonl`);
  fs.appendFileSync(file, `${JSON.stringify({ type: 'cost-state', sessionId, totalCostUSD: 0.001 })}\n`);
  const at = secondsAgo(agoMs);
  fs.utimesSync(file, at / 1000, at / 1000);
  return at;
}

describe('/clear, then the process killed', () => {
  it('its own list: "was cleared", at the time of the clear, before and after the kill', async () => {
    const agent = agentProcess({});
    const pid = agent.pid as number;
    const w = goneFixture('cleared-shared', { pid, procStart: procStart(pid), endedAgoMs: ENDED_AGO });
    // The list named after the cleared session: its own, left behind by the clear.
    const own = path.join(w.config, 'tasks', CLEARED);
    fs.renameSync(w.dir, own);
    unowned(own);
    const before = goneOf(w.config, CLEARED);
    expect(before).toMatchObject({ session: CLEARED, state: 'ended', why: 'session 0501500a was cleared', unowned: true });
    await kill(agent);
    expect(goneOf(w.config, CLEARED)).toEqual(before);
    expect(runInProcessSync(w.config, ['-l', CLEARED, 'get', '1']).stdout).toMatch(/agent gone: session 0501500a was cleared 1\d min ago/);
    expect(checkMessages(w.config, CLEARED)).toEqual([
      'task #1 is in progress with no owner, and its agent is gone: session 0501500a was cleared holding it',
    ]);
  });

  it('a shared list: the process went on with it as a new session, whose crash is the end told', async () => {
    const agent = agentProcess({ CLAUDE_CODE_TASK_LIST_ID: 'team' });
    const pid = agent.pid as number;
    const w = goneFixture('cleared-shared', { pid, procStart: procStart(pid), endedAgoMs: ENDED_AGO });
    unowned(w.dir);
    // While the process goes on with the list, its work is not gone.
    expect(goneOf(w.config, 'team')).toBeUndefined();
    await kill(agent);
    const gone = goneOf(w.config, 'team');
    expect(gone).toMatchObject({ session: AFTER_CLEAR, state: 'crashed', why: 'session b8c060f7 (after /clear of 0501500a) crashed' });
    // The time told is the new session's last sign of life (its live-session file's last change), not the clear's.
    const live = JSON.parse(fs.readFileSync(path.join(w.config, 'sessions', `${pid}.json`), 'utf8')) as { updatedAt: number };
    expect(Date.parse(gone?.since ?? '')).toBeGreaterThanOrEqual(live.updatedAt);
    expect(checkMessages(w.config, 'team')).toEqual([
      'task #1 is in progress with no owner, and its agent is gone: session b8c060f7 (after /clear of 0501500a) crashed holding it',
    ]);
  });

  it('a shared list, #1 owned: the owner is gone by the same end', async () => {
    const agent = agentProcess({ CLAUDE_CODE_TASK_LIST_ID: 'team' });
    const pid = agent.pid as number;
    const w = goneFixture('cleared-shared', { pid, procStart: procStart(pid), endedAgoMs: ENDED_AGO });
    await kill(agent);
    expect(checkMessages(w.config, 'team')).toEqual([
      'task #1 is in progress and owned by main, whose session b8c060f7 (after /clear of 0501500a) crashed',
    ]);
    expect(runInProcessSync(w.config, ['-l', 'team', 'get', '1']).stdout).toMatch(
      /^Owner: {7}main \(gone: session b8c060f7 \(after \/clear of 0501500a\) crashed\)/m,
    );
  });
});

describe('/clear, then the process exited cleanly', () => {
  it('its own list: still "was cleared", at the time of the clear', async () => {
    const agent = agentProcess({});
    const pid = agent.pid as number;
    const w = goneFixture('cleared-shared', { pid, procStart: procStart(pid), endedAgoMs: ENDED_AGO });
    const own = path.join(w.config, 'tasks', CLEARED);
    fs.renameSync(w.dir, own);
    unowned(own);
    const before = goneOf(w.config, CLEARED);
    expect(before).toMatchObject({ session: CLEARED, why: 'session 0501500a was cleared' });
    await exitCleanly(w.config, agent, AFTER_CLEAR, 60_000);
    expect(goneOf(w.config, CLEARED)).toEqual(before);
  });

  it('a shared list: the new session ended, at its end', async () => {
    const agent = agentProcess({ CLAUDE_CODE_TASK_LIST_ID: 'team' });
    const pid = agent.pid as number;
    const w = goneFixture('cleared-shared', { pid, procStart: procStart(pid), endedAgoMs: ENDED_AGO });
    unowned(w.dir);
    expect(goneOf(w.config, 'team')).toBeUndefined();
    const end = await exitCleanly(w.config, agent, AFTER_CLEAR, 60_000);
    expect(goneOf(w.config, 'team')).toMatchObject({
      session: AFTER_CLEAR,
      state: 'ended',
      since: new Date(end).toISOString(),
      why: 'session b8c060f7 (after /clear of 0501500a) ended',
    });
  });
});
