/**
 * `list`, `get` and `check` mark a task in progress whose agent is gone, with the answer
 * `release --gone`, notify and the watch give (history/list-owners.ts), against the files
 * the real Claude Code 2.1.328 wrote (test/fixtures/claude-code-2.1.328/gone, README
 * there): a solo agent killed while #1, which it set in progress with no owner, was its
 * work; and a session on a shared list that `/clear` replaced while its process went on
 * with the list. Each fixture is moved in time to have ended 15 minutes ago (short of the
 * 30-minute stall), so what the reads say does not change with the day the test runs.
 * Processes of this test stand for the agent's: a pid that has exited (a crash), or a
 * running one named `claude` with the list in its environment. Runs are in process where
 * only the output is checked, through the built binary for the exit status, the files
 * left as they were, and the table in a terminal.
 */
import { describe, expect, it } from 'vitest';
import { run, snapshotDir } from '../helpers/cli.js';
import { agentProcesses, deadPid, goneFixture } from '../helpers/gone-fixtures.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { contractProblems } from '../helpers/json-contract.js';
import { procStart } from '../helpers/session-files.mjs';
import { runInTmux, tmuxAvailable } from '../helpers/tmux.js';

const CRASHED = '4aa21e64-031c-4afc-99a4-d063429beef5';
const ENDED_AGO = 15 * 60_000;

const agentProcess = agentProcesses();

function crashed() {
  return goneFixture('crashed-unowned', { pid: deadPid(), endedAgoMs: ENDED_AGO });
}

type Finding = { code: string; severity: string; fixable: boolean; hint?: string; id?: string; session?: string | null };

function findings(config: string, list: string, args: string[] = []): Finding[] {
  const r = runInProcessSync(config, ['-l', list, 'check', '--json', ...args]);
  return (JSON.parse(r.stdout) as { findings: Finding[] }).findings;
}

