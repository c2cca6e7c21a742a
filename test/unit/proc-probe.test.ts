import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { judgeProcess, procProbe } from '../../src/core/sessions/live-sessions.js';

// The probe reads /proc: Linux only.
describe.runIf(process.platform === 'linux')('the process probe', () => {
  it('sees a running process, and a zombie (ended, not yet reaped by its parent) as gone', async () => {
    // `sleep 0.2` is the shell's child; the shell then becomes `sleep 30`, which never reaps it.
    const parent = spawn('sh', ['-c', 'sleep 0.2 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (d) => resolve(String(d)))));
      expect(procProbe.startTime(pid)).toMatch(/^\d+$/);
      const deadline = Date.now() + 10_000;
      while (!fs.readFileSync(`/proc/${pid}/stat`, 'latin1').includes(') Z ') && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(fs.readFileSync(`/proc/${pid}/stat`, 'latin1')).toContain(') Z ');
      expect(procProbe.startTime(pid)).toBeUndefined();
      expect(procProbe.startTime(parent.pid as number)).toMatch(/^\d+$/);
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('takes a pid given to a later process for gone where the file has no procStart, by when the session started', () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const pid = child.pid as number;
      const file = { file: `${pid}.json`, sessionId: '11111111-2222-4333-8444-555555555555', pid };
      // The session started an hour before this process: not its process.
      expect(judgeProcess({ ...file, startedAt: Date.now() - 3_600_000 }, procProbe)).toBe('gone');
      // Started about when the process did: its own.
      expect(judgeProcess({ ...file, startedAt: Date.now() - 1_000 }, procProbe)).toBe('running');
      // No time to compare: taken as live, as before.
      expect(judgeProcess(file, procProbe)).toBe('running');
      // A Claude Code process on that pid is not taken for another: a start worked out from
      // the boot time moves with the clock.
      const claude = spawn('sleep', ['30'], { stdio: 'ignore', argv0: 'claude' });
      try {
        const other = { ...file, file: `${claude.pid}.json`, pid: claude.pid as number };
        expect(judgeProcess({ ...other, startedAt: Date.now() - 3_600_000 }, procProbe)).toBe('running');
      } finally {
        claude.kill('SIGKILL');
      }
      // procStart, where the file has it, decides alone.
      const procStart = procProbe.startTime(pid);
      expect(judgeProcess({ ...file, procStart, startedAt: Date.now() - 3_600_000 }, procProbe)).toBe('running');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
