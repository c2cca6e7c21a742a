/**
 * `tasks watch -l <list>` while the list's path stops being a folder it can read (a FIFO
 * or a file put in its place, mode 000): as for a removed list, it waits, warned once
 * (`list_unreadable`, naming what the path is), shows the tasks as last read, and goes on
 * when it reads again (`list_readable`), with what changed meanwhile. A gate is never
 * judged on the list while it cannot be read. Through the built binary; as root, the
 * mode 000 case runs the watch as `nobody` (runuser), for whom mode 000 means something.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, baseEnv, run, tempConfig } from '../helpers/cli.js';
import { parseNdjson } from '../helpers/replay.js';
import { startWatch } from '../helpers/watch.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const asRoot = process.getuid?.() === 0;
const canDrop = !asRoot || spawnSync('runuser', ['-u', 'nobody', '--', process.execPath, BIN, '--version']).status === 0;

function listWithTask(): { config: string; dir: string } {
  const config = tempConfig();
  expect(run(config, ['-l', 'demo', 'create', 'First']).code).toBe(0);
  return { config, dir: path.join(config, 'tasks', 'demo') };
}

async function until(test: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

const warnings = (stderr: string, code: string) => stderr.split('\n').filter((l) => l.includes(`"code":"${code}"`));

describe('watch a list whose path stops being a folder it can read', () => {
  for (const kind of ['FIFO', 'file'] as const) {
    it(`replaced by a ${kind}: warned once, waited for, followed again with what changed meanwhile`, async () => {
      const { config, dir } = listWithTask();
      const w = startWatch(config, ['-l', 'demo', 'watch', '--json']);
      try {
        await w.waitFor((e) => e.event === 'snapshot', 'the snapshot');
        // Made beside it first, then moved into its place right after the folder goes: a
        // watcher that looks in between would rightly see the list deleted.
        const other = `${dir}.other`;
        if (kind === 'FIFO') spawnSync('mkfifo', [other]);
        else fs.writeFileSync(other, 'not a list\n');
        fs.renameSync(dir, `${dir}-away`);
        fs.renameSync(other, dir);
        await until(() => w.stderr().includes('list_unreadable'), 'the warning');
        // Several looks later (a rescan every 2 s): still running, said once, nothing else.
        await sleep(2500);
        expect(w.child.exitCode).toBe(null);
        const said = warnings(w.stderr(), 'list_unreadable');
        expect(said).toHaveLength(1);
        expect(JSON.parse(said[0] as string)).toEqual({
          warning: {
            code: 'list_unreadable',
            message: `${dir} is now a ${kind}, not a folder: waiting for the list to read again (its tasks as last read)`,
            dir,
            is: `a ${kind}`,
          },
        });
        expect(w.events().map((e) => e.event)).toEqual(['snapshot']);
        // Meanwhile a second task was made; the folder comes back.
        expect(run(config, ['-l', 'demo-away', 'create', 'Second']).code).toBe(0);
        fs.rmSync(dir);
        fs.renameSync(`${dir}-away`, dir);
        await w.waitFor((e) => e.event === 'created', 'the task made meanwhile');
        await until(() => w.stderr().includes('list_readable'), 'the note');
        expect(w.events().map((e) => e.event)).toEqual(['snapshot', 'created']);
      } finally {
        const r = await w.stop();
        expect(r.code, r.stderr).toBe(0);
      }
    });
  }

  it('a gate is not judged while the list cannot be read: --until empty times out (124, met false)', async () => {
    const { config, dir } = listWithTask();
    const w = startWatch(config, ['-l', 'demo', 'watch', '--json', '--until', 'empty', '--timeout', '3s']);
    await w.waitFor((e) => e.event === 'snapshot', 'the snapshot');
    fs.renameSync(dir, `${dir}-away`);
    fs.writeFileSync(dir, 'not a list\n');
    const r = await w.exited;
    expect(r.code, r.stderr).toBe(124);
    const end = parseNdjson(r.stdout).at(-1);
    expect(end).toMatchObject({ event: 'end', reason: 'timeout', until: 'empty', met: false });
    expect(warnings(r.stderr, 'list_unreadable')).toHaveLength(1);
  });

  for (const [kind, to] of [
    ['a symbolic link to nothing', '/nonexistent/list'],
    ['a symbolic link loop', 'demo'],
  ] as const) {
    it(`replaced by ${kind}: waited for, and --until empty is never met on it (124)`, async () => {
      const { config, dir } = listWithTask();
      const w = startWatch(config, ['-l', 'demo', 'watch', '--json', '--until', 'empty', '--timeout', '3s']);
      await w.waitFor((e) => e.event === 'snapshot', 'the snapshot');
      fs.renameSync(dir, `${dir}-away`);
      fs.symlinkSync(to, dir);
      const r = await w.exited;
      expect(r.code, r.stderr).toBe(124);
      expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ event: 'end', reason: 'timeout', until: 'empty', met: false });
      const said = warnings(r.stderr, 'list_unreadable');
      expect(said).toHaveLength(1);
      expect(said[0]).toContain(`is now ${kind}, not a folder`);
    });
  }

  it('a FIFO where the list should be when the watch starts: waited for, never empty (124)', () => {
    const config = tempConfig();
    fs.mkdirSync(path.join(config, 'tasks'), { recursive: true });
    spawnSync('mkfifo', [path.join(config, 'tasks', 'demo')]);
    const r = run(config, ['-l', 'demo', 'watch', '--json', '--until', 'empty', '--timeout', '1s']);
    expect(r.code, r.stderr).toBe(124);
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ event: 'end', reason: 'timeout', met: false });
    const said = warnings(r.stderr, 'list_unreadable');
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('is a FIFO, not a folder');
  });

  it.skipIf(!canDrop)('made mode 000: warned once as a folder it cannot read, followed again once readable', async () => {
    const { config, dir } = listWithTask();
    for (const p of [config, path.join(config, 'tasks'), dir]) fs.chmodSync(p, 0o777);
    for (const f of fs.readdirSync(dir)) fs.chmodSync(path.join(dir, f), 0o666);
    const env = baseEnv(config, { HOME: path.join(config, 'home-other'), XDG_CACHE_HOME: path.join(config, 'cache-other') });
    const argv = [BIN, '-l', 'demo', 'watch', '--json'];
    const child = asRoot
      ? spawn('runuser', ['-u', 'nobody', '--', process.execPath, ...argv], { env, cwd: config })
      : spawn(process.execPath, argv, { env, cwd: config });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      await until(() => stdout.includes('"snapshot"'), 'the snapshot');
      fs.chmodSync(dir, 0o000);
      await until(() => stderr.includes('list_unreadable'), 'the warning');
      await sleep(2500);
      expect(child.exitCode).toBe(null);
      expect(warnings(stderr, 'list_unreadable')).toHaveLength(1);
      expect(stderr).toContain('is now a folder this user cannot read: waiting for the list to read again');
      fs.chmodSync(dir, 0o777);
      expect(run(config, ['-l', 'demo', 'update', '1', '--status', 'in_progress']).code).toBe(0);
      await until(() => stdout.includes('"event":"updated"'), 'the change made once readable');
      await until(() => stderr.includes('list_readable'), 'the note');
      expect(child.exitCode).toBe(null);
    } finally {
      fs.chmodSync(dir, 0o777);
      child.kill('SIGTERM');
      await exited;
    }
  });
});
