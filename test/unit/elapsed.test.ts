import { describe, expect, it } from 'vitest';
import { ago } from '../../src/render/elapsed.js';
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
