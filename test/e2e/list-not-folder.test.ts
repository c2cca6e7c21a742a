/**
 * Something other than a folder in a list's place (a file, a FIFO, a link to a file): no
 * list is there, as with a file in tasks/'s own place or a link to nothing. Every command
 * says so in one line and exits 3 (not found), a read and a write alike, and nothing on
 * disk changes.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshotDir, tempConfig, writeTask } from '../helpers/cli.js';

const task = (id: string) => ({ id, subject: `Task ${id}`, description: '', status: 'pending', blocks: [], blockedBy: [] });

const COMMANDS = [
  ['list'],
  ['list', '--json'],
  ['get', '1'],
  ['create', 'x'],
  ['update', '1', '--status', 'completed'],
  ['delete', '1', '-y'],
  ['claim', '1', '--as', 'me'],
];

const PLACES: Array<[string, (p: string) => void]> = [
  ['a file', (p) => fs.writeFileSync(p, 'not a list')],
  [
    'a link to a file',
    (p) => {
      fs.writeFileSync(`${p}.target`, 'x');
      fs.symlinkSync(`${p}.target`, p);
    },
  ],
  ['a FIFO', (p) => execFileSync('mkfifo', [p])],
];

describe('a list path that is not a folder', () => {
  for (const [what, make] of PLACES) {
    it(`${what}: every command exits 3 with one line, nothing changed`, () => {
      const config = tempConfig();
      writeTask(path.join(config, 'tasks', 'other'), task('1'));
      const dir = path.join(config, 'tasks', 'x');
      make(dir);
      const before = snapshotDir(path.join(config, 'tasks', 'other'));
      const names = fs.readdirSync(path.join(config, 'tasks')).sort();
      for (const args of COMMANDS) {
        const r = run(config, ['-l', 'x', ...args]);
        expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 3, stdout: '' });
        if (args.includes('--json'))
          expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'not_found', message: `${dir} is not a folder` } });
        else expect(r.stderr).toBe(`error: ${dir} is not a folder\n`);
      }
      expect(snapshotDir(path.join(config, 'tasks', 'other'))).toEqual(before);
      expect(fs.readdirSync(path.join(config, 'tasks')).sort()).toEqual(names);
    });
  }
});
