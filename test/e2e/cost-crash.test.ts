/**
 * `tasks cost` on a session whose process was killed (no `cost-state`) and then resumed,
 * as Claude Code 2.1.328 wrote it (test/fixtures/claude-code-2.1.328/crash-resume/): the
 * resumed run's `cost-state` says when its process started, so the 13 s between the dead
 * process's last entry and the resumed run's first is no task's. Without that record (the
 * resumed run still running, or killed too), the time is counted and said to be unsure.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, tempConfig } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';

const SESSION = '2d82cedd-9fd0-4b78-84aa-257575bb6b81';
const TRANSCRIPT = path.join('projects', '-tmp-cc-work', `${SESSION}.jsonl`);
const ms = (a: string, b: string) => Date.parse(`2026-12-03T${b}Z`) - Date.parse(`2026-12-03T${a}Z`);

interface Usage {
  activeMs: number;
  unsureMs: number;
  messages: number;
}

function world(edit?: (lines: string[]) => string[]) {
  const config = tempConfig();
  for (const part of ['projects', 'tasks'])
    fs.cpSync(path.join(FIXTURES, 'crash-resume', part), path.join(config, part), { recursive: true });
  if (edit !== undefined) {
    const file = path.join(config, TRANSCRIPT);
    fs.writeFileSync(file, `${edit(fs.readFileSync(file, 'utf8').trimEnd().split('\n')).join('\n')}\n`);
  }
  const cost = async (...args: string[]) => {
    const r = await runInProcess(config, ['-l', SESSION, 'cost', ...args], { env: { USER: 'carol' } });
    expect(r.code, r.stderr).toBe(0);
    return r;
  };
  return { config, cost };
}

describe('a session killed and then resumed', () => {
  it('ends the dead process’s spell at its last entry and starts again at the resumed run’s first', async () => {
    const { config, cost } = world();
    const report = JSON.parse((await cost('--json')).stdout) as { tasks: Array<Usage & { id: string }>; total: Usage };
    const one = report.tasks.find((t) => t.id === '1');
    // In progress at 13.839 (its TaskUpdate's result); the killed process's last entry read is its
    // model's message at 18.425. The resumed run's first entry, its queued prompt, at 31.652; #1
    // completed at 31.814. Not the 18 s from 13.839 to 31.814.
    expect(one?.activeMs).toBe(ms('11:05:13.839', '11:05:18.425') + ms('11:05:31.652', '11:05:31.814'));
    expect(one?.unsureMs).toBe(0);
    expect(report.total.unsureMs).toBe(0);
    const table = await cost();
    expect(table.stdout).toMatch(/^#1\tPlan\t4748\t/m);
    expect(table.stderr).not.toContain('crashed');
    const get = await runInProcess(config, ['-l', SESSION, 'get', '1'], { env: { USER: 'carol' } });
    expect(get.stdout).toMatch(/Work: +5s in progress · /);
  });

  it('counts the silence the records do not place, and says the time is unsure', async () => {
    // The resumed run as it is while it runs, or if it is killed too: no `cost-state` yet.
    const { config, cost } = world((lines) => lines.filter((l) => !l.startsWith('{"type":"cost-state"')));
    const report = JSON.parse((await cost('--json')).stdout) as { tasks: Array<Usage & { id: string }>; total: Usage };
    const one = report.tasks.find((t) => t.id === '1');
    expect(one?.activeMs).toBe(ms('11:05:13.839', '11:05:31.814'));
    // The silence from the killed process's last entry read to the queued prompt that began a new chain.
    expect(one?.unsureMs).toBe(ms('11:05:18.425', '11:05:31.652'));
    expect(report.total.unsureMs).toBe(one?.unsureMs);
    const table = await cost();
    expect(table.stdout).toMatch(/^#1\tPlan\t17975\t/m);
    expect(table.stderr).toContain('may include up to 13s with no process');
    const get = await runInProcess(config, ['-l', SESSION, 'get', '1'], { env: { USER: 'carol' } });
    expect(get.stdout).toMatch(/Work: +up to 18s in progress \(13s of it after a crash no record places\)/);
  });

  it('a pause in one process before its next prompt is neither a gap nor unsure', async () => {
    // The same transcript with the resumed run's first request going on from the last one (`base`):
    // a person who typed again 13 s later into the same process.
    const { cost } = world((lines) => {
      const i = lines.findIndex((l, k) => k > 40 && l.startsWith('{"type":"api-request"'));
      lines[i] = (lines[i] as string).replace('"querySource"', '"base":"b20a9e35","querySource"').replace('"keep":0,', '"keep":2,');
      return lines.filter((l) => !l.startsWith('{"type":"cost-state"'));
    });
    const report = JSON.parse((await cost('--json')).stdout) as { tasks: Array<Usage & { id: string }> };
    const one = report.tasks.find((t) => t.id === '1');
    expect(one?.activeMs).toBe(ms('11:05:13.839', '11:05:31.814'));
    expect(one?.unsureMs).toBe(0);
  });
});
