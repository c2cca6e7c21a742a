/**
 * A list whose last change is dated ahead of its machine's clock (clock skew, a file copied
 * from a machine ahead, a VM resumed): its sidebar row says what its card says, when the
 * board first saw that time ("seen 2 min ago"), never "3 h in the future", and why on
 * hover; a board started again, which can only count from its own start, says so.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { HostStateView, ListRowView } from '../../src/board/board-protocol.js';
import { type RowsSeen, rowAsSeen, sessionAsSeen } from '../../src/board/board-state.js';
import { activeWords } from '../../src/board/page/page-head.js';
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

describe("the list head's session pill: its last activity dated ahead", () => {
  it('as a card says a time dated ahead: "seen 2 min ago", why on hover, never "active 3 h in the future"', () => {
    noteBoardStart(NOW - H);
    const words = activeWords({ lastActivity: NOW + 3 * H, seenAt: NOW - 2 * MIN, aheadMs: 3 * H + 2 * MIN }, 'sprint', NOW);
    expect(words.text).toBe('seen 2 min ago');
    expect(words.title).toBe(
      "its last activity is dated 3 h in the future (ahead of its machine's clock: clock skew, a file copied from another machine, a VM resumed); counted from when the board first saw it",
    );
  });

  it("first seen as the board started: says the age is the board's; a host's list by its host's start", () => {
    noteBoardStart(NOW - 2 * MIN - 3000);
    const ahead = { lastActivity: NOW + 3 * H, seenAt: NOW - 2 * MIN, aheadMs: 3 * H };
    expect(activeWords(ahead, 'sprint', NOW).text).toBe('seen 2 min ago (since the board started)');
    noteBoardStart(undefined, [{ label: 'devbox', state: 'live', message: null, since: NOW - H, startedAt: NOW - H }]);
    expect(activeWords(ahead, 'h0-sprint', NOW).text).toBe('seen 2 min ago');
  });

  it('a session not dated ahead: "active 3 h ago", no hover', () => {
    expect(activeWords({ lastActivity: NOW - 3 * H }, 'sprint', NOW)).toEqual({ text: 'active 3 h ago' });
  });
});

describe('sessionAsSeen: the server counts a session dated ahead from when it first saw that time', () => {
  const session = (lastActivity: number | null) => ({
    sessionId: '5b5b5b5b-2222-4c4c-8d8d-000000000007',
    state: 'ended' as const,
    activity: null,
    stateText: 'ended',
    look: 'ended' as const,
    replacedBy: null,
    name: null,
    project: null,
    branch: null,
    prompt: null,
    lastActivity,
  });

  it('its first sight, kept from one read to the next; a new time ahead seen anew; once passed, as it is', () => {
    const seen: RowsSeen = new Map();
    const at = NOW + 3 * H;
    expect(sessionAsSeen(session(at), seen, NOW)).toMatchObject({ lastActivity: at, seenAt: NOW, aheadMs: 3 * H });
    expect(sessionAsSeen(session(at), seen, NOW + MIN)).toMatchObject({ seenAt: NOW, aheadMs: 3 * H });
    expect(sessionAsSeen(session(at + 1000), seen, NOW + 2 * MIN).seenAt).toBe(NOW + 2 * MIN);
    expect(sessionAsSeen(session(NOW + 3 * MIN), seen, NOW + 4 * MIN).seenAt).toBeUndefined();
    expect(seen.size).toBe(0);
  });

  it('none known, or in the past: as it is', () => {
    expect(sessionAsSeen(session(null), new Map(), NOW)).toEqual(session(null));
    expect(sessionAsSeen(session(NOW - H), new Map(), NOW)).toEqual(session(NOW - H));
  });
});
