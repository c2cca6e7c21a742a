/**
 * An owner name two agents use. On a list two jobs share, job 1 claimed #1 for "main"
 * with `tasks claim --as main` from its own Claude Code session (the journal ties "main"
 * to that session), then was killed. Job 2, live, gave itself #2 under the same name with
 * its own TaskUpdate (not started yet). "main" is then a live agent's name too, and an
 * owner a live session gave a task is never gone: release --gone leaves both (it cannot
 * tell whose "main" holds which), and never takes the live job's #2.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readJson, run, tempConfig } from '../helpers/cli.js';
import { procStart, writeLiveSession } from '../helpers/session-files.mjs';
import { writeTaskTranscript } from '../helpers/task-transcript.js';

const JOB1 = '1a2b3c4d-1111-4a4a-8b8b-000000000001';
const JOB2 = '5e6f7a8b-2222-4a4a-8b8b-000000000002';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

function world() {
  const config = tempConfig();
  const job = (n: number) => {
    const d = path.join(config, 'home', 'ci', `job-${n}`);
    fs.mkdirSync(d, { recursive: true });
    return d;
  };
  const [job1, job2] = [job(1), job(2)];
  const dir = path.join(config, 'tasks', 'ci');
  const at = Date.now() - 10 * 60_000;
  // Job 1 made #1 and #2 with its Task tools, claimed #1 with tasks, and was killed.
  writeTaskTranscript(config, {
    sessionId: JOB1,
    cwd: job1,
    start: at - 1000,
    ended: false,
    calls: [
      { create: { id: '1', subject: 'Build' }, time: at },
      { create: { id: '2', subject: 'Test' }, time: at + 1000 },
    ],
  });
  const write = (id: string, subject: string, t: number) => {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${id}.json`);
    fs.writeFileSync(file, JSON.stringify({ id, subject, description: '', status: 'pending', blocks: [], blockedBy: [] }, null, 2));
    fs.utimesSync(file, t / 1000, t / 1000);
  };
  write('1', 'Build', at + 5);
  write('2', 'Test', at + 1005);
  const claimed = run(config, ['-l', 'ci', 'claim', '1', '--as', 'main', '--start'], { cwd: job1, env: { CLAUDE_CODE_SESSION_ID: JOB1 } });
  expect(claimed.code, claimed.stderr).toBe(0);
  const dead = Number(spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim());
  writeLiveSession(config, { pid: dead, sessionId: JOB1, cwd: job1, status: 'busy', start: at - 2000, procStartTicks: '1' });
  // Job 2, live on the same list (its process names it), gave itself #2 under the same name.
  const now = Date.now();
  writeTaskTranscript(config, {
    sessionId: JOB2,
    cwd: job2,
    start: now - 60_000,
    ended: false,
    calls: [
      {
        list: [
          { id: '1', subject: 'Build', status: 'in_progress' },
          { id: '2', subject: 'Test' },
        ],
        time: now - 30_000,
      },
      { update: { taskId: '2', owner: 'main' }, time: now - 20_000 },
    ],
  });
  const t2 = path.join(dir, '2.json');
  fs.writeFileSync(t2, JSON.stringify({ ...(readJson(t2) as object), owner: 'main' }, null, 2));
  fs.utimesSync(t2, (now - 19_995) / 1000, (now - 19_995) / 1000);
  const agent = spawn('sleep', ['600'], {
    argv0: 'claude',
    cwd: job2,
    stdio: 'ignore',
    env: { ...process.env, CLAUDE_CODE_TASK_LIST_ID: 'ci', CLAUDE_CONFIG_DIR: config },
  });
  children.push(agent);
  writeLiveSession(config, {
    pid: agent.pid as number,
    sessionId: JOB2,
    cwd: job2,
    status: 'busy',
    start: now - 60_000,
    procStartTicks: procStart(agent.pid as number),
  });
  return { config, dir, job2 };
}

describe('an owner name a gone agent and a live one both use', () => {
  it("release --gone never takes the live agent's #2; check does not call main gone", () => {
    const w = world();
    const dry = run(w.config, ['-l', 'ci', 'release', '--gone', '--dry-run'], { cwd: w.job2 });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe('');
    const before = readJson(path.join(w.dir, '2.json'));
    const real = run(w.config, ['-l', 'ci', 'release', '--gone'], { cwd: w.job2 });
    expect(real.code, real.stderr).toBe(0);
    expect(readJson(path.join(w.dir, '2.json'))).toEqual(before);
    const checked = JSON.parse(run(w.config, ['-l', 'ci', 'check', '--json'], { cwd: w.job2 }).stdout) as {
      findings: Array<{ code: string }>;
    };
    expect(checked.findings.map((f) => f.code)).not.toContain('owner_gone');
  });
});
