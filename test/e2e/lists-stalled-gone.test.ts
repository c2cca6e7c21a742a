/**
 * `lists --stalled` says stalled work whose agent is gone apart, as `list --stalled` does:
 * it stays in the report, marked gone (red "agent gone", a `gone` object in --json, an
 * `agent_gone` warning with what gives it back), against the files the real Claude Code
 * 2.1.328 wrote (test/fixtures/claude-code-2.1.328/gone, README there), moved in time to
 * have ended 15 minutes ago: a solo agent killed while #1, in progress with no owner, was
 * its work; and a session on a shared list that `/clear` replaced (its owner judged by its owner).
 */
import { describe, expect, it } from 'vitest';
import { snapshotDir } from '../helpers/cli.js';
import { agentProcesses, deadPid, goneFixture } from '../helpers/gone-fixtures.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { contractProblems } from '../helpers/json-contract.js';
import { procStart } from '../helpers/session-files.mjs';
import { runInTmux, tmuxAvailable } from '../helpers/tmux.js';

const CRASHED = '4aa21e64-031c-4afc-99a4-d063429beef5';
const ENDED_AGO = 15 * 60_000;

const agentProcess = agentProcesses();

const crashed = () => goneFixture('crashed-unowned', { pid: deadPid(), endedAgoMs: ENDED_AGO });

type Item = { list: string; stalled: Array<{ task: Record<string, unknown>; idleMs: number; gone?: Record<string, unknown> }> };

const NOTE =
  'solo: 1 task in progress has no owner and its agent is gone (session 4aa21e64 crashed): tasks -l solo release --gone puts it back to pending';

describe('lists --stalled, a solo agent killed holding #1 with no owner', () => {
  it('--json: #1 stays in, with the gone object list --stalled --json gives it; as the schema says; nothing written', () => {
    const w = crashed();
    const before = snapshotDir(w.dir);
    const r = runInProcessSync(w.config, ['lists', '--stalled', '1m', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as Item[];
    expect(doc.map((i) => i.list)).toEqual(['solo']);
    const item = doc[0]?.stalled[0];
    expect(item?.task.id).toBe('1');
    expect(item?.gone).toMatchObject({ session: CRASHED, state: 'crashed', why: 'session 4aa21e64 crashed', unowned: true });
    const listed = JSON.parse(runInProcessSync(w.config, ['-l', 'solo', 'list', '--stalled', '1m', '--json']).stdout) as Array<
      Record<string, unknown>
    >;
    expect(item?.gone).toEqual(listed[0]?.gone);
    expect(contractProblems('lists-stalled', r.stdout)).toEqual([]);
    // What gives it back, on stderr: stdout keeps to the report.
    expect(r.stderr).toContain('agent_gone');
    expect(r.stderr).toContain(NOTE);
    expect(snapshotDir(w.dir)).toEqual(before);
  });

  it('piped: the line as before, and the agent gone said on stderr with what to run', () => {
    const w = crashed();
    const r = runInProcessSync(w.config, ['lists', '--stalled', '1m']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^solo\\t1\\t\\d+\\t-\\t${CRASHED}\\tcrashed\\tFix it\\n$`));
    expect(r.stderr).toContain(`warning: ${NOTE}\n`);
  });

  it('--format markdown: the unchanged cell says the agent is gone', () => {
    const w = crashed();
    const r = runInProcessSync(w.config, ['lists', '--stalled', '1m', '--format', 'markdown']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\| `#1` Fix it \| {2}\| 1[45]m \d\ds, agent gone \(session 4aa21e64 crashed\) \|/);
  });

  it.runIf(tmuxAvailable())('in a terminal: the row says "agent gone" in place of a bare stall', async () => {
    const w = crashed();
    const screen = await runInTmux(w.config, ['lists', '--stalled', '1m'], { width: 160, height: 12 });
    expect(screen).toContain('EXIT=0');
    expect(screen).toMatch(/solo +#1 Fix it +1[45]m \d\ds, agent gone +4aa21e64 \(crashed\)/);
  });

  it('while its process runs, the session holds #1: nothing gone', () => {
    const { pid } = agentProcess({ CLAUDE_CODE_TASK_LIST_ID: 'solo' });
    const w = goneFixture('crashed-unowned', { pid, procStart: procStart(pid), endedAgoMs: ENDED_AGO });
    const r = runInProcessSync(w.config, ['lists', '--stalled', '1m', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/"gone"/);
    expect(r.stderr).not.toMatch(/gone/);
  });
});

describe('lists --stalled, /clear on a shared list whose process went on to a list of its own', () => {
  it('main, its owner, is gone: judged by its owner, as list --stalled judges it: no gone object, no agent_gone warning', () => {
    const { pid } = agentProcess({});
    const w = goneFixture('cleared-shared', { pid, procStart: procStart(pid), endedAgoMs: ENDED_AGO });
    const r = runInProcessSync(w.config, ['lists', '--stalled', '1m', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const item = (JSON.parse(r.stdout) as Item[]).find((i) => i.list === 'team')?.stalled[0];
    expect(item?.task).toMatchObject({ id: '1', owner: 'main' });
    expect(item).not.toHaveProperty('gone');
    const listed = JSON.parse(runInProcessSync(w.config, ['-l', 'team', 'list', '--stalled', '1m', '--json']).stdout) as Array<
      Record<string, unknown>
    >;
    // list --stalled --json gives it a gone object as an owner's (its help says so); lists leaves owners to list.
    expect(listed[0]?.gone).toMatchObject({ unowned: false });
    expect(r.stderr).not.toMatch(/agent_gone/);
  });
});
