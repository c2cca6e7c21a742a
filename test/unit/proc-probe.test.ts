import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { procProbe } from '../../src/core/sessions/live-sessions.js';

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
});
