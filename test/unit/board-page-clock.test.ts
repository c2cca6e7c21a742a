/**
 * The board's page counts ages ("3 min ago") on the server's clock, not the browser's: a
 * browser on a machine whose clock is 3 h behind the one serving the files would
 * otherwise call a change made a minute ago "2 h in the future". Each payload carries the
 * server's time (`at`); the page keeps the offset and every age counts from it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { tickAgo } from '../../src/board/page/page-ago.js';
import { noteServerTime } from '../../src/board/page/page-clock.js';

/** An element as tickAgo reads and writes it: no DOM needed. */
function agoElement(at: number) {
  const el = { dataset: { ago: String(at) }, textContent: '' };
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
