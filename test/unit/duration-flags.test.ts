import { describe, expect, it } from 'vitest';
import { parseDuration, parseDurationOrOff } from '../../src/cli/flags/duration-flags.js';

/** One grammar for every duration flag (flags/duration-flags.ts). */
describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['90s', 90_000],
    ['5m', 300_000],
    ['15m', 900_000],
    ['2min', 120_000],
    ['1h', 3_600_000],
    ['1h30m', 5_400_000],
    ['1H30M', 5_400_000],
    ['1m30s', 90_000],
    ['2d', 172_800_000],
    ['1.5h', 5_400_000],
    ['1.5s', 1500],
    ['30', 30_000],
    ['2', 2000],
    ['0', 0],
    [' 90s ', 90_000],
    ['365d', 31_536_000_000],
  ])('%j', (raw, ms) => {
    expect(parseDuration('--timeout', raw)).toBe(ms);
    expect(parseDurationOrOff('--stale-after', raw)).toBe(ms);
  });

  it.each(['', 'soon', '5 m', '-1s', '5x', 'm', '1h 30m', 'off', 'never', '366d', '1e3'])('refuses %j, naming the flag', (raw) => {
    expect(() => parseDuration('--since', raw)).toThrow(
      expect.objectContaining({ code: 'usage', message: `invalid --since "${raw}": expected a duration like 90s, 15m, 1h30m or 2d` }),
    );
  });

  it('takes off and never only where a flag can be switched off', () => {
    expect(parseDurationOrOff('--stale-after', 'off')).toBeUndefined();
    expect(parseDurationOrOff('--stale-after', 'NEVER')).toBeUndefined();
    expect(() => parseDurationOrOff('--stale-after', 'soon')).toThrow(
      expect.objectContaining({
        code: 'usage',
        message: 'invalid --stale-after "soon": expected a duration like 90s, 15m, 1h30m or 2d, or off',
      }),
    );
  });
});
