/**
 * A task file whose modification time lies ahead of this machine's clock (clock skew, a
 * file copied from another machine, a VM resumed): `get` says when and that it is in the
 * future, never "0s ago", which would hide the skew.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempConfig } from '../helpers/cli.js';

describe('a task file changed "in the future"', () => {
  it("get's unrecorded change gives the file's time, 3 h in the future, not 0s ago", () => {
    const config = tempConfig();
    expect(run(config, ['-l', 'L', 'create', 'skewed']).code).toBe(0);
    const file = path.join(config, 'tasks', 'L', '1.json');
    const ahead = new Date(Date.now() + 3 * 3_600_000 + 30_000);
    fs.utimesSync(file, ahead, ahead);
    const r = run(config, ['-l', 'L', 'get', '1']);
    expect(r.code, r.stderr).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.startsWith('changed since then'));
    expect(line).toMatch(
      /^changed since then, at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d, 3 h in the future \(ahead of this machine's clock\), by a change no record shows/,
    );
    expect(r.stdout).not.toContain('0s ago,');
  });
});

describe('a task in progress whose file is dated in the future, asked whether it stalled', () => {
  function skewedInProgress(): string {
    const config = tempConfig();
    expect(run(config, ['-l', 'L', 'create', 'skewed']).code).toBe(0);
    expect(run(config, ['-l', 'L', 'update', '1', '--status', 'in_progress']).code).toBe(0);
    const file = path.join(config, 'tasks', 'L', '1.json');
    const ahead = new Date(Date.now() + 3 * 3_600_000 + 30_000);
    fs.utimesSync(file, ahead, ahead);
    return config;
  }
  const warnings = (stderr: string) =>
    stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l).warning)
      .filter(Boolean);

  it('list --stalled warns that it cannot be judged stalled for 3 h (stall_time_ahead), not a quiet "nothing stalled"', () => {
    const config = skewedInProgress();
    const r = run(config, ['-l', 'L', 'list', '--stalled', '1m']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /warning: task #1's file is dated 3 h in the future \(ahead of this machine's clock\): it cannot be judged stalled until then/,
    );
    const j = run(config, ['-l', 'L', 'list', '--stalled', '1m', '--json']);
    expect(warnings(j.stderr)).toContainEqual(expect.objectContaining({ code: 'stall_time_ahead', id: '1' }));
  });

  it('lists --stalled warns too, naming the list', () => {
    const config = skewedInProgress();
    const r = run(config, ['lists', '--stalled', '1m', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(warnings(r.stderr)).toContainEqual(expect.objectContaining({ code: 'stall_time_ahead', list: 'L', ids: ['1'] }));
  });
});
