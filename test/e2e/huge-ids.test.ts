import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJson, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';

/**
 * Ids past 2^53. Claude Code computes the next id with Number, which is exact up to
 * 9007199254740991 (Number.MAX_SAFE_INTEGER) and no further: past it agents can hand out
 * an id that is already used. So `tasks` computes ids exactly, refuses to allocate past
 * that limit (one clear line, exit 4), and still reaches every file agents could write.
 */

const task = (id: string, subject = `task ${id}`) => ({ id, subject, description: '', status: 'pending', blocks: [], blockedBy: [] });

function list(mark?: string): { config: string; dir: string } {
  const config = tempConfig();
  const dir = path.join(config, 'tasks', 'l');
  fs.mkdirSync(dir, { recursive: true });
  if (mark !== undefined) fs.writeFileSync(path.join(dir, '.highwatermark'), mark);
  return { config, dir };
}

describe('ids at and past the limit agents can count to', () => {
  it('allocates the last exact id, 9007199254740991, then refuses with a clear line (exit 4), writing nothing', async () => {
    const { config, dir } = list('9007199254740990');
    expect(await runInProcess(config, ['-l', 'l', 'create', 'last'])).toMatchObject({ code: 0, stdout: '9007199254740991\n' });
    expect(readJson(path.join(dir, '9007199254740991.json'))).toMatchObject({ id: '9007199254740991', subject: 'last' });
    const before = fs.readdirSync(dir).sort();
    const r = await runInProcess(config, ['-l', 'l', 'create', 'one too many']);
    expect(r.code).toBe(4);
    expect(r.stderr).toBe(
      'error: list "l" has used every id up to 9007199254740991, the highest Claude Code counts exactly; a new task would need 9007199254740992\n',
    );
    expect(fs.readdirSync(dir).sort()).toEqual(before);
  });

  it('a mark of 9999999999999999: create refuses instead of writing 10000000000000000.json and then failing forever', async () => {
    const { config, dir } = list('9999999999999999');
    const r = await runInProcess(config, ['-l', 'l', 'create', 'x']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^error: list "l" has used every id up to 9999999999999999, .* a new task would need 10000000000000000\n/);
    expect(r.stderr).not.toMatch(/another writer/);
    // Only the list lock's target (.lock, made as agents make it) is new; no task file.
    expect(fs.readdirSync(dir).sort()).toEqual(['.highwatermark', '.lock']);
  });

  it('a file 9007199254740992.json (Number precision): create refuses clearly, not "created by another writer"', async () => {
    const { config } = list();
    writeTask(path.join(config, 'tasks', 'l'), task('9007199254740992'));
    const r = await runInProcess(config, ['-l', 'l', 'create', 'x']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/has used every id up to 9007199254740992/);
  });

  it('every file an agent could write is reachable by get and delete, and delete raises the mark exactly', async () => {
    const { config, dir } = list('9999999999999999');
    writeTask(dir, task('10000000000000000', 'written by an agent'));
    writeTask(dir, task('10000000000000001', 'and another'));
    const got = await runInProcess(config, ['-l', 'l', 'get', '10000000000000001', '--json']);
    expect(got.code).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ id: '10000000000000001', subject: 'and another' });
    expect((await runInProcess(config, ['-l', 'l', 'list'])).stdout).toBe(
      '10000000000000000\tpending\t-\t-\twritten by an agent\n10000000000000001\tpending\t-\t-\tand another\n',
    );
    expect(await runInProcess(config, ['-l', 'l', 'delete', '10000000000000001'])).toMatchObject({ code: 0 });
    expect(fs.readFileSync(path.join(dir, '.highwatermark'), 'utf8')).toBe('10000000000000001');
    expect(fs.existsSync(path.join(dir, '10000000000000001.json'))).toBe(false);
  });

  it('check reports ids past the limit with a stable code and --fix converges (changes nothing it cannot fix)', async () => {
    const { config, dir } = list('9999999999999999');
    writeTask(dir, task('10000000000000000'));
    const first = await runInProcess(config, ['-l', 'l', 'check', '--json']);
    expect(first.code).toBe(4);
    const report = JSON.parse(first.stdout) as { findings: Array<{ code: string; fixable: boolean }> };
    expect(report.findings.map((f) => f.code)).toEqual(['ids_past_limit']);
    expect(report.findings[0]?.fixable).toBe(false);
    const before = fs
      .readdirSync(dir)
      .sort()
      .map((n) => [n, fs.readFileSync(path.join(dir, n), 'utf8')]);
    for (let i = 0; i < 2; i++) {
      const fixed = JSON.parse((await runInProcess(config, ['-l', 'l', 'check', '--fix', '--json'])).stdout) as {
        remaining: Array<{ code: string }>;
      };
      expect(fixed.remaining.map((f) => f.code)).toEqual(['ids_past_limit']);
    }
    expect(
      fs
        .readdirSync(dir)
        .sort()
        .map((n) => [n, fs.readFileSync(path.join(dir, n), 'utf8')]),
    ).toEqual(before);
  });
});
