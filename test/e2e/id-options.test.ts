import { describe, expect, it } from 'vitest';
import { fixtureConfig, readJson, snapshotDir, tempConfig } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';

/**
 * Options that take task ids take one value each (repeatable) or a comma list, so they
 * never swallow the words after them; a mistake of that shape is named as such.
 */
describe('id options take one value each, or a comma list', () => {
  it('create --blocked-by 2 "Deploy": the subject is the subject', async () => {
    const { config, list } = fixtureConfig();
    const r = await runInProcess(config, ['create', '--blocked-by', '2', 'Deploy']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const id = r.stdout.trim();
    expect(readJson(`${list}/${id}.json`)).toMatchObject({ subject: 'Deploy', blockedBy: ['2'] });
  });

  it('--blocked-by 2,4 and --blocked-by 2 --blocked-by 4 are the same', async () => {
    const { config, list } = fixtureConfig();
    const a = (await runInProcess(config, ['create', 'A', '--blocked-by', '2,4'])).stdout.trim();
    const b = (await runInProcess(config, ['create', 'B', '--blocked-by', '2', '--blocked-by', '4'])).stdout.trim();
    expect(readJson(`${list}/${a}.json`)).toMatchObject({ blockedBy: ['2', '4'] });
    expect(readJson(`${list}/${b}.json`)).toMatchObject({ blockedBy: ['2', '4'] });
  });

  it('block 4 --by 2 5 is refused with an error that says what happened; nothing written', async () => {
    const { config, list } = fixtureConfig();
    const before = snapshotDir(list);
    const r = await runInProcess(config, ['block', '4', '--by', '2', '5']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: unexpected argument "5": --by takes one id; give several as --by 2,5 or repeat --by\n');
    expect(snapshotDir(list)).toEqual(before);
    expect((await runInProcess(config, ['block', '4', '--by', '2,5'])).code).toBe(0);
  });

  it('create "Deploy" --blocked-by 2 4 names the mistake too', async () => {
    const config = tempConfig();
    const r = await runInProcess(config, ['-l', 'x', 'create', 'Deploy', '--blocked-by', '2', '4']);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toBe(
      'error: unexpected argument "4": --blocked-by takes one id; give several as --blocked-by 2,4 or repeat --blocked-by\n',
    );
  });
});

describe('one meaning per short flag', () => {
  it('export -o alice filters by owner, as list -o does; it writes no file named alice', async () => {
    const { config } = fixtureConfig();
    const r = await runInProcess(config, ['export', '-f', 'json', '-o', 'researcher']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).map((t: { id: string }) => t.id)).toEqual(['1']);
    expect((await runInProcess(config, ['export', '--output', 'out.json'])).code).toBe(0);
  });
});

describe('short flags across commands', () => {
  it('each short flag stands for the same long option in every command', async () => {
    const config = tempConfig();
    const commands = [
      'list',
      'get',
      'create',
      'update',
      'claim',
      'release',
      'block',
      'unblock',
      'delete',
      'lists',
      'watch',
      'import',
      'export',
      'check',
      'completion',
    ];
    const meaning = new Map<string, string>();
    const clashes: string[] = [];
    for (const command of commands) {
      const help = (await runInProcess(config, [command, '--help'])).stdout;
      for (const m of help.matchAll(/^\s+(-[a-zA-Z]), (--[a-z-]+)/gm)) {
        const [, short, long] = m as unknown as [string, string, string];
        const seen = meaning.get(short);
        if (seen !== undefined && seen !== long) clashes.push(`${command}: ${short} is ${long}, elsewhere ${seen}`);
        meaning.set(short, seen ?? long);
      }
    }
    expect(clashes).toEqual([]);
  });
});