describe('a solo agent killed holding #1 in progress with no owner', () => {
  it('list --stalled --json and get --json give #1 a gone object: the session, how and when it ended, why', () => {
    const w = crashed();
    const listed = JSON.parse(runInProcessSync(w.config, ['-l', 'solo', 'list', '--stalled', '1m', '--json']).stdout) as Array<
      Record<string, unknown>
    >;
    const gone = listed[0]?.gone as Record<string, unknown>;
    expect(gone).toMatchObject({ session: CRASHED, state: 'crashed', why: 'session 4aa21e64 crashed', unowned: true });
    expect(gone.name).toBe('work-de');
    // Last seen at work: the transcript's last entry, 15 minutes ago (the shift of the recording).
    expect(Math.abs(Date.parse(gone.since as string) - (Date.now() - ENDED_AGO))).toBeLessThan(60_000);
    expect(listed[0]).not.toHaveProperty('owner');
    const gotText = runInProcessSync(w.config, ['-l', 'solo', 'get', '1', '--json']).stdout;
    const got = JSON.parse(gotText) as Record<string, unknown>;
    expect(got.gone).toEqual(gone);
    // Both as their committed schemas say (docs/schemas/).
    expect(contractProblems('list', runInProcessSync(w.config, ['-l', 'solo', 'list', '--stalled', '1m', '--json']).stdout)).toEqual([]);
    // Plain --json judges no gone agent, as it judges no stall: it reads no session for it.
    expect(JSON.parse(runInProcessSync(w.config, ['-l', 'solo', 'list', '--json']).stdout)[0]).not.toHaveProperty('gone');
    expect(contractProblems('get', gotText)).toEqual([]);
    expect(contractProblems('check', runInProcessSync(w.config, ['-l', 'solo', 'check', '--json']).stdout)).toEqual([]);
  });

  it('list piped: the line as before, and on stderr the agent gone with what to run, not a stall', () => {
    const w = crashed();
    const r = runInProcessSync(w.config, ['-l', 'solo', 'list']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('1\tin_progress\t-\t-\tFix it\n');
    expect(r.stderr).toContain(
      'warning: task #1 is in progress with no owner, but its agent is gone (session 4aa21e64 crashed holding it): tasks -l solo release --gone puts it back to pending\n',
    );
    expect(r.stderr).not.toMatch(/stalled/);
    const json = runInProcessSync(w.config, ['-l', 'solo', 'list', '--json']);
    expect(json.stderr).toBe('');
  });

  it('get says it beside the status', () => {
    const w = crashed();
    const r = runInProcessSync(w.config, ['-l', 'solo', 'get', '1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Status: {6}▶ in progress {2}agent gone: session 4aa21e64 crashed 15 min ago$/m);
    expect(r.stdout).toMatch(/^Owner: {7}none$/m);
  });

  it('check reports agent_gone, a warning pointing at release --gone: exit 0, 4 with --strict; --fix changes nothing', () => {
    const w = crashed();
    expect(findings(w.config, 'solo')).toEqual([
      {
        code: 'agent_gone',
        severity: 'warning',
        message: 'task #1 is in progress with no owner, and its agent is gone: session 4aa21e64 crashed holding it',
        fixable: false,
        hint: 'put it back to pending for another agent or person: tasks -l solo release --gone',
        id: '1',
        session: CRASHED,
      },
    ]);
    const before = snapshotDir(w.dir);
    const plain = run(w.config, ['-l', 'solo', 'check']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toContain('agent_gone');
    expect(plain.stdout).toContain('hint: put it back to pending for another agent or person: tasks -l solo release --gone');
    expect(run(w.config, ['-l', 'solo', 'check', '--strict']).code).toBe(4);
    const fix = run(w.config, ['-l', 'solo', 'check', '--fix', '--json']);
    expect(fix.code, fix.stderr).toBe(0);
    const doc = JSON.parse(fix.stdout) as { findings: Finding[]; remaining: Finding[] };
    expect(doc.findings.map((f) => [f.code, f.fixable])).toEqual([['agent_gone', false]]);
    expect(doc.remaining.map((f) => f.code)).toEqual(['agent_gone']);
    expect(snapshotDir(w.dir)).toEqual(before);
  });

  it('once release --gone put #1 back, nothing is marked', () => {
    const w = crashed();
    expect(run(w.config, ['-l', 'solo', 'release', '--gone']).code).toBe(0);
    const listed = JSON.parse(run(w.config, ['-l', 'solo', 'list', '--json']).stdout) as Array<Record<string, unknown>>;
    expect(listed[0]).toMatchObject({ status: 'pending' });
    expect(listed[0]).not.toHaveProperty('gone');
    expect(findings(w.config, 'solo')).toEqual([]);
  });

  it('while its process runs, the session holds #1: no mark, no finding', () => {
    const { pid } = agentProcess({ CLAUDE_CODE_TASK_LIST_ID: 'solo' });
    const w = goneFixture('crashed-unowned', { pid, procStart: procStart(pid), endedAgoMs: ENDED_AGO });
    const listed = JSON.parse(runInProcessSync(w.config, ['-l', 'solo', 'list', '--json']).stdout) as Array<Record<string, unknown>>;
    expect(listed[0]).toMatchObject({ id: '1', status: 'in_progress' });
    expect(listed[0]).not.toHaveProperty('gone');
    const piped = runInProcessSync(w.config, ['-l', 'solo', 'list']);
    expect(piped.stderr).not.toMatch(/gone|stalled/);
    expect(runInProcessSync(w.config, ['-l', 'solo', 'get', '1']).stdout).not.toMatch(/gone/);
    expect(JSON.parse(runInProcessSync(w.config, ['-l', 'solo', 'get', '1', '--json']).stdout)).not.toHaveProperty('gone');
    expect(findings(w.config, 'solo')).toEqual([]);
  });

  it.runIf(tmuxAvailable())('the table marks #1 in a terminal, and says what to run', async () => {
    const w = crashed();
    const plain = await runInTmux(w.config, ['-l', 'solo', 'list'], { width: 160, height: 12 });
    expect(plain).toContain('EXIT=0');
    expect(plain).toMatch(/#1 {2}▶ in progress {2}Fix it agent gone: session 4aa21e64 crashed 15 min ago/);
    expect(plain).not.toMatch(/stalled/);
    expect(plain).toContain(
      '1 task in progress has no owner and its agent is gone (session 4aa21e64 crashed): tasks -l solo release --gone puts it back to pending',
    );
  });
});

describe('/clear on a shared list', () => {
  it('the process goes on with the list: main is not gone, nothing marked, nothing found', () => {
    const { pid } = agentProcess({ CLAUDE_CODE_TASK_LIST_ID: 'team' });
    const w = goneFixture('cleared-shared', { pid, procStart: procStart(pid), endedAgoMs: ENDED_AGO });
    const listed = JSON.parse(runInProcessSync(w.config, ['-l', 'team', 'list', '--json']).stdout) as Array<Record<string, unknown>>;
    expect(listed[0]).toMatchObject({ id: '1', status: 'in_progress', owner: 'main' });
    expect(listed[0]).not.toHaveProperty('gone');
    const piped = runInProcessSync(w.config, ['-l', 'team', 'list']);
    expect(piped.stdout).toBe('1\tin_progress\tmain\t-\tT1\n');
    expect(piped.stderr).not.toMatch(/gone|stalled/);
    expect(runInProcessSync(w.config, ['-l', 'team', 'get', '1']).stdout).not.toMatch(/gone/);
    expect(JSON.parse(run(w.config, ['-l', 'team', 'get', '1', '--json']).stdout)).not.toHaveProperty('gone');
    expect(findings(w.config, 'team')).toEqual([]);
  });

  it('the process went on to a list of its own: main is gone, marked by its owner (no agent-gone mark), owner_gone in check', () => {
    const { pid } = agentProcess({});
    const w = goneFixture('cleared-shared', { pid, procStart: procStart(pid), endedAgoMs: ENDED_AGO });
    // A task with an owner is judged by its owner: gone as an owner (unowned: false), not marked "agent gone".
    const listed = JSON.parse(run(w.config, ['-l', 'team', 'list', '--stalled', '1m', '--json']).stdout) as Array<Record<string, unknown>>;
    expect(listed.find((t) => t.id === '1')?.gone).toMatchObject({ unowned: false, state: 'ended' });
    expect(findings(w.config, 'team').map((f) => f.code)).toEqual(['owner_gone']);
    const got = runInProcessSync(w.config, ['-l', 'team', 'get', '1']);
    expect(got.stdout).toMatch(/^Owner: {7}main \(gone: session [0-9a-f]{8} (was cleared|ended)\)/m);
    expect(got.stdout).not.toMatch(/agent gone/);
    const piped = runInProcessSync(w.config, ['-l', 'team', 'list']);
    expect(piped.stderr).toMatch(/warning: 1 unfinished task is owned by agents whose session [0-9a-f]{8} /);
    expect(piped.stderr).not.toMatch(/agent_gone|has no owner/);
  });
});
