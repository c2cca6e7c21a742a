import { describe, expect, it } from 'vitest';
import { runClock } from '../../src/cli/runtime/run-clock.js';
import { tempConfig } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';

describe('the run clock ($TASKS_NOW)', () => {
  it('is the real time when unset or empty', () => {
    for (const env of [{}, { TASKS_NOW: '' }, { TASKS_NOW: '  ' }]) {
      const before = Date.now();
      const now = runClock(env)();
      expect(now).toBeGreaterThanOrEqual(before);
      expect(now).toBeLessThanOrEqual(Date.now());
    }
  });

  it('takes an ISO 8601 time or milliseconds since the epoch, the same for the whole run', () => {
    const clock = runClock({ TASKS_NOW: '2026-03-01T12:00:00Z' });
    expect(clock()).toBe(Date.UTC(2026, 2, 1, 12));
    expect(clock()).toBe(Date.UTC(2026, 2, 1, 12));
    expect(runClock({ TASKS_NOW: '1772366400000' })()).toBe(1772366400000);
    // Without a zone it is local time, as --since takes it.
    expect(runClock({ TASKS_NOW: '2026-03-01T12:00' })()).toBe(new Date(2026, 2, 1, 12).getTime());
  });

  it('refuses anything else with a usage error naming the variable', () => {
    for (const bad of ['yesterday', '2h', '2026-13-45', '-5', '1e3'])
      expect(() => runClock({ TASKS_NOW: bad })).toThrow(/^invalid TASKS_NOW ".*": expected an ISO 8601 time/);
  });

  it('dates what a run records, and a bad one is exit 2 with one line and nothing written', () => {
    const config = tempConfig();
    const at = '2026-03-01T12:00:00.000Z';
    expect(runInProcessSync(config, ['-l', 'L', 'create', 'A'], { env: { TASKS_NOW: at } }).code).toBe(0);
    const log = JSON.parse(runInProcessSync(config, ['-l', 'L', 'log', '--json']).stdout) as Array<{ at: string }>;
    expect(log.map((e) => e.at)).toEqual([at]);
    const bad = runInProcessSync(config, ['-l', 'L', 'create', 'B'], { env: { TASKS_NOW: 'soon' } });
    expect(bad).toMatchObject({ code: 2, stdout: '' });
    expect(bad.stderr).toBe(
      'error: invalid TASKS_NOW "soon": expected an ISO 8601 time (2026-12-01T14:30:00Z) or milliseconds since the epoch\n',
    );
    expect(JSON.parse(runInProcessSync(config, ['-l', 'L', 'list', '--json']).stdout)).toHaveLength(1);
  });
});
