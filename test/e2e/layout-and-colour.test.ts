import { describe, expect, it } from 'vitest';
import { fixtureConfig } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';

/** The layout (table or plain lines) follows the terminal alone; colour variables only colour. */
describe('FORCE_COLOR in a pipe (CI sets it often)', () => {
  it('list, lists, get and check print the same plain data as without it; the summary stays on stderr', () => {
    const { config } = fixtureConfig();
    for (const args of [['list'], ['lists'], ['check'], ['create', 'x']]) {
      const plain = runInProcessSync(config, args);
      const forced = runInProcessSync(config, args, { env: { FORCE_COLOR: '1' } });
      expect({ args, stdout: forced.stdout, code: forced.code }).toEqual({
        args,
        stdout: plain.stdout.replace(/^6\n$/, '7\n'),
        code: plain.code,
      });
    }
    // A detail is the same text piped or not: colour is all FORCE_COLOR adds.
    const detail = runInProcessSync(config, ['get', '4'], { env: { FORCE_COLOR: '1' } }).stdout;
    const text = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '').replace(/ +$/gm, '');
    expect(text(detail)).toBe(text(runInProcessSync(config, ['get', '4']).stdout));
    const forced = runInProcessSync(config, ['list'], { env: { FORCE_COLOR: '1' } });
    expect(forced.stdout.split('\n')[0]).toBe('1\tcompleted\tresearcher\t-\tAnalyse code');
    expect(forced.stderr.replace(/\u001b\[[0-9;]*m/g, '')).toBe('6 tasks: 1 done, 0 in progress, 5 pending (1 blocked)\n');
  });
});
