import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnv, ROOT, tempConfig, writeTask } from '../helpers/cli.js';

/**
 * The package as users install it: `npm pack`, then `npm install -g ./<tarball>` on a
 * machine with only Node. The tarball carries the built bundle and no dependencies, so
 * the install needs no registry, no build and no install scripts.
 */
describe('the packed tarball', () => {
  it('installs into an empty prefix offline, without warnings, and runs tasks list --json', () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-pack-'));
    // The build is already made (npm test builds first): pack it as it is, without
    // rebuilding dist/ under the other tests' feet.
    const pack = spawnSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8' });
    expect(pack.status).toBe(0);
    const tarball = path.join(work, pack.stdout.trim().split('\n').pop() as string);
    expect(path.basename(tarball)).toMatch(/^claude-code-tasks-\d+\.\d+\.\d+\.tgz$/);

    const prefix = path.join(work, 'prefix');
    const install = spawnSync('npm', ['install', '-g', '--prefix', prefix, '--cache', path.join(work, 'cache'), '--offline', tarball], {
      cwd: work,
      encoding: 'utf8',
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    expect(install.stderr).toBe('');
    expect(install.status).toBe(0);
    const installed = path.join(prefix, 'lib', 'node_modules', 'claude-code-tasks');
    // A real copy, not a link to this checkout.
    expect(fs.lstatSync(installed).isSymbolicLink()).toBe(false);
    expect(fs.existsSync(path.join(installed, 'node_modules'))).toBe(false);

    const config = tempConfig();
    writeTask(path.join(config, 'tasks', 'l'), {
      id: '1',
      subject: 'Ship it',
      description: '',
      status: 'pending',
      blocks: [],
      blockedBy: [],
    });
    // Only Node on the PATH besides the installed command.
    const env = baseEnv(config, { PATH: `${path.join(prefix, 'bin')}:${path.dirname(process.execPath)}` });
    const r = spawnSync('tasks', ['-l', 'l', 'list', '--json'], { env, cwd: work, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      { id: '1', subject: 'Ship it', description: '', status: 'pending', blocks: [], blockedBy: [], updatedAt: expect.any(String) },
    ]);
  }, 120_000);
});
