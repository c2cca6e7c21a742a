/**
 * list-completed for a list whose agent was killed: every task so far completed is as far
 * as its agent got, and one killed between two steps of its plan never made the next. The
 * message says the session crashed. The fixture is a real crash (test/fixtures/
 * claude-code-2.1.328/gone: crashed-unowned, session 4aa21e64 SIGKILLed while its next
 * request waited); #1 is set completed here, as if that was its last step.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../helpers/cli.js';
import { deadPid, goneFixture } from '../helpers/gone-fixtures.js';
import { notifyEnv } from '../helpers/notify.js';

function completedOnce(config: string, dir: string): Array<{ event: string; text: string }> {
  const file = path.join(dir, '1.json');
  fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), status: 'completed' }, null, 2));
  const out = path.join(config, 'sent.ndjson');
  const r = run(
    config,
    ['-l', 'solo', 'notify', '--once', '--json', '--on', 'list-completed', '--to', `exec:cat >> '${out}'; echo >> '${out}'`],
    {
      env: notifyEnv(config),
    },
  );
  expect(r.code, r.stderr).toBe(0);
  return fs
    .readFileSync(out, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { event: string; text: string });
}

describe('list-completed of a list whose session crashed', () => {
  it('says the session crashed and may not have made every step of its plan', () => {
    const w = goneFixture('crashed-unowned', { pid: deadPid(), endedAgoMs: 60_000 });
    expect(completedOnce(w.config, w.dir)).toEqual([
      expect.objectContaining({
        event: 'list-completed',
        text: expect.stringMatching(/is completed \(1\); but session 4aa21e64 crashed, and may not have made every step of its plan$/),
      }),
    ]);
  });

  it('a session that ended (its live-session file gone with it) is told as before', () => {
    const w = goneFixture('crashed-unowned', { pid: deadPid(), endedAgoMs: 60_000 });
    for (const f of fs.readdirSync(path.join(w.config, 'sessions'))) fs.rmSync(path.join(w.config, 'sessions', f));
    expect(completedOnce(w.config, w.dir)).toEqual([
      expect.objectContaining({ event: 'list-completed', text: expect.stringMatching(/is completed \(1\)$/) }),
    ]);
  });
});
