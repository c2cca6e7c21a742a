/**
 * `tasks lists` with a list folder this user cannot read (another user's, mode 000): the
 * other lists are still shown, and that one is a row with one problem. As root, which
 * reads every folder, the command runs as `nobody` (runuser).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, baseEnv, run, tempConfig } from '../helpers/cli.js';

const asRoot = process.getuid?.() === 0;
// As root: only where `nobody` can run this checkout's tasks (a checkout in a private
// folder, /root's say, it cannot read).
const canDrop = !asRoot || spawnSync('runuser', ['-u', 'nobody', '--', process.execPath, BIN, '--version']).status === 0;

function openUp(dir: string): void {
  fs.chmodSync(dir, 0o777);
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) openUp(p);
    else if (e.isFile()) fs.chmodSync(p, 0o666);
  }
}

describe('tasks lists and a folder it cannot read', () => {
  it.skipIf(!canDrop)('shows every other list (exit 0); the unreadable one is a row with one problem', () => {
    const config = tempConfig();
    for (const list of ['A', 'B']) expect(run(config, ['-l', list, 'create', `a task of ${list}`]).code).toBe(0);
    openUp(config);
    fs.chmodSync(path.join(config, 'tasks', 'B'), 0o000);
    try {
      const env = baseEnv(config, { XDG_CACHE_HOME: path.join(config, 'cache-other'), HOME: path.join(config, 'home-other') });
      const argv = [BIN, 'lists', '--json'];
      const r = asRoot
        ? spawnSync('runuser', ['-u', 'nobody', '--', process.execPath, ...argv], { env, encoding: 'utf8', cwd: config })
        : spawnSync(process.execPath, argv, { env, encoding: 'utf8', cwd: config });
      expect(r.status, r.stderr).toBe(0);
      const rows = JSON.parse(r.stdout) as Array<{ id: string; counts: { total: number }; problems: number; changedAt: string }>;
      expect(rows.find((l) => l.id === 'A')).toMatchObject({ counts: { total: 1 }, problems: 0 });
      const b = rows.find((l) => l.id === 'B');
      expect(b).toMatchObject({ counts: { total: 0 }, problems: 1 });
      expect(b?.changedAt.startsWith('1970')).toBe(false);
    } finally {
      fs.chmodSync(path.join(config, 'tasks', 'B'), 0o777);
    }
  });
});
