/**
 * A task in progress whose file is dated 1970-01-01 (a tar or zip made without times): when
 * it last changed is not known, so it is not stalled for 56 years ("stalled 499052h").
 * A look once (list, lists --stalled) does not call it stalled, as any task whose time is
 * unknown; a stall clock that runs on (watch, notify) counts from when it first saw the
 * task, as for a file dated ahead of the clock.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempConfig, writeTask } from '../helpers/cli.js';

function epochWork(): string {
  const config = tempConfig();
  const dir = path.join(config, 'tasks', 'old');
  writeTask(dir, {
    id: '1',
    subject: 'Task 1',
    description: '',
    activeForm: 'Doing 1',
    status: 'in_progress',
    owner: 'w1',
    blocks: [],
    blockedBy: [],
  });
  writeTask(dir, { id: '2', subject: 'Task 2', description: '', status: 'pending', blocks: [], blockedBy: [] });
  for (const id of ['1', '2']) fs.utimesSync(path.join(dir, `${id}.json`), 0, 0);
  fs.utimesSync(dir, 0, 0);
  return config;
}

const noCentury = (text: string) => expect(text).not.toMatch(/\d{5,}h|\d{6,} ?h|4990\d\d|1\d{12}/);

describe('a task in progress dated 1970 (no times kept)', () => {
  const tasks = (config: string, args: string[]) => run(config, args, { cwd: os.tmpdir() });

  it('list and lists --stalled do not call it stalled for half a million hours', () => {
    const config = epochWork();
    for (const args of [
      ['-l', 'old', 'list'],
      ['-l', 'old', 'list', '--stalled'],
      ['-l', 'old', 'list', '--stalled', '--json'],
      ['lists', '--stalled'],
      ['lists', '--stalled', '--format', 'markdown'],
      ['lists', '--stalled', '--json'],
    ]) {
      const r = tasks(config, args);
      expect(r.code, args.join(' ')).toBe(0);
      noCentury(r.stdout);
      noCentury(r.stderr);
      expect(r.stderr, args.join(' ')).not.toMatch(/stalled: in progress, unchanged/);
    }
  });

  it('list and lists --stalled say that its time was not kept, as they say of a time ahead', () => {
    const config = epochWork();
    for (const args of [
      ['-l', 'old', 'list'],
      ['-l', 'old', 'list', '--stalled'],
      ['lists', '--stalled'],
    ]) {
      const r = tasks(config, args);
      expect(r.code, args.join(' ')).toBe(0);
      const said = r.stderr.split('\n').filter((l) => /#1/.test(l) && /no time kept/.test(l));
      expect(said, `${args.join(' ')}: ${r.stderr}`).toHaveLength(1);
      expect(said[0]).toMatch(/cannot be judged stalled/);
      // The pending task is never judged: nothing is said of it.
      expect(r.stderr).not.toMatch(/#2/);
    }
    // A script reads it by its code.
    const json = tasks(config, ['-l', 'old', 'list', '--stalled', '--json']);
    const codes = json.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { warning?: { code?: string; id?: string } });
    expect(codes.find((c) => c.warning?.code === 'stall_time_not_kept')?.warning?.id).toBe('1');
    const across = tasks(config, ['lists', '--stalled', '--json']);
    expect(across.stderr).toMatch(/"code":"stall_time_not_kept"/);
  });

  it('watch --fail-if-stalled counts from when it first saw the task, not from 1970', () => {
    const config = epochWork();
    const r = tasks(config, ['-l', 'old', 'watch', '--fail-if-stalled', '30m', '--timeout', '1s']);
    noCentury(r.stdout);
    noCentury(r.stderr);
    // The deadline passed without --until: 0; a stall would have been 7.
    expect(r.code).toBe(0);
  });

  it('notify --once sends no stall of 56 years', () => {
    const config = epochWork();
    const out = path.join(config, 'sent.jsonl');
    const r = tasks(config, ['-l', 'old', 'notify', '--once', '--on', 'stalled', '--to', `exec:cat >> ${out}`]);
    expect(r.code).toBe(0);
    noCentury(r.stdout);
    noCentury(r.stderr);
    const sent = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '';
    noCentury(sent);
    expect(sent).not.toMatch(/stalled|without a change/);
  });
});
