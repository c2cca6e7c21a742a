import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { usageErrorOf } from '../../src/cli/remote/usage-check.js';
import { currentUsageSpec, type UsageSpec } from '../../src/cli/remote/usage-spec.js';
import { runInProcess } from '../helpers/in-process.js';

/**
 * The check of a command line sent to a host (remote/usage-check.ts) refuses a line only
 * as a run here refuses it: the same words, exit 2. Lines made of the words that trip
 * commander (options of several commands, values that look like options, `--`, unknown
 * words) are checked against a run here, in process; a line the check lets through is the
 * host's to judge, whatever it says.
 */
describe("a host's command line checked here", () => {
  let spec: UsageSpec;
  beforeAll(async () => {
    spec = await currentUsageSpec();
  });
  const commands = [
    'update',
    'create',
    'block',
    'list',
    'ls',
    'lists',
    'get',
    'claim',
    'delete',
    'unblock',
    'frobnicate',
    'updat',
    'watch',
  ];
  const words = [
    ...['1', '2', 'x', '-1', '--', '--json', '-l', '--list=a', '--subject', '--status', 'bogus', 'done', '--by', '--bogus', '--subjct'],
    ...['-x', '--format', 'markdown', '--owner', '--no-owner', '-d', '-dfoo', '--stalled', '-a', '-qa', '--sort', 'size', '--as', '-V'],
    ...[
      '--next',
      '--search=x',
      '--limit',
      '--if-status',
      '--since',
      '-s',
      '--status=x',
      '-h',
      '--help',
      '--blocked-by',
      '--meta',
      'k=v',
      '--no-hooks',
    ],
  ];
  // A seeded sequence: the same lines on every run.
  let seed = Number(process.env.SEED ?? 7);
  const pick = <T>(list: readonly T[]): T => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return list[seed % list.length] as T;
  };

  it('refuses only what a run here refuses, in its words', async () => {
    const config = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-usage-check-'));
    let refused = 0;
    const lines: string[][] = [['-l'], ['--json'], ['-l', 'a', '-l']];
    for (let n = 0; n < Number(process.env.N ?? 600); n++) {
      const line = Array.from({ length: 1 + (n % 4) }, () => pick(words));
      line.splice(n % 2, 0, pick(commands));
      lines.push(line);
    }
    for (const line of lines) {
      const said = usageErrorOf(line, spec)?.message;
      if (said === undefined) continue;
      refused++;
      const here = await runInProcess(config, line, { env: { TASKS_SSH_COMMAND: 'false' }, cwd: os.tmpdir() });
      expect({ line, code: here.code, said: here.stderr.split('\n')[0] }).toEqual({
        line,
        code: 2,
        said: line.includes('--json') ? here.stderr.split('\n')[0] : `error: ${said.replace('\n', ' ')}`,
      });
      if (line.includes('--json')) expect(JSON.parse(here.stderr).error.message).toBe(said);
    }
    expect(refused).toBeGreaterThan(100);
  }, 120_000);
});
