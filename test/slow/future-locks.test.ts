import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJson, run, runAsync, tempConfig, writeTask } from '../helpers/cli.js';

/**
 * A lock directory dated in the future: its holder died, then the clock was stepped
 * back. proper-lockfile (agents' and ours) calls a lock stale only once its mtime is
 * 10 s in the past, so such a lock blocked every write for the whole skew, showed as
 * "0 s old", and check saw nothing. A live holder refreshes its lock to the current time
 * every 5 s: a lock dated in the future that stays unchanged for the stale time (10 s)
 * has no live holder, and is broken like any stale lock.
 */

const HOUR = 3600;

function listWithFutureLock(): { config: string; list: string; lock: string } {
  const config = tempConfig();
  const list = path.join(config, 'tasks', 'l');
  writeTask(list, { id: '1', subject: 'one', description: '', status: 'pending', blocks: [], blockedBy: [] });
  const lock = path.join(list, '1.json.lock');
  fs.mkdirSync(lock);
  const future = Date.now() / 1000 + HOUR;
  fs.utimesSync(lock, future, future);
  return { config, list, lock };
}

// The repairs below wait out the stale time for real, each in processes of its own on a
// list of its own: they wait side by side.
describe.concurrent('a lock dated in the future', () => {
  it('check reports it with a stable code and its real date, not "0 s old" or "no problems"', () => {
    const { config } = listWithFutureLock();
    const r = run(config, ['-l', 'l', 'check', '--json']);
    expect(r.code).toBe(4);
    const report = JSON.parse(r.stdout) as { findings: Array<Record<string, unknown>> };
    expect(report.findings).toHaveLength(1);
    expect(report.findings[0]).toMatchObject({ code: 'future_lock', severity: 'error', fixable: true, file: '1.json.lock', empty: true });
    expect(report.findings[0]?.message).toMatch(/^1\.json\.lock is dated 3(59\d|600) s in the future/);
    expect(report.findings[0]?.futureMs).toBeGreaterThan(3_590_000);
  });

  it('check --fix removes it once it has stayed unchanged for the stale time (no live holder)', async () => {
    const { config, lock } = listWithFutureLock();
    const r = await runAsync(config, ['-l', 'l', 'check', '--fix', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as {
      findings: Array<{ code: string; repair?: { status: string; message: string } }>;
      remaining: unknown[];
    };
    expect(report.findings[0]?.repair).toMatchObject({ status: 'fixed' });
    expect(report.findings[0]?.repair?.message).toMatch(
      /^removed 1\.json\.lock, dated 3(59\d|600) s in the future and unchanged for 10 s: no live holder/,
    );
    expect(report.remaining).toEqual([]);
    expect(fs.existsSync(lock)).toBe(false);
  }, 60_000);

  it('check --fix leaves it alone while something keeps changing it (a live holder)', async () => {
    const { config, lock } = listWithFutureLock();
    // Touches the lock every second, as a holder's heartbeat would.
    const toucher = spawn(process.execPath, [
      '-e',
      `const fs=require('fs');let n=0;setInterval(()=>{const t=Date.now()/1000+${HOUR}+(++n);try{fs.utimesSync(${JSON.stringify(lock)},t,t)}catch{}},1000)`,
    ]);
    try {
      const r = await runAsync(config, ['-l', 'l', 'check', '--fix', '--json']);
      const report = JSON.parse(r.stdout) as { findings: Array<{ repair?: { status: string; message: string } }> };
      expect(report.findings[0]?.repair).toMatchObject({ status: 'failed' });
      expect(report.findings[0]?.repair?.message).toMatch(/changed while watched/);
      expect(fs.existsSync(lock)).toBe(true);
    } finally {
      toucher.kill('SIGKILL');
    }
  }, 60_000);

  it('a write breaks it once it has stayed unchanged for the stale time, instead of waiting an hour', async () => {
    const { config, list, lock } = listWithFutureLock();
    const r = await runAsync(config, ['-l', 'l', 'update', '1', '--owner', 'me']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Updated task #1 owner\n');
    expect(r.stderr).toMatch(/^waiting for task #1: 1\.json\.lock is dated 3(59\d|600) s in the future/);
    expect(readJson(path.join(list, '1.json'))).toMatchObject({ owner: 'me' });
    expect(fs.existsSync(lock)).toBe(false);
  }, 60_000);
});
