/**
 * `release --gone` and `notify` through the binary, against the files the real Claude Code
 * 2.1.328 wrote (test/fixtures/claude-code-2.1.328/gone, README there): a solo agent killed
 * while #1, which it set in progress with no owner, was its work; and a session on a shared
 * list that `/clear` replaced while its process went on with the list. Processes of this
 * test stand for the agent's: a pid that has exited (a crash), or a running one named
 * `claude` with the list in its environment (the interactive process after `/clear`).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJson, run, snapshotDir } from '../helpers/cli.js';
import { agentProcesses, deadPid, goneFixture } from '../helpers/gone-fixtures.js';
import { notifyEnv } from '../helpers/notify.js';
import { procStart } from '../helpers/session-files.mjs';

const agentProcess = agentProcesses();

/**
 * What notify --once sends of a gone agent (one NDJSON document a message). Only
 * agent-died is asked for: the fixtures' task files keep the times they were recorded
 * at, so an idle live agent's task is stalled by the clock once they are 30 minutes old.
 */
function notifyOnce(config: string, list: string): Array<{ event: string; text: string }> {
  const out = path.join(config, 'sent.ndjson');
  const r = run(config, ['-l', list, 'notify', '--once', '--json', '--on', 'agent-died', '--to', `exec:cat >> '${out}'`], {
    env: notifyEnv(config),
  });
  expect(r.code, r.stderr).toBe(0);
  if (!fs.existsSync(out)) return [];
  return fs
    .readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { event: string; text: string });
}

