import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { runInTmux, startInTmux, tmuxAvailable } from '../helpers/tmux.js';

/** What a person at a terminal is told, and asked: the binary in a terminal (tmux). */

const task = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  subject: `Task ${id}`,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

function list(): { config: string; dir: string } {
  const config = tempConfig();
  const dir = path.join(config, 'tasks', 'web-v2');
  writeTask(dir, task('1'));
  writeTask(dir, task('2', { owner: 'alice' }));
  return { config, dir };
}

describe.skipIf(!tmuxAvailable())('in a terminal', () => {
  it('update says what changed, with the list: owner alice → bob', async () => {
    const { config } = list();
    const screen = await runInTmux(config, ['-l', 'web-v2', 'update', '2', '--owner', 'bob', '--status', 'in_progress'], {
      width: 120,
      height: 10,
    });
    expect(screen).toMatch(
      /✔ Updated #2 in web-v2: (status pending → in progress; owner alice → bob|owner alice → bob; status pending → in progress)/,
    );
    // Piped, the agents' own TaskUpdate wording stays.
    expect(runInProcessSync(config, ['-l', 'web-v2', 'update', '2', '--owner', 'carol']).stdout).toBe('Updated task #2 owner\n');
  });

  it('delete asks first; no (or Enter) deletes nothing and exits 130; y deletes', async () => {
    const { config, dir } = list();
    const no = startInTmux(config, ['-l', 'web-v2', 'delete', '1'], { width: 100, height: 10 });
    try {
      await no.waitFor((s) => s.includes('Delete #1 "Task 1" from web-v2? [y/N]'), 'the question');
      no.type('n');
      no.key('Enter');
      const screen = await no.waitFor((s) => /EXIT=\d+/.test(s), 'the end');
      expect(screen).toContain('EXIT=130');
      expect(screen).toContain('nothing deleted');
    } finally {
      no.kill();
    }
    expect(fs.existsSync(path.join(dir, '1.json'))).toBe(true);
    const yes = startInTmux(config, ['-l', 'web-v2', 'delete', '1'], { width: 100, height: 10 });
    try {
      await yes.waitFor((s) => s.includes('[y/N]'), 'the question');
      yes.type('y');
      yes.key('Enter');
      const screen = await yes.waitFor((s) => /EXIT=\d+/.test(s), 'the end');
      expect(screen).toContain('✔ Deleted #1 from web-v2: Task 1');
      expect(screen).toContain('EXIT=0');
    } finally {
      yes.kill();
    }
    expect(fs.existsSync(path.join(dir, '1.json'))).toBe(false);
  });

  it('delete asks only when stdin and stdout are both terminals: stdout piped, it deletes without a question', async () => {
    const { config, dir } = list();
    const pane = startInTmux(config, ['-l', 'web-v2', 'delete', '1'], { width: 100, height: 10 }, {}, ' | cat');
    try {
      const screen = await pane.waitFor((s) => /EXIT=\d+/.test(s), 'the end');
      expect(screen).not.toContain('[y/N]');
      expect(screen).toContain('Deleted task #1: Task 1');
    } finally {
      pane.kill();
    }
    expect(fs.existsSync(path.join(dir, '1.json'))).toBe(false);
  });

  it('TERM=dumb: watch prints lines, not the full-screen view', async () => {
    const { config } = list();
    const pane = startInTmux(config, ['-l', 'web-v2', 'watch', '--timeout', '1s'], { width: 120, height: 20 }, { TERM: 'dumb' });
    try {
      const screen = await pane.waitFor((s) => /EXIT=\d+/.test(s), 'the end');
      expect(screen).toContain('{"event":"snapshot"');
      expect(screen).toContain('"reason":"timeout"');
      expect(screen).toContain('EXIT=0');
      expect(screen).not.toContain('q quit');
    } finally {
      pane.kill();
    }
  });

  it('delete -y does not ask; piped, delete never asks', async () => {
    const { config, dir } = list();
    const screen = await runInTmux(config, ['-l', 'web-v2', 'delete', '-y', '1'], { width: 100, height: 10 });
    expect(screen).not.toContain('[y/N]');
    expect(screen).toContain('EXIT=0');
    expect(runInProcessSync(config, ['-l', 'web-v2', 'delete', '2'])).toMatchObject({ code: 0, stdout: 'Deleted task #2: Task 2\n' });
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.json'))).toEqual([]);
  });
});
