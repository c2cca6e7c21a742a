/**
 * Interop: `claude --continue` goes on with the folder's latest session under its own id,
 * on its own list, as `--resume <id>` does. From the moment its process runs, before it
 * writes its live-session file (a few hundred ms), the ended session's work in progress
 * is not gone: `release --gone` leaves it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAgent } from './agent.js';
import type { Turn } from './mock-model.js';
import { gate, liveFiles, waitFor, world } from './session-world.js';

const CREATE: Turn = [{ name: 'TaskCreate', input: { subject: 'Fix it', description: 'Fix it, from the agent' } }];
const START: Turn = [{ name: 'TaskUpdate', input: { taskId: '1', status: 'in_progress' } }];
const LIST: Turn = [{ name: 'TaskList', input: {} }];

/** A process of this config folder started with `--continue` (read from /proc, as tasks reads it). */
function continuing(config: string): number | undefined {
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (!argv.includes('--continue')) continue;
      if (fs.readFileSync(`/proc/${name}/environ`, 'utf8').split('\0').includes(`CLAUDE_CONFIG_DIR=${config}`)) return Number(name);
    } catch {
      // gone, or not ours
    }
  }
  return undefined;
}

describe('the real Claude Code: --continue', () => {
  it('goes on with the ended session, on its list: its task in progress is not released, before its live-session file or after', async () => {
    const w = world();
    const proj = w.dir('work/solo');
    const first = await runAgent({ configDir: w.config, listId: undefined, cwd: proj, turns: [CREATE, START] });
    const id = first.stream.sessionId as string;
    expect(fs.existsSync(path.join(w.config, 'tasks', id, '1.json'))).toBe(true);
    const offered = await w.tasks(proj, ['-l', id, 'release', '--gone', '--dry-run']);
    expect(offered.stdout).toContain('Would put task #1 back to pending');
    const held = gate();
    const run = runAgent({
      configDir: w.config,
      listId: undefined,
      cwd: proj,
      args: ['--continue'],
      turns: [LIST],
      beforeTurn: (i) => (i === 0 ? held.wait() : undefined),
    });
    try {
      // At once when its process shows: most often before its live-session file (seen 100-400 ms before it).
      for (const until = Date.now() + 30_000; continuing(w.config) === undefined; ) {
        if (Date.now() > until) throw new Error('timed out waiting for its process');
        await new Promise((r) => setTimeout(r, 5));
      }
      const early = await w.tasks(proj, ['-l', id, 'release', '--gone', '--dry-run']);
      expect(early.stdout).toBe('');
      await held.arrived;
      const live = await waitFor('its live-session file', () => liveFiles(w.config)[0]);
      expect(live.sessionId).toBe(id);
      const dry = await w.tasks(proj, ['-l', id, 'release', '--gone', '--dry-run']);
      expect(dry.stdout).toBe('');
    } finally {
      // The run ends in every case: a failed check leaves no agent behind, nor its rejection unhandled.
      held.open();
      await run.catch(() => undefined);
    }
    const done = await run;
    expect(done.stream.sessionId).toBe(id);
    expect(JSON.stringify(done.received)).toContain('Fix it');
  });
});
