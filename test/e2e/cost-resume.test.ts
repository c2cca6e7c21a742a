/**
 * `tasks cost` on a session and its `--resume` run as Claude Code 2.1.328 wrote them
 * (test/fixtures/claude-code-2.1.328/fork/README.md): one transcript, each run closed by a
 * `cost-state` entry, 17 s apart. The time between, when no process of the session ran, is
 * no task's: #1, left in progress by the first run, has two spells, and the resumed run's
 * turns count toward it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, tempConfig } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';

const PARENT = 'b662d4b4-5673-4d15-a9d3-6dd961fcbf2e';
const ms = (a: string, b: string) => Date.parse(`2026-12-01T${b}Z`) - Date.parse(`2026-12-01T${a}Z`);

describe('a resumed session', () => {
  it('counts a task left in progress from its start to the first run’s end, then from the resumed run’s first entry', async () => {
    const config = tempConfig();
    fs.cpSync(path.join(FIXTURES, 'fork', 'projects'), path.join(config, 'projects'), { recursive: true });
    fs.cpSync(path.join(FIXTURES, 'fork', 'tasks'), path.join(config, 'tasks'), { recursive: true });
    const r = await runInProcess(config, ['-l', PARENT, 'cost', '--json'], { env: { USER: 'carol' } });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as {
      tasks: Array<{ id: string; activeMs: number; messages: number }>;
      total: { activeMs: number };
    };
    const byId = Object.fromEntries(report.tasks.map((t) => [t.id, t]));
    // #1: in progress at 53.688 (its TaskUpdate's result); the run's last entry 53.700; resumed at
    // 10.727 (its queued prompt); the session's last entry 10.837. Not 17 s.
    expect(byId['1']?.activeMs).toBe(ms('15:31:53.688', '15:31:53.700') + ms('15:32:10.727', '15:32:10.837'));
    // Its messages: the first run's closing one, and the resumed run's two (it went on with #1),
    // each its own though the scripted model gave them the ids of the first run's first two.
    expect(byId['1']?.messages).toBe(3);
    expect(byId['2']?.messages).toBe(1);
    // #2: in progress at 10.821 until the session's end.
    expect(byId['2']?.activeMs).toBe(ms('15:32:10.821', '15:32:10.837'));
    expect(report.total.activeMs).toBe(byId['1']?.activeMs);
    const get = await runInProcess(config, ['-l', PARENT, 'get', '1'], { env: { USER: 'carol' } });
    // get's Work line says the same (in whole seconds).
    expect(get.stdout).toMatch(/Work: +0s in progress · 50 tokens \(3 messages/);
  });
});
