import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, baseEnv, run, tempConfig } from '../helpers/cli.js';

/**
 * import reads its input asynchronously, up to a bound (64 MB), so that no input can
 * exhaust memory or hold the process deaf to Ctrl-C / SIGTERM: /dev/zero, an endless
 * pipe, a FIFO with no writer. The bounds of the issue: /dev/zero ends with exit 2 in
 * under 2 s with a peak RSS under 200 MB.
 */

const LIMIT = /over the 64 MB import limit/;

/** Run under GNU time: exit code, stderr, wall seconds and peak RSS in MB. */
function measured(
  config: string,
  args: string[],
  stdin: 'pipe' | number = 'pipe',
): { code: number; stderr: string; seconds: number; peakMb: number } {
  const stats = path.join(config, 'time.txt');
  const r = spawnSync('/usr/bin/time', ['-o', stats, '-f', '%e %M', process.execPath, BIN, ...args], {
    env: baseEnv(config),
    cwd: config,
    stdio: [stdin, 'pipe', 'pipe'],
    encoding: 'utf8',
    timeout: 30_000,
    killSignal: 'SIGKILL',
  });
  const [seconds, kb] = fs.readFileSync(stats, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  return { code: r.status ?? -1, stderr: r.stderr, seconds: seconds!, peakMb: kb! / 1024 };
}

/** Start an import and send it `signal` once `ready` holds; its exit code and stderr. */
function interrupted(
  config: string,
  args: string[],
  ready: () => boolean,
  signal: NodeJS.Signals,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: baseEnv(config), cwd: config, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const poll = setInterval(() => {
      if (ready()) {
        clearInterval(poll);
        child.kill(signal);
      }
    }, 20);
    // A run deaf to the signal is killed, and fails the test on its exit code.
    const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('close', (code) => {
      clearInterval(poll);
      clearTimeout(guard);
      resolve({ code, stderr });
    });
  });
}

describe('import: bounded, interruptible input', () => {
  it('tasks import /dev/zero: exit 2 in under 2 s, peak RSS under 200 MB, nothing written', () => {
    const config = tempConfig();
    const r = measured(config, ['-l', 'l', 'import', '/dev/zero']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: cannot read /dev/zero: it is a device, not a file; to import a stream, pipe it in: ... | tasks import -\n',
    );
    expect(r.seconds).toBeLessThan(2);
    expect(r.peakMb).toBeLessThan(200);
    expect(fs.existsSync(path.join(config, 'tasks'))).toBe(false);
  });

  it('stdin from /dev/zero (and an endless pipe): stops at the bound, exit 2 in under 2 s, peak RSS under 200 MB', () => {
    const config = tempConfig();
    const zero = fs.openSync('/dev/zero', 'r');
    const r = measured(config, ['-l', 'l', 'import', '-'], zero);
    fs.closeSync(zero);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(LIMIT);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.seconds).toBeLessThan(2);
    expect(r.peakMb).toBeLessThan(200);

    const piped = spawnSync('sh', ['-c', `head -c 100000000 /dev/urandom | "${process.execPath}" "${BIN}" -l l import -`], {
      env: baseEnv(config),
      encoding: 'utf8',
      timeout: 30_000,
      killSignal: 'SIGKILL',
    });
    expect(piped.status).toBe(2);
    expect(piped.stderr).toMatch(/^error: stdin is over the 64 MB import limit/);
    expect(fs.existsSync(path.join(config, 'tasks'))).toBe(false);
  });

  it('a file over the bound is refused before it is read', () => {
    const config = tempConfig();
    const big = path.join(config, 'big.jsonl');
    fs.writeFileSync(big, '');
    fs.truncateSync(big, 65 * 1024 * 1024 + 1); // sparse: costs nothing on disk
    const r = run(config, ['-l', 'l', 'import', big]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`error: cannot read ${big}: it is 68157441 bytes, over the 64 MB import limit\n`);
  });

  it('a FIFO with no writer: waits without blocking, and SIGTERM / SIGINT end it with 130, nothing written', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const config = tempConfig();
      const fifo = path.join(config, 'fifo');
      spawnSync('mkfifo', [fifo]);
      const started = Date.now();
      const r = await interrupted(config, ['-l', 'l', 'import', fifo], () => Date.now() - started > 700, signal);
      expect(r.code, `${signal}: ${r.stderr}`).toBe(130);
      expect(fs.existsSync(path.join(config, 'tasks'))).toBe(false);
    }
  });

  it('a FIFO with a writer is read like a file', () => {
    const config = tempConfig();
    const fifo = path.join(config, 'fifo');
    spawnSync('mkfifo', [fifo]);
    const r = spawnSync(
      'sh',
      [
        '-c',
        `printf '%s' '[{"content":"From a pipe","status":"pending","activeForm":"Piping"}]' > "${fifo}" & "${process.execPath}" "${BIN}" -l l import "${fifo}"`,
      ],
      {
        env: baseEnv(config),
        encoding: 'utf8',
        timeout: 30_000,
        killSignal: 'SIGKILL',
      },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^created {2}#1 {2}pending +From a pipe\n$/);
  });

  it('SIGINT during a long import: exit 130, every written task valid, and a re-run completes it without duplicates', async () => {
    const config = tempConfig();
    const n = 3000;
    const input = path.join(config, 'todos.json');
    const todos = Array.from({ length: n }, (_, i) => ({ content: `Step ${i + 1}`, status: 'pending', activeForm: `Doing step ${i + 1}` }));
    fs.writeFileSync(input, JSON.stringify({ todos }));
    const list = path.join(config, 'tasks', 'l');
    const taskFiles = () => (fs.existsSync(list) ? fs.readdirSync(list).filter((f) => f.endsWith('.json')) : []);
    const r = await interrupted(config, ['-l', 'l', 'import', input, '--chain'], () => taskFiles().length >= 100, 'SIGINT');
    expect(r.code).toBe(130);
    const written = taskFiles();
    expect(written.length).toBeGreaterThanOrEqual(100);
    expect(written.length).toBeLessThan(n);
    for (const name of written) {
      const task = JSON.parse(fs.readFileSync(path.join(list, name), 'utf8')) as { id: string; subject: string };
      expect(`${task.id}.json`).toBe(name);
    }
    expect(fs.readdirSync(list).filter((f) => f.endsWith('.lock') && f !== '.lock')).toEqual([]);

    const again = run(config, ['-l', 'l', 'import', input, '--chain'], { timeoutMs: 120_000 });
    expect(again.code, again.stderr).toBe(0);
    const tasks = taskFiles().map(
      (f) => JSON.parse(fs.readFileSync(path.join(list, f), 'utf8')) as { subject: string; blockedBy: string[] },
    );
    expect(tasks).toHaveLength(n);
    expect(new Set(tasks.map((t) => t.subject)).size).toBe(n);
    // --chain links only the tasks an import creates: each run's steps are chained, and the
    // first step the second run creates starts a chain of its own (the cut is not re-linked).
    expect(tasks.filter((t) => t.blockedBy.length === 1)).toHaveLength(n - 2);
  }, 180_000);
});
