import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, readJson, runAsync, tempConfig, writeTask } from '../helpers/cli.js';

const HOLD = path.join(ROOT, 'test', 'helpers', 'hold-lock.mjs');
const t = (id: string) => ({ id, subject: `task ${id}`, description: '', status: 'pending', blocks: [], blockedBy: [] });

/** Start a process that takes a lock as an agent does; resolves once it holds it. */
function holdLock(target: string, ms: number): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HOLD, target, String(ms)], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout?.on('data', (d: Buffer) => {
      if (d.toString().includes('held')) resolve(child);
    });
    child.on('error', reject);
  });
}

function lockDirs(list: string): string[] {
  return fs.readdirSync(list).filter((n) => n.endsWith('.lock') && n !== '.lock');
}

// Each test waits on lock timings (the stale time, a holder's refresh, the retries) in
// processes of its own, on a list of its own: they wait side by side.
describe.concurrent('locks left behind, locks held', () => {
  it('a lock left by a killed agent is waited out within the stale time, and says so', async () => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'l');
    writeTask(list, t('1'));
    fs.writeFileSync(path.join(list, '.lock'), '');
    const holder = await holdLock(path.join(list, '.lock'), 60_000);
    holder.kill('SIGKILL');
    await new Promise((r) => holder.on('exit', r));
    expect(lockDirs(list)).toEqual(['.lock.lock']); // left behind
    const started = Date.now();
    const r = await runAsync(config, ['-l', 'l', 'create', 'after the crash']);
    const waited = Date.now() - started;
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('2\n');
    expect(r.stderr).toMatch(
      /^waiting for the list: \.lock\.lock is held \(\d+ s old\); a live holder refreshes it every 5 s, a dead one's expires in \d+ s\n$/,
    );
    expect(waited).toBeLessThan(30_000); // the stale time (10 s) plus start-up, with room for a loaded machine
    expect(lockDirs(list)).toEqual([]);
  });

  it('a lock that has not been refreshed for a while is called what it is', async () => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'l');
    writeTask(list, t('1'));
    const dir = path.join(list, '1.json.lock');
    fs.mkdirSync(dir);
    const past = new Date(Date.now() - 4_500);
    fs.utimesSync(dir, past, past);
    const r = await runAsync(config, ['-l', 'l', 'update', '1', '--owner', 'me']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Updated task #1 owner\n');
    expect(r.stderr).toMatch(
      /^waiting for a stale lock left by a dead process \(1\.json\.lock, \d+ s old, not refreshed; it expires in \d+ s\)\n$/,
    );
    expect(readJson(path.join(list, '1.json'))).toMatchObject({ owner: 'me' });
    expect(lockDirs(list)).toEqual([]);
  });

  it('a lock its live holder keeps refreshing ends in exit 5, saying the holder is alive; nothing written', async () => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'l');
    writeTask(list, t('1'));
    const before = fs.readFileSync(path.join(list, '1.json'), 'utf8');
    const holder = await holdLock(path.join(list, '1.json'), 60_000);
    try {
      const [text, json] = await Promise.all([
        runAsync(config, ['-l', 'l', 'update', '1', '--owner', 'me']),
        runAsync(config, ['-l', 'l', 'update', '1', '--owner', 'you', '--json']),
      ]);
      expect(text.code).toBe(5);
      expect(text.stdout).toBe('');
      const lines = text.stderr.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^waiting for task #1: 1\.json\.lock is held/);
      expect(lines[1]).toMatch(
        /^error: task #1 is locked by another process \(1\.json\.lock; its holder is alive: it refreshed the lock \d+ s ago\); try again$/,
      );
      expect(lines).toHaveLength(2);
      expect(json.code).toBe(5);
      expect(json.stdout).toBe('');
      const error = JSON.parse(json.stderr.trimEnd().split('\n').pop() as string).error;
      expect(error).toMatchObject({ code: 'busy', holderAlive: true, lock: path.join(list, '1.json.lock') });
      expect(fs.readFileSync(path.join(list, '1.json'), 'utf8')).toBe(before);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('claim --next with one ready task held by a live process and the other a file for a lock: exit 5, a retry may help', async () => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'l');
    writeTask(list, t('1'));
    writeTask(list, t('2'));
    fs.writeFileSync(path.join(list, '1.json.lock'), '');
    const holder = await holdLock(path.join(list, '2.json'), 60_000);
    try {
      const r = await runAsync(config, ['-l', 'l', 'claim', '--next', '--as', 'w']);
      expect(r.code).toBe(5);
      expect(r.stderr).toMatch(/^error: task #2 is locked by another process \(2\.json\.lock; its holder is alive/m);
      expect(readJson(path.join(list, '1.json'))).not.toHaveProperty('owner');
      expect(readJson(path.join(list, '2.json'))).not.toHaveProperty('owner');
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('a stale lock with a file inside cannot be broken: exit 5 after the retries, with the reason', async () => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'l');
    writeTask(list, t('1'));
    const dir = path.join(list, '1.json.lock');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'junk'), 'x');
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(dir, past, past);
    const r = await runAsync(config, ['-l', 'l', 'update', '1', '--owner', 'me']);
    expect(r.code).toBe(5);
    expect(r.stderr).toBe('error: task #1 cannot be locked: 1.json.lock is stale but not empty, so nobody can break it\n');
    expect(readJson(path.join(list, '1.json'))).not.toHaveProperty('owner');
  });
});
