/** procStat reads a process's state, group and start time from a /proc stat line, however odd its command's name. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasEnded, procStat } from '../../src/core/base/proc-stat.js';
import { stillAtWork, stillRunning } from '../../src/core/runs/stream-writers.js';

function fakeProc(stats: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-proc-'));
  for (const [pid, line] of Object.entries(stats)) {
    fs.mkdirSync(path.join(root, pid));
    fs.writeFileSync(path.join(root, pid, 'stat'), line);
  }
  return root;
}

// pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime priority nice threads itrealvalue starttime ...
const line = (pid: number, comm: string, state: string, pgrp: number, start: number) =>
  `${pid} (${comm}) ${state} 1 ${pgrp} ${pgrp} 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 ${start} 1000 100\n`;

describe('procStat', () => {
  it('counts fields from the last parenthesis: a command named "a) Z 9 (b" is read right', () => {
    const root = fakeProc({ '41': line(41, 'a) Z 9 (b', 'S', 41, 5551), '42': line(42, 'sleep', 'Z', 41, 5552) });
    expect(procStat(41, root)).toEqual({ state: 'S', ppid: '1', pgrp: '41', startTime: '5551' });
    expect(hasEnded(procStat(41, root) as never)).toBe(false);
    expect(hasEnded(procStat(42, root) as never)).toBe(true);
    expect(procStat(43, root)).toBeUndefined();
  });

  it('stillRunning names the same process by its start time; stillAtWork also leaves out a zombie', () => {
    const root = fakeProc({ '41': line(41, 'node', 'S', 41, 5551), '42': line(42, 'sleep', 'Z', 41, 5552) });
    expect(stillRunning({ pid: 41, startTime: '5551' }, root)).toBe(true);
    expect(stillRunning({ pid: 41, startTime: '9999' }, root)).toBe(false);
    expect(stillRunning({ pid: 41, startTime: undefined }, root)).toBe(true);
    expect(stillAtWork({ pid: 41, startTime: '5551' }, root)).toBe(true);
    expect(stillRunning({ pid: 42, startTime: '5552' }, root)).toBe(true);
    expect(stillAtWork({ pid: 42, startTime: '5552' }, root)).toBe(false);
    expect(stillAtWork({ pid: 43, startTime: undefined }, root)).toBe(false);
  });
});
