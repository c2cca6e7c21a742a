import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfig, writeTask } from '../helpers/cli.js';
import { startInTmux, tmuxAvailable } from '../helpers/tmux.js';

/** The live view of a list longer than the screen: keys scroll it, `/` filters it (tmux). */

const title = tmuxAvailable() ? 'watch: scrolling and / filter (tmux)' : 'watch: scrolling: SKIPPED, tmux is not installed';

function longList(): string {
  const config = tempConfig();
  const dir = path.join(config, 'tasks', 'long');
  for (let i = 1; i <= 40; i++) {
    writeTask(dir, { id: String(i), subject: `Task ${i}`, description: '', status: 'pending', blocks: [], blockedBy: [] });
  }
  return config;
}

/** Task ids shown as rows of the live view. */
const rowIds = (screen: string) => [...screen.matchAll(/^ [○✔▶⠋-⠿] +#(\d+) /gm)].map((m) => Number(m[1]));

describe.skipIf(!tmuxAvailable())(title, () => {
  it('j/k, arrows, PgUp/PgDn, g/G move through the list; / filters; Esc clears; q quits with 0', async () => {
    const pane = startInTmux(longList(), ['-l', 'long', 'watch'], { width: 80, height: 16 });
    try {
      const first = await pane.waitFor((s) => s.includes('/ filter'), 'the live view');
      expect(first).toMatch(/… 30 more: 30 pending/);
      expect(first).toContain('↑↓ PgUp PgDn scroll');

      pane.key('G');
      let s = await pane.waitFor((x) => x.includes('↑ 30 above · ↓ 0 below'), 'the end of the list');
      expect(rowIds(s)).toEqual([31, 32, 33, 34, 35, 36, 37, 38, 39, 40]);

      pane.key('g');
      s = await pane.waitFor((x) => x.includes('↑ 0 above · ↓ 30 below'), 'the top');
      expect(rowIds(s)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);

      pane.key('Down');
      pane.type('j');
      s = await pane.waitFor((x) => x.includes('↑ 2 above · ↓ 28 below'), 'two lines down');
      expect(rowIds(s)[0]).toBe(3);

      pane.key('PageDown');
      s = await pane.waitFor((x) => x.includes('↑ 12 above · ↓ 18 below'), 'a page down (the 10 rows shown)');
      expect(rowIds(s)[0]).toBe(13);

      pane.key('Up');
      pane.key('PageUp');
      s = await pane.waitFor((x) => x.includes('↑ 1 above · ↓ 29 below'), 'a line and a page up');

      pane.type('/');
      await pane.waitFor((x) => x.includes('Enter keeps the filter'), 'the filter prompt');
      pane.type('task 3');
      pane.key('Enter');
      s = await pane.waitFor((x) => x.includes('/task 3 (Esc clears)'), 'the filter applied');
      expect(rowIds(s)).toEqual([3, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39]);

      pane.key('Escape');
      s = await pane.waitFor((x) => x.includes('… 30 more') && x.includes('/ filter'), 'the filter cleared');

      pane.type('q');
      s = await pane.waitFor((x) => /EXIT=\d+/.test(x), 'the watch to end');
      expect(s).toContain('EXIT=0');
    } finally {
      pane.kill();
    }
  });
});
