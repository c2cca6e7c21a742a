/**
 * A watch that knows its agents: when every session of a list is over, a watch waiting
 * for a condition ends within seconds (run ended first, the owners gone); a followed
 * stream file ends when its writer does; and a run's list is the one its agent writes
 * to (its environment, or the folder its tasks appear in), said at once. Through the built
 * binary: the watch outlives processes the test kills.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, baseEnv, runAsync, stderrLines, tempConfig, writeTask } from '../helpers/cli.js';
import { parseNdjson } from '../helpers/replay.js';
import { writeLiveSession, writeTranscript } from '../helpers/session-files.mjs';
import { StreamScript } from '../helpers/stream-lines.js';

const SESSION = '3c9e1b7a-4d2f-4a6b-9c8d-1e2f3a4b5c6d';
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

function sleeper(argv0?: string, env: NodeJS.ProcessEnv = {}): ChildProcess {
  const child = argv0 === undefined ? spawn('sleep', ['60']) : spawn(argv0, ['60'], { env: { ...process.env, ...env } });
  children.push(child);
  return child;
}

/** A list owned by a session whose transcript ended long ago (so only its process shows life). */
function agentList(config: string): { dir: string; cwd: string } {
  const dir = path.join(config, 'tasks', SESSION);
  writeTask(dir, { id: '1', subject: 'Long step', description: '', status: 'in_progress', owner: 'agent-1', blocks: [], blockedBy: [] });
  const cwd = path.join(config, 'home', 'proj');
  writeTranscript(config, { sessionId: SESSION, cwd, start: Date.now() - 7200_000, end: Date.now() - 3600_000 });
  return { dir, cwd };
}

function watchProcess(config: string, args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, ...args], { env: baseEnv(config, env), cwd: config });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const closed = new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  return { child, closed, out: () => stdout, err: () => stderr };
}

describe('dead agents end the watch', () => {
  it('every session of the list over: watch --until ends within seconds, exit 6, its owners gone', async () => {
    const config = tempConfig();
    const { cwd } = agentList(config);
    const agent = sleeper();
    writeLiveSession(config, { pid: agent.pid as number, sessionId: SESSION, cwd, status: 'busy' });
    const w = watchProcess(config, ['-l', SESSION, 'watch', '--until', 'all-completed', '--timeout', '60s', '--json']);
    await new Promise((r) => setTimeout(r, 2500));
    expect(parseNdjson(w.out()).map((e) => e.event)).toEqual(['snapshot']);
    const killed = Date.now();
    agent.kill('SIGKILL');
    expect(await w.closed).toBe(6);
    // Two looks, two seconds apart, after the kill: well within the deadline.
    expect(Date.now() - killed).toBeLessThan(15_000);
    expect(parseNdjson(w.out()).at(-1)).toMatchObject({
      event: 'end',
      reason: 'session-ended',
      met: false,
      gone: ['agent-1'],
      list: SESSION,
    });
    expect(stderrLines(w.err()).find((l) => l.error)).toMatchObject({
      error: { code: 'run_ended', reason: 'session-ended', gone: ['agent-1'] },
    });
  }, 40_000);

  it('a list whose old sessions ended before the watch began is waited on (a new agent may come)', async () => {
    const config = tempConfig();
    agentList(config);
    const r = await runAsync(config, ['-l', SESSION, 'watch', '--until', 'all-completed', '--timeout', '5s', '--json']);
    expect(r.code).toBe(124);
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ reason: 'timeout' });
  }, 30_000);

  it('--session naming a session that is over: ends within seconds, exit 6', async () => {
    const config = tempConfig();
    agentList(config);
    const r = await runAsync(config, ['--session', SESSION.slice(0, 8), 'watch', '--until', 'all-completed', '--timeout', '30s', '--json']);
    expect(r.code).toBe(6);
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ reason: 'session-ended', gone: ['agent-1'] });
  }, 40_000);

  it('--stream FILE: the process writing the file is watched; once it is gone the run has ended without its result', async () => {
    const config = tempConfig();
    const file = path.join(config, 'run.jsonl');
    const s = new StreamScript(SESSION).init().create('1', 'Step');
    fs.writeFileSync(file, `${s.lines.join('\n')}\n`);
    // The writer: holds the file open for appending, as `claude -p ... > run.jsonl` does.
    const writer = spawn('sh', ['-c', 'exec 3>>"$F"; exec sleep 60'], { env: { ...process.env, F: file } });
    children.push(writer);
    const w = watchProcess(config, ['watch', '--stream', file, '--until', 'all-completed', '--json']);
    await new Promise((r) => setTimeout(r, 2500));
    expect(parseNdjson(w.out()).some((e) => e.event === 'end')).toBe(false);
    writer.kill('SIGKILL');
    expect(await w.closed).toBe(6);
    expect(parseNdjson(w.out()).at(-1)).toMatchObject({ event: 'end', reason: 'input-ended', met: false });
  }, 40_000);
});

