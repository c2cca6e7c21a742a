import { describe, expect, it } from 'vitest';
import { ago, idleFor } from '../../src/render/elapsed.js';
import { renderChangedSince } from '../../src/render/log-lines.js';

const NOW = Date.parse('2026-12-06T12:00:00Z');

describe('ago: how long since, told truly when the time lies ahead of the clock', () => {
  it('the past as before', () => {
    expect(ago(NOW - 12_000, NOW)).toBe('12s ago');
    expect(ago(NOW - 5 * 60_000, NOW)).toBe('5 min ago');
    expect(ago(NOW - 3 * 3_600_000, NOW)).toBe('3 h ago');
    expect(ago(NOW - 2 * 86_400_000, NOW)).toBe('2 d ago');
    // Under a second ahead is the file system's rounding, not a skew: now.
    expect(ago(NOW + 400, NOW)).toBe('0s ago');
  });

  it('a time ahead of the clock (clock skew, a copied file) is said to be in the future, never a zero or negative age', () => {
    expect(ago(NOW + 12_000, NOW)).toBe('12s in the future');
    expect(ago(NOW + 5 * 60_000, NOW)).toBe('5 min in the future');
    expect(ago(NOW + 3 * 3_600_000, NOW)).toBe('3 h in the future');
    expect(ago(NOW + 400 * 86_400_000, NOW)).toBe('400 d in the future');
  });

  it("get's unrecorded change at a future file time gives that time too", () => {
    const at = new Date(NOW + 3 * 3_600_000).toISOString();
    const line = renderChangedSince({ at, cause: 'unknown-agent' }, NOW);
    expect(line).toMatch(
      /^changed since then, at 2026-12-06 \d\d:00:00, 3 h in the future \(ahead of this machine's clock\), by a change no record shows/,
    );
  });
});

describe('ago: a time of 1970 (a file whose time was not kept)', () => {
  it('is said as its date, never as an age of 56 years', () => {
    expect(ago(0, NOW)).toBe('1970-01-01');
    expect(ago(-86_400_000, NOW)).toBe('1969-12-31');
    expect(ago(1000, NOW)).toBe('20793 d ago');
  });
});

describe('ago: an age as a person reads it, to the nearest unit, never cut down', () => {
  const H = 3_600_000;
  const MIN = 60_000;
  it('2 h 59 min is about 3 h, not 2 h; 2 h 20 min is 2 h', () => {
    expect(ago(NOW - (2 * H + 59 * MIN), NOW)).toBe('3 h ago');
    expect(ago(NOW - (2 * H + 20 * MIN), NOW)).toBe('2 h ago');
    expect(ago(NOW + 2 * H + 59 * MIN, NOW)).toBe('3 h in the future');
  });

  it('minutes and days likewise', () => {
    expect(ago(NOW - (4 * MIN + 50_000), NOW)).toBe('5 min ago');
    expect(ago(NOW - (4 * MIN + 20_000), NOW)).toBe('4 min ago');
    expect(ago(NOW - 47 * H, NOW)).toBe('2 d ago');
    expect(ago(NOW - 30 * H, NOW)).toBe('1 d ago');
  });

  it('a unit rounded up to the next is said in the next: never "60 min" or "24 h"', () => {
    expect(ago(NOW - 59.5 * 1000, NOW)).toBe('1 min ago');
    expect(ago(NOW - (59 * MIN + 40_000), NOW)).toBe('1 h ago');
    expect(ago(NOW - (23 * H + 50 * MIN), NOW)).toBe('1 d ago');
    expect(ago(NOW - 59_000, NOW)).toBe('59s ago');
  });
});

describe('idleFor: how long a task has gone without a change, to the nearest unit', () => {
  const MIN = 60_000;
  it('2 h 59 min is "3h", not "2h"; under 2 h to the minute', () => {
    expect(idleFor(179 * MIN)).toBe('3h');
    expect(idleFor(150 * MIN - 1000)).toBe('2h');
    expect(idleFor(65 * MIN)).toBe('1h05m');
    expect(idleFor(119 * MIN + 40_000)).toBe('2h');
    expect(idleFor(29 * MIN + 40_000)).toBe('30m');
    expect(idleFor(59 * MIN + 40_000)).toBe('1h00m');
    expect(idleFor(40_000)).toBe('40s');
  });
});
