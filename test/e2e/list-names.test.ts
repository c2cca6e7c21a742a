/**
 * A list is named exactly: `build-9` is never `build-99`. Only a session UUID list may be
 * named by a unique prefix (at least four hex characters, as git takes short hashes). A
 * write goes to the list named or nowhere, and undoing the change that made a list takes
 * the list back.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { snapshotDir, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';

const task = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  subject: `Task ${id}`,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});
const UUID = '7baec0ff-2d48-4a4a-8b8b-3e104fbfeff7';

function withLists(...names: string[]): string {
  const config = tempConfig();
  for (const name of names) {
    writeTask(path.join(config, 'tasks', name), task('1', { owner: 'worker-1', status: 'in_progress' }));
    writeTask(path.join(config, 'tasks', name), task('2'));
  }
  return config;
}

/** Every write that does not make lists, as a person would type it against task #1 and #2. */
const WRITES: string[][] = [
  ['update', '1', '--status', 'completed'],
  ['start', '2'],
  ['done', '1'],
  ['claim', '2', '--as', 'me'],
  ['claim', '--next', '--as', 'me'],
  ['release', '1'],
  ['release', '--owner', 'worker-1'],
  ['release', '--gone'],
  ['block', '2', '--by', '1'],
  ['unblock', '2'],
  ['delete', '1', '-y'],
  ['undo'],
  ['check', '--fix'],
];

describe('names are exact', () => {
  for (const [missing, existing] of [
    ['build-9', 'build-99'],
    ['pr-123', 'pr-124'],
    ['doc', 'docs'],
  ] as const) {
    it(`every write to a missing "${missing}" exits 3 and leaves "${existing}" as it was`, () => {
      const config = withLists(existing);
      const before = snapshotDir(path.join(config, 'tasks', existing));
      for (const args of WRITES) {
        const r = runInProcessSync(config, ['-l', missing, ...args]);
        expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 3, stdout: '' });
        expect(r.stderr).toMatch(new RegExp(`^error: list folder .*${missing} does not exist`));
        expect(snapshotDir(path.join(config, 'tasks', existing))).toEqual(before);
      }
      expect(fs.readdirSync(path.join(config, 'tasks'))).toEqual([existing]);
    });
  }

  it('a read of a missing name is not found too, never the list it is a prefix of', () => {
    const config = withLists('build-99');
    expect(runInProcessSync(config, ['-l', 'build-9', 'list', '--json'])).toMatchObject({ code: 3, stdout: '' });
    expect(runInProcessSync(config, ['-l', 'build', 'get', '1'])).toMatchObject({ code: 3, stdout: '' });
  });

  it('a session UUID list takes a unique prefix of four hex characters or more, and nothing shorter', () => {
    const config = withLists(UUID, 'cafe-notes');
    const r = runInProcessSync(config, ['-l', '7bae', 'get', '2', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: '2' });
    expect(runInProcessSync(config, ['-l', '7baec0ff-2d', 'get', '2']).code).toBe(0);
    expect(runInProcessSync(config, ['-l', '7BAEC0FF', 'get', '2']).code).toBe(0);
    expect(runInProcessSync(config, ['-l', '7ba', 'get', '2']).code).toBe(3);
    // A name that happens to start with hex is a name: exact only.
    expect(runInProcessSync(config, ['-l', 'cafe', 'get', '2']).code).toBe(3);
  });
});

describe('undo takes back a new list', () => {
  it('undoing the create that made a list removes the list folder', () => {
    const config = tempConfig();
    expect(runInProcessSync(config, ['-l', 'fresh', 'create', 'first'])).toMatchObject({ code: 0, stdout: '1\n' });
    const undo = runInProcessSync(config, ['-l', 'fresh', 'undo']);
    expect(undo.code, undo.stderr).toBe(0);
    expect(fs.existsSync(path.join(config, 'tasks', 'fresh'))).toBe(false);
  });

  it('keeps the list when it holds more than that change, or a file of someone else', () => {
    const config = tempConfig();
    runInProcessSync(config, ['-l', 'shared', 'create', 'first']);
    runInProcessSync(config, ['-l', 'shared', 'create', 'second']);
    expect(runInProcessSync(config, ['-l', 'shared', 'undo']).code).toBe(0);
    expect(fs.readdirSync(path.join(config, 'tasks', 'shared')).filter((f) => f.endsWith('.json'))).toEqual(['1.json']);

    runInProcessSync(config, ['-l', 'noted', 'create', 'first']);
    fs.writeFileSync(path.join(config, 'tasks', 'noted', 'NOTES.md'), 'kept by a person\n');
    expect(runInProcessSync(config, ['-l', 'noted', 'undo']).code).toBe(0);
    expect(fs.readdirSync(path.join(config, 'tasks', 'noted')).filter((f) => !f.startsWith('.'))).toEqual(['NOTES.md']);
  });

  it('an existing list is never removed by undoing a create in it', () => {
    const config = withLists('kept');
    runInProcessSync(config, ['-l', 'kept', 'delete', '1', '-y']);
    runInProcessSync(config, ['-l', 'kept', 'delete', '2', '-y']);
    runInProcessSync(config, ['-l', 'kept', 'create', 'x']);
    expect(runInProcessSync(config, ['-l', 'kept', 'undo']).code).toBe(0);
    expect(fs.existsSync(path.join(config, 'tasks', 'kept'))).toBe(true);
  });
});