describe('a solo agent killed holding #1 in progress with no owner', () => {
  it('release --gone --dry-run says #1 would go back to pending, and changes nothing; the real run does it, once', () => {
    const w = goneFixture('crashed-unowned', { pid: deadPid() });
    const before = snapshotDir(w.dir);
    const dry = run(w.config, ['-l', 'solo', 'release', '--gone', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe(
      'Would put task #1 back to pending (no owner; in_progress -> pending; session 4aa21e64 crashed holding it): Fix it\n',
    );
    expect(snapshotDir(w.dir)).toEqual(before);

    const real = run(w.config, ['-l', 'solo', 'release', '--gone']);
    expect(real.code, real.stderr).toBe(0);
    expect(real.stdout).toBe(
      'Put task #1 back to pending (no owner; in_progress -> pending; session 4aa21e64 crashed holding it): Fix it\n',
    );
    expect(readJson(path.join(w.dir, '1.json'))).toMatchObject({ status: 'pending' });
    expect(readJson(path.join(w.dir, '1.json'))).not.toHaveProperty('owner');

    const again = run(w.config, ['-l', 'solo', 'release', '--gone', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual([]);
  });

  it('--json: the item of a release, with no previous owner', () => {
    const w = goneFixture('crashed-unowned', { pid: deadPid() });
    const r = run(w.config, ['-l', 'solo', 'release', '--gone', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject([
      { id: '1', ok: true, released: true, previousStatus: 'in_progress', task: { status: 'pending' } },
    ]);
    expect(JSON.parse(r.stdout)[0]).not.toHaveProperty('previousOwner');
  });

  it('notify tells the agent gone', () => {
    const w = goneFixture('crashed-unowned', { pid: deadPid() });
    expect(notifyOnce(w.config, 'solo')).toMatchObject([
      { event: 'agent-died', text: 'session 4aa21e64 crashed holding #1 in list solo (/tmp/tmp.W6AEOdfKWk/work)' },
    ]);
  });

  it('while its process runs, the session holds #1: nothing is released, nothing told', () => {
    const { pid } = agentProcess({ CLAUDE_CODE_TASK_LIST_ID: 'solo' });
    const w = goneFixture('crashed-unowned', { pid, procStart: procStart(pid) });
    const before = snapshotDir(w.dir);
    const r = run(w.config, ['-l', 'solo', 'release', '--gone']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/nothing released/);
    expect(snapshotDir(w.dir)).toEqual(before);
    expect(notifyOnce(w.config, 'solo')).toEqual([]);
  });

  it('a crashed session resumed (`claude --resume <id>`, its live-session file not written yet) holds #1 again: nothing released', () => {
    const w = goneFixture('crashed-unowned', { pid: deadPid() });
    expect(run(w.config, ['-l', 'solo', 'release', '--gone', '--dry-run']).stdout).toMatch(/#1/);
    const resumed = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)', '--', '--resume', w.live.sessionId, '-p', 'go on'], {
      argv0: 'claude',
      stdio: 'ignore',
      env: { ...process.env, CLAUDE_CONFIG_DIR: w.config, CLAUDE_CODE_TASK_LIST_ID: 'solo' },
    });
    try {
      const before = snapshotDir(w.dir);
      const r = run(w.config, ['-l', 'solo', 'release', '--gone']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/session 4aa21e64 is live; nothing released/);
      expect(snapshotDir(w.dir)).toEqual(before);
      expect(notifyOnce(w.config, 'solo')).toEqual([]);
    } finally {
      resumed.kill('SIGKILL');
    }
  });
});

describe('a link that loops where a task the transcript names should be (a stat fails with ELOOP)', () => {
  it('every read goes on (the file as good as absent), nothing written', () => {
    const w = goneFixture('crashed-unowned', { pid: deadPid() });
    // The agent's #1 becomes #2 (the transcript still names #1), and 1.json a link to itself.
    const task = readJson(path.join(w.dir, '1.json')) as Record<string, unknown>;
    fs.rmSync(path.join(w.dir, '1.json'));
    fs.writeFileSync(path.join(w.dir, '2.json'), JSON.stringify({ ...task, id: '2' }));
    fs.symlinkSync(path.join(w.dir, '1.json'), path.join(w.dir, '1.json'));
    const before = snapshotDir(w.dir);
    for (const args of [
      ['get', '2'],
      ['list', '--stalled', '--json'],
      ['release', '--gone', '--dry-run'],
      ['log'],
      ['doctor'],
      ['cost', '--json'],
      ['lists', '--json'],
    ]) {
      const r = run(w.config, ['-l', 'solo', ...args]);
      expect(r.stderr, args.join(' ')).not.toMatch(/ELOOP|unexpected|\n\s+at /);
      expect([0, 4], `${args.join(' ')}: ${r.stderr}`).toContain(r.code);
    }
    expect(snapshotDir(w.dir)).toEqual(before);
  });
});

describe('a transcript line nested too deep to copy (a TaskUpdate whose input is 500,000 arrays deep)', () => {
  it('the rest of the transcript still counts: #1 is still told gone', () => {
    const w = goneFixture('crashed-unowned', { pid: deadPid() });
    const [folder] = fs.readdirSync(path.join(w.config, 'projects'));
    const dir = path.join(w.config, 'projects', folder as string);
    const transcript = path.join(dir, fs.readdirSync(dir)[0] as string);
    const { mtime } = fs.statSync(transcript);
    const deep = `${'['.repeat(500_000)}${']'.repeat(500_000)}`;
    const call = `{"type":"assistant","sessionId":"${w.live.sessionId}","message":{"content":[{"type":"tool_use","id":"toolu_deep","name":"TaskUpdate","input":{"taskId":"9","x":${deep}}}]},"timestamp":"2026-12-03T11:40:50.000Z"}`;
    fs.appendFileSync(transcript, `${call}\n`);
    fs.utimesSync(transcript, mtime, mtime);
    const r = run(w.config, ['-l', 'solo', 'release', '--gone', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      'Would put task #1 back to pending (no owner; in_progress -> pending; session 4aa21e64 crashed holding it): Fix it\n',
    );
  });
});

describe('a transcript whose cwd holds a NUL byte (no path can)', () => {
  it('every read goes on, #1 still told gone', () => {
    const w = goneFixture('crashed-unowned', { pid: deadPid() });
    const [folder] = fs.readdirSync(path.join(w.config, 'projects'));
    const dir = path.join(w.config, 'projects', folder as string);
    const transcript = path.join(dir, fs.readdirSync(dir)[0] as string);
    const { mtime } = fs.statSync(transcript);
    fs.writeFileSync(transcript, fs.readFileSync(transcript, 'utf8').replaceAll(`"cwd":"${w.live.cwd}"`, '"cwd":"/tmp/x\\u0000y"'));
    fs.utimesSync(transcript, mtime, mtime);
    for (const args of [['doctor'], ['lists', '--json'], ['log']]) {
      const r = run(w.config, ['-l', 'solo', ...args]);
      expect(r.stderr, args.join(' ')).not.toMatch(/null bytes|unexpected|\n\s+at /);
      expect([0, 4], `${args.join(' ')}: ${r.stderr}`).toContain(r.code);
    }
    expect(run(w.config, ['-l', 'solo', 'release', '--gone', '--dry-run']).stdout).toContain('session 4aa21e64 crashed holding it');
  });
});

describe('/clear on a shared list, the process going on with it', () => {
  it('main is not gone: release --gone --dry-run and the real run leave #1, notify tells nothing', () => {
    const { pid } = agentProcess({ CLAUDE_CODE_TASK_LIST_ID: 'team' });
    const w = goneFixture('cleared-shared', { pid, procStart: procStart(pid) });
    const before = snapshotDir(w.dir);
    const dry = run(w.config, ['-l', 'team', 'release', '--gone', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe('');
    expect(dry.stderr).toMatch(/nothing released/);
    const real = run(w.config, ['-l', 'team', 'release', '--gone', '--force']);
    expect(real.code, real.stderr).toBe(0);
    expect(real.stdout).toBe('');
    expect(snapshotDir(w.dir)).toEqual(before);
    expect(notifyOnce(w.config, 'team')).toEqual([]);
  });

  it('where the process went on to a list of its own, main is gone, as before', () => {
    const { pid } = agentProcess({});
    const w = goneFixture('cleared-shared', { pid, procStart: procStart(pid) });
    const dry = run(w.config, ['-l', 'team', 'release', '--gone', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe('Would release task #1 from main (in_progress -> pending; session 0501500a was cleared): T1\n');
  });
});
