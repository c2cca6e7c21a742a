import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { snapshotDir, tempConfig } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';

/**
 * Folders that cannot be made or named: a config folder where `mkdir -p` cannot succeed
 * (/proc), a list id longer than a file name may be. Each is a usage error, one line,
 * exit 2, nothing written; never a hang or an errno.
 */
describe('config folders and list ids the file system cannot hold', () => {
  it('--config-dir /proc: a clear error and exit 2, not a spin (Node 20 recursive mkdir loops there)', () => {
    const r = runInProcessSync(tempConfig(), ['--config-dir', '/proc', '-l', 'x', 'create', 'hi'], { timeoutMs: 20_000 });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: cannot create the list folder \/proc\/tasks\/x: .*\n/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a config folder below a file does not exist: exit 3 and one line', () => {
    const root = tempConfig();
    fs.writeFileSync(path.join(root, 'file'), '');
    const r = runInProcessSync(root, ['--config-dir', path.join(root, 'file', 'conf'), '-l', 'x', 'create', 'hi']);
    expect(r.code).toBe(3);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('a list id over 255 bytes is a usage error (exit 2) for reads and writes, nothing written', () => {
    const config = tempConfig();
    fs.mkdirSync(path.join(config, 'tasks'), { recursive: true });
    const before = snapshotDir(path.join(config, 'tasks'));
    const long = 'a'.repeat(300);
    for (const args of [['create', 'hi'], ['list'], ['get', '1']]) {
      const r = runInProcessSync(config, ['-l', long, ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^error: the list id is 300 bytes long; a list folder name can hold at most 255\n/);
      expect(r.stderr).not.toMatch(/ENAMETOOLONG/);
    }
    expect(snapshotDir(path.join(config, 'tasks'))).toEqual(before);
  });
});
