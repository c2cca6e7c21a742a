/**
 * Interop: an interactive session clears its list itself about 5 s after every task is
 * completed, whether or not its turn is over. A turn that completes its last task and goes
 * on (here: a test run of 9 s) is still busy when its list is cleared; the gate that waited
 * for it passes once the turn is over: the work was done.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAsync } from '../helpers/cli.js';
import { startInteractive } from './interactive.js';
import type { Turn } from './mock-model.js';
import { liveFiles, waitFor, world } from './session-world.js';

const byPrompt = (prompt: string): Turn | undefined => {
  if (/^plan it$/m.test(prompt)) return [{ name: 'TaskCreate', input: { subject: 'Ship it', description: 'x' } }];
  if (/^finish it$/m.test(prompt))
    return [
      { name: 'TaskUpdate', input: { taskId: '1', status: 'completed' } },
      { name: 'Bash', input: { command: 'sleep 9', description: 'run the tests' } },
    ];
  return undefined;
};

describe('the real Claude Code clears a finished list while its turn goes on', () => {
  it('watch --until all-completed passes once the turn is over', async () => {
    const w = world();
    const proj = w.dir('work/web');
    const a = await startInteractive({ configDir: w.config, cwd: proj, home: w.home, byPrompt, args: ['--allowedTools', 'Bash'] });
    try {
      const first = await waitFor('the live file', () => liveFiles(w.config)[0]);
      await a.waitFor((s) => /auto mode|for shortcuts/.test(s), 'the prompt');
      a.type('plan it');
      const list = path.join(w.config, 'tasks', first.sessionId);
      await waitFor('the task', () => fs.existsSync(path.join(list, '1.json')) || undefined);
      const gate = runAsync(w.config, ['-l', first.sessionId, 'watch', '--until', 'all-completed', '--timeout', '60s', '--json'], {
        cwd: proj,
        env: { HOME: w.home },
      });
      await new Promise((r) => setTimeout(r, 1500));
      a.type('finish it');
      const r = await gate;
      const events = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { event: string; reason?: string });
      // The agent cleared its list while it was still busy (a deletion seen after the wait began).
      expect(events.map((e) => e.event)).toEqual(expect.arrayContaining(['waiting', 'deleted']));
      expect(fs.readdirSync(list).filter((f) => f.endsWith('.json'))).toEqual([]);
      expect(r.code, r.stderr).toBe(0);
      expect(events.at(-1)).toMatchObject({ event: 'end', reason: 'condition-met' });
    } finally {
      await a.stop();
    }
  });
});