describe("the run's list is the one its agent writes to", () => {
  it("from the agent's environment: CLAUDE_CODE_TASK_LIST_ID set on the agent only is found and followed", async () => {
    const config = tempConfig();
    const ci = path.join(config, 'tasks', 'ci');
    const seeded = { id: '1', subject: 'Seeded', description: '', status: 'pending', blocks: [], blockedBy: [] };
    writeTask(ci, seeded);
    // A process named claude, started with the list in its environment, owning the session.
    const bin = path.join(config, 'bin');
    fs.mkdirSync(bin);
    fs.symlinkSync(fs.realpathSync('/bin/sleep'), path.join(bin, 'claude'));
    const agent = sleeper(path.join(bin, 'claude'), { CLAUDE_CODE_TASK_LIST_ID: 'ci', CLAUDE_CONFIG_DIR: config });
    const cwd = path.join(config, 'home', 'proj');
    fs.mkdirSync(cwd, { recursive: true });
    writeLiveSession(config, { pid: agent.pid as number, sessionId: SESSION, cwd, status: 'busy' });
    const s = new StreamScript(SESSION).init();
    const w = watchProcess(config, ['watch', '--stream', '-', '--until', 'all-completed', '--json']);
    w.child.stdin.write(`${s.lines.join('\n')}\n`);
    for (let i = 0; i < 100 && !w.out().includes('"snapshot"'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(parseNdjson(w.out())[0]).toMatchObject({ event: 'snapshot', list: 'ci', tasks: [{ id: '1', subject: 'Seeded' }] });
    expect(stderrLines(w.err())).toEqual([{ note: expect.objectContaining({ code: 'list_found', list: 'ci' }) }]);
    // The agent completes the seeded task (its file, then its result), and its run ends.
    writeTask(ci, { ...seeded, status: 'completed' });
    w.child.stdin.end(`${new StreamScript(SESSION).update('1', { status: 'completed' }).end().lines.join('\n')}\n`);
    expect(await w.closed, w.err()).toBe(0);
    expect(parseNdjson(w.out()).at(-1)).toMatchObject({ reason: 'run-ended', met: true, list: 'ci', counts: { total: 1, completed: 1 } });
  }, 30_000);

  it("no process to ask: the folder the run's new task appeared in is found, named and followed", async () => {
    const config = tempConfig();
    const ci = path.join(config, 'tasks', 'ci');
    writeTask(ci, { id: '1', subject: 'Old', description: '', status: 'completed', blocks: [], blockedBy: [] });
    fs.writeFileSync(path.join(ci, '.highwatermark'), '1');
    const w = watchProcess(config, ['watch', '--stream', '-', '--until', 'all-completed', '--json']);
    w.child.stdin.write(`${new StreamScript(SESSION).init().lines.join('\n')}\n`);
    for (let i = 0; i < 100 && !w.out().includes('"snapshot"'); i++) await new Promise((r) => setTimeout(r, 50));
    writeTask(ci, { id: '2', subject: 'New', description: 'do New', status: 'pending', blocks: [], blockedBy: [] });
    w.child.stdin.end(`${new StreamScript(SESSION).create('2', 'New').end().lines.join('\n')}\n`);
    expect(await w.closed).toBe(6);
    expect(stderrLines(w.err()).map((l) => Object.values(l)[0]?.code)).toEqual(['list_found', 'run_ended']);
    expect(parseNdjson(w.out()).at(-1)).toMatchObject({ reason: 'run-ended', met: false, list: 'ci', counts: { total: 2, pending: 1 } });
  }, 30_000);
});
