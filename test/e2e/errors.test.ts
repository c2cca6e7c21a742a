import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureConfig, snapshotDir, tempConfig } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';

/** Every bad input: one line on stderr, the right exit code, nothing on disk changed. */
const cases: Array<{ name: string; args: string[]; code: number; message: RegExp }> = [
  { name: 'unknown id', args: ['get', '99'], code: 3, message: /^error: task #99 not found$/ },
  { name: 'update of an unknown id', args: ['update', '99', '--status', 'completed'], code: 3, message: /task #99 not found/ },
  { name: 'id that is not a number', args: ['get', 'abc'], code: 2, message: /invalid task id "abc"/ },
  { name: 'traversal as an id', args: ['update', '../1', '--owner', 'x'], code: 2, message: /invalid task id/ },
  { name: 'bad status', args: ['update', '2', '--status', 'finished'], code: 2, message: /invalid status "finished"/ },
  { name: 'bad status filter', args: ['list', '--status', 'nope'], code: 2, message: /invalid status "nope"/ },
  { name: 'malformed --meta', args: ['update', '2', '--meta', 'novalue'], code: 2, message: /invalid --meta "novalue"/ },
  { name: 'bad JSON in --meta', args: ['create', 'x', '--meta', 'n:={oops'], code: 2, message: /must be JSON/ },
  { name: 'unknown flag', args: ['list', '--bogus'], code: 2, message: /unknown option '--bogus'/ },
  { name: 'missing argument', args: ['get'], code: 2, message: /missing required argument 'id'/ },
  { name: 'unknown command', args: ['frobnicate'], code: 2, message: /unknown command 'frobnicate'/ },
  { name: 'help of an unknown command', args: ['help', 'frobnicate'], code: 2, message: /^error: unknown command 'frobnicate'$/ },
  {
    name: 'help of a mistyped command',
    args: ['help', 'lst'],
    code: 2,
    message: /unknown command 'lst' \(Did you mean one of list, ls\?\)/,
  },
  { name: 'empty subject', args: ['create', '  '], code: 2, message: /subject cannot be empty/ },
  { name: 'nothing to update', args: ['update', '2'], code: 2, message: /nothing to update/ },
  { name: 'blocker that does not exist', args: ['update', '2', '--add-blocked-by', '42'], code: 3, message: /task #42 not found/ },
  { name: 'self-blocking', args: ['update', '2', '--add-blocks', '2'], code: 4, message: /cannot block itself/ },
  { name: 'a cycle', args: ['update', '4', '--add-blocks', '1'], code: 4, message: /would make a cycle: 4 -> 1 -> 2 -> 4/ },
  { name: '--owner with --unowned', args: ['list', '--owner', 'a', '--unowned'], code: 2, message: /cannot be used together/ },
];

describe('bad input', () => {
  for (const c of cases) {
    it(`${c.name}: exit ${c.code}, one line, nothing changed`, async () => {
      const { config, list } = fixtureConfig();
      const before = snapshotDir(list);
      const r = await runInProcess(config, c.args);
      expect(r.code).toBe(c.code);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr.trimEnd()).toMatch(c.message);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
      expect(snapshotDir(list)).toEqual(before);
    });
  }

  it('help with a global option before the command shows that help and changes nothing', async () => {
    const { config, list } = fixtureConfig();
    const before = snapshotDir(list);
    for (const args of [
      ['help', '-l', 'refactor-auth', 'create', 'new task'],
      ['help', '--list', 'refactor-auth', 'done', '2'],
      ['help', '-l', 'refactor-auth', 'delete', '1'],
    ]) {
      const r = await runInProcess(config, args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: tasks ${args[3]}`));
    }
    expect(snapshotDir(list)).toEqual(before);
    const unknown = await runInProcess(config, ['help', '-l', 'refactor-auth', 'nosuch']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim()).toBe("error: unknown command 'nosuch'");
  });

  it('prints errors as JSON on stderr with --json, stdout empty', async () => {
    const { config } = fixtureConfig();
    const r = await runInProcess(config, ['get', '99', '--json']);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toEqual({ error: { code: 'not_found', message: 'task #99 not found', id: '99' } });
    const usage = await runInProcess(config, ['list', '--bogus', '--json']);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stderr).error.code).toBe('usage');
  });

  it('a missing config folder is "not found"', async () => {
    const config = path.join(tempConfig(), 'nope');
    const r = await runInProcess(config, ['list']);
    expect(r.code).toBe(3);
    expect(r.stderr.trim()).toMatch(/config folder .*nope does not exist/);
    expect(fs.existsSync(config)).toBe(false);
  });

  it('a corrupt task file is reported, never crashes, never overwritten', async () => {
    const { config, list } = fixtureConfig();
    fs.writeFileSync(path.join(list, '7.json'), '{"id": "7", "subject": ');
    fs.writeFileSync(
      path.join(list, '8.json'),
      JSON.stringify({ id: '8', subject: 's', description: '', status: 'pending', blocks: [], blockedBy: [], owner: null }),
    );
    const listed = await runInProcess(config, ['list', '--json']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).map((t: { id: string }) => t.id)).toEqual(['1', '2', '4', '5']);
    // With --json, each skipped file is a warning object with its code and facts.
    const warnings = listed.stderr
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { warning: Record<string, string> }).warning);
    expect(warnings).toEqual([
      expect.objectContaining({ code: 'file_skipped', file: '7.json', message: expect.stringMatching(/^skipped 7\.json: not valid JSON/) }),
      expect.objectContaining({ code: 'file_skipped', file: '8.json', reason: 'owner: Expected string, received null' }),
    ]);
    const before = snapshotDir(list);
    const get = await runInProcess(config, ['get', '7']);
    expect(get.code).toBe(1);
    expect(get.stderr.trim()).toMatch(/^error: task #7 is unreadable: 7\.json: not valid JSON/);
    const upd = await runInProcess(config, ['update', '8', '--owner', 'me']);
    expect(upd.code).toBe(1);
    expect(snapshotDir(list)).toEqual(before);
    // The corrupt file still holds its id: the next one is 9.
    expect((await runInProcess(config, ['create', 'next'])).stdout).toBe('9\n');
  });
});
