/**
 * A list whose last change is dated ahead of its machine's clock (clock skew, a file copied
 * from a machine ahead, a VM resumed): its sidebar row says what its card says, when the
 * board first saw that time ("seen 2 min ago"), never "3 h in the future", and why on
 * hover; a board started again, which can only count from its own start, says so.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { HostStateView, ListRowView } from '../../src/board/board-protocol.js';
import { type RowsSeen, rowAsSeen } from '../../src/board/board-state.js';
import { lastChangeWords } from '../../src/board/page/page-sidebar.js';
import { FIRST_LOOK_MS, noteBoardStart, seenNote } from '../../src/board/page/page-stall.js';

const NOW = Date.parse('2026-12-06T12:00:00Z');
const H = 3_600_000;
const MIN = 60_000;

afterEach(() => noteBoardStart(undefined));

describe("the sidebar's last change of a list dated ahead", () => {
  it('as its card: "seen 2 min ago", why on hover, never "in the future"', () => {
    noteBoardStart(NOW - H);
    const words = lastChangeWords({ changedAt: NOW + 3 * H, seenAt: NOW - 2 * MIN, aheadMs: 3 * H + 2 * MIN }, NOW);
    expect(words.text).toBe('seen 2 min ago');
    expect(words.title).toBe(
      "its last change is dated 3 h in the future (ahead of its machine's clock: clock skew, a file copied from another machine, a VM resumed); counted from when the board first saw it",
    );
  });

  it('a list not dated ahead: its age, no hover', () => {
    expect(lastChangeWords({ changedAt: NOW - 2 * H - 59 * MIN }, NOW)).toEqual({ text: '3 h ago' });
  });

  it("first seen as the board started: says the age is the board's", () => {
    noteBoardStart(NOW - 2 * MIN - 3000);
    expect(lastChangeWords({ changedAt: NOW + 3 * H, seenAt: NOW - 2 * MIN, aheadMs: 3 * H }, NOW).text).toBe(
      'seen 2 min ago (since the board started)',
    );
  });
});

describe('seenNote: a first sight at the board start said as such', () => {
  it('within the first look after the start, and only then', () => {
    noteBoardStart(NOW);
    expect(seenNote(NOW + 1000)).toBe(' (since the board started)');
    expect(seenNote(NOW + FIRST_LOOK_MS)).toBe(' (since the board started)');
    expect(seenNote(NOW + FIRST_LOOK_MS + 1)).toBe('');
  });

  it('a board that does not say when it started: nothing', () => {
    noteBoardStart(undefined);
    expect(seenNote(NOW)).toBe('');
  });
});

describe('a board of hosts: each host its own start', () => {
  // Each host's board starts as the board of hosts reaches it, on that host's clock: its first look is its own.
  const host = (label: string, startedAt: number): HostStateView => ({ label, state: 'live', message: null, since: startedAt, startedAt });
  const ahead = (id: string) => ({ id, changedAt: NOW + 3 * H, seenAt: NOW - 2 * MIN, aheadMs: 3 * H });

  it("a list first seen as its host's board started says so; one its host saw later does not", () => {
    noteBoardStart(undefined, [host('devbox', NOW - 2 * MIN - 3000), host('ci-7', NOW - H)]);
    expect(lastChangeWords(ahead('h0-web'), NOW).text).toBe('seen 2 min ago (since the board started)');
    expect(lastChangeWords(ahead('h1-web'), NOW).text).toBe('seen 2 min ago');
    expect(seenNote(NOW - 2 * MIN, 'h0-web')).toBe(' (since the board started)');
    expect(seenNote(NOW - 2 * MIN, 'h1-web')).toBe('');
  });

  it('a host that does not say when its board started (an older tasks there): nothing', () => {
    noteBoardStart(undefined, [{ label: 'devbox', state: 'live', message: null, since: NOW }]);
    expect(seenNote(NOW, 'h0-web')).toBe('');
  });
});

function row(changedAt: number): ListRowView {
  return {
    id: 'sprint',
    shortId: 'sprint',
    kind: 'tasks',
    total: 1,
    counts: { pending: 0, in_progress: 1, completed: 0 },
    problems: 0,
    changedAt,
    session: null,
    others: [],
    sessionCount: 0,
    unsure: 0,
    team: null,
  };
}

describe('rowAsSeen: the server counts a row dated ahead from the same first sight as its card', () => {
  it("a task file's first sight, as timesAsSeen keeps it (task id | file time)", () => {
    const at = NOW + 3 * H + 0.25;
    const tasksSeen = new Map([[`1|${at}`, NOW - 5 * MIN]]);
    const out = rowAsSeen(row(at), tasksSeen, new Map(), NOW);
    expect(out.seenAt).toBe(NOW - 5 * MIN);
    expect(out.aheadMs).toBe(3 * H + 5 * MIN);
    expect(out.changedAt).toBe(at);
  });

  it('else its own first sight, kept from one read to the next', () => {
    const rowsSeen: RowsSeen = new Map();
    const at = NOW + 3 * H;
    expect(rowAsSeen(row(at), new Map(), rowsSeen, NOW).seenAt).toBe(NOW);
    expect(rowAsSeen(row(at), new Map(), rowsSeen, NOW + MIN).seenAt).toBe(NOW);
    // A new time ahead: seen anew.
    expect(rowAsSeen(row(at + 1000), new Map(), rowsSeen, NOW + 2 * MIN).seenAt).toBe(NOW + 2 * MIN);
  });

  it('once the clock passes it, the row as it is', () => {
    const rowsSeen: RowsSeen = new Map();
    rowAsSeen(row(NOW + 5000), new Map(), rowsSeen, NOW);
    const out = rowAsSeen(row(NOW + 5000), new Map(), rowsSeen, NOW + 6000);
    expect(out.seenAt).toBeUndefined();
    expect(rowsSeen.size).toBe(0);
  });
});
