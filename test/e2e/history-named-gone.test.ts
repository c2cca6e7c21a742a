/**
 * `tasks log` of a list named by CLAUDE_CODE_TASK_LIST_ID none of whose tasks is left:
 * Claude Code cleared it itself (the 2.1.328 reset fixture, its list moved to a named
 * folder as a session with the variable set leaves it). No task file ties the session to
 * the list; the list's `.lock`, made by its first TaskCreate, does: the session's changes
 * are shown, then the reset.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, tempConfig } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';

const S = '6da9f214-2624-4656-ae15-0b83b09f3074';
/** Between the fixture's TaskCreate call (08:49:52.463) and its result (.533): when the agent made the list's lock. */
const LOCK_MADE = Date.parse('2026-12-03T08:49:52.500Z') / 1000;

function world(): { config: string; list: string } {
  const config = tempConfig();
  fs.cpSync(path.join(FIXTURES, 'reset', 'projects'), path.join(config, 'projects'), { recursive: true });
  const list = path.join(config, 'tasks', 'named');
  fs.cpSync(path.join(FIXTURES, 'reset', 'tasks', S), list, { recursive: true });
  fs.utimesSync(path.join(list, '.lock'), LOCK_MADE, LOCK_MADE);
  return { config, list };
}
const run = (config: string, ...args: string[]) => runInProcessSync(config, args, { env: { USER: 'carol' } });

describe('a named list whose tasks are all gone', () => {
  it("log finds the session that made the list's first task by the list's lock", () => {
    const { config } = world();
    const r = run(config, '-l', 'named', 'log');
    expect(r.code, r.stderr).toBe(0);
    expect(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t').slice(1).join(' ')),
    ).toEqual([
      '#1 agent of session 6da9f214 created one',
      '#1 agent of session 6da9f214 status pending → in_progress',
      '#1 agent of session 6da9f214 status in_progress → completed',
      '#1 (no record) cleared by Claude Code: an interactive session on the list clears it 5 s after every task is completed',
    ]);
  });

  it('a lock made at another time ties no session', () => {
    const { config, list } = world();
    const other = LOCK_MADE - 3600;
    fs.utimesSync(path.join(list, '.lock'), other, other);
    const r = run(config, '-l', 'named', 'log', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
  });
});
