/**
 * `tasks lists` dates a session's row (a TodoWrite session, a live session whose list has
 * no folder yet) by its transcript's last entry, as `notify` and the board date a
 * session's end: a `touch` or a backup tool moves the file's time with nothing written,
 * and must not make a session of two days ago the newest row.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { run, tempConfig } from '../helpers/cli.js';
import { writeTranscript } from '../helpers/session-files.mjs';

describe('lists: a session dated by its last entry, not its file time', () => {
  it('a TodoWrite session touched now still says it changed two days ago', () => {
    const config = tempConfig();
    const end = Date.now() - 2 * 86_400_000;
    const file = writeTranscript(config, { sessionId: '5e5e5e5e-0000-4000-8000-000000000001', cwd: '/tmp/proj', start: end - 60_000, end });
    const now = new Date();
    fs.utimesSync(file, now, now);
    const r = run(config, ['lists', '--all', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const row = JSON.parse(r.stdout).find((l: { kind: string }) => l.kind === 'todowrite');
    expect(Math.abs(Date.parse(row.changedAt) - end)).toBeLessThan(2_000);
  });
});
