/**
 * The board's page counts ages ("3 min ago") on the server's clock, not the browser's: a
 * browser on a machine whose clock is 3 h behind the one serving the files would
 * otherwise call a change made a minute ago "2 h in the future". Each payload carries the
 * server's time (`at`); the page keeps the offset and every age counts from it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { tickAgo } from '../../src/board/page/page-ago.js';
import { noteHostTime, noteServerTime } from '../../src/board/page/page-clock.js';

/** An element as tickAgo reads and writes it, in a list of page id `clock` (none: no list): no DOM needed. */
function agoElement(at: number, clock?: string) {
  const el = { dataset: { ago: String(at) }, textContent: '', closest: () => (clock === undefined ? null : { dataset: { clock } }) };
  const root = { querySelectorAll: () => [el] } as unknown as ParentNode;
  return { el, root };
}

afterEach(() => noteServerTime(Date.now()));

describe("the board page's ages, with the browser's clock 3 h behind the server's", () => {
  it('a change the server made a minute ago reads "1 min ago", not "in the future"', () => {
    const serverNow = Date.now() + 3 * 3_600_000;
    noteServerTime(serverNow);
    const { el, root } = agoElement(serverNow - 60_000);
    tickAgo(root);
    expect(el.textContent).toBe('1 min ago');
  });

  it('and 3 h ahead: a change made a minute ago is not "3 h ago"', () => {
    const serverNow = Date.now() - 3 * 3_600_000;
    noteServerTime(serverNow);
    const { el, root } = agoElement(serverNow - 60_000);
    tickAgo(root);
    expect(el.textContent).toBe('1 min ago');
  });
});

describe("a board of hosts: each host's times on its own clock", () => {
  it('a host 3 h ahead of the serving machine: its change of a minute ago reads "1 min ago", the server\'s own times on its clock', () => {
    noteServerTime(Date.now());
    noteHostTime('h7', Date.now() + 3 * 3_600_000);
    const host = agoElement(Date.now() + 3 * 3_600_000 - 60_000, 'h7-web');
    tickAgo(host.root);
    expect(host.el.textContent).toBe('1 min ago');
    // Another host, whose clock is not known yet: the serving machine's stands in.
    const other = agoElement(Date.now() - 120_000, 'h8-web');
    tickAgo(other.root);
    expect(other.el.textContent).toBe('2 min ago');
  });
});

describe("the board page's stalls by time, for a task file dated 1970 (its time not kept)", () => {
  it('does not mark it stalled since 1970: when it last changed is not known', async () => {
    const { stallsByTime } = await import('../../src/board/page/page-stall.js');
    const now = Date.now();
    const list = {
      at: now,
      atWork: false,
      stalledAfterMs: 30 * 60_000,
      tasks: [{ id: '1', status: 'in_progress' }],
      facts: { '1': { changedAt: 0 } },
    } as unknown as Parameters<typeof stallsByTime>[0];
    expect(stallsByTime(list, now)).toBe(false);
    expect(list.facts['1']?.stalledMs).toBeUndefined();
  });
});
