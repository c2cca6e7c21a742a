/**
 * True times: a list's change time is its newest task file or high-water mark, and a
 * command that changes nothing (a read, a refusal, a change already made) leaves every
 * file and folder as it was: same names, same mtimes and ctimes, no journal made.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';

const task = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  subject: `Task ${id}`,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

/** Names, mtimes and ctimes of the folder and everything in it (atime is left out: reading may move it). */
function stamps(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (p: string, rel: string) => {
    const st = fs.lstatSync(p);
    out[rel] = `${st.mtimeMs}/${st.ctimeMs}/${st.size}`;
    if (st.isDirectory()) for (const name of fs.readdirSync(p).sort()) walk(path.join(p, name), path.join(rel, name));
  };
  walk(dir, '.');
  return out;
}

/** A list as an agent leaves it: a lock target, a high-water mark, tasks; all half an hour old. */
function agentList(config: string, name: string): string {
  const dir = path.join(config, 'tasks', name);
  writeTask(dir, task('1', { status: 'in_progress', owner: 'worker-1', blocks: ['2'] }));
  writeTask(dir, task('2', { blockedBy: ['1'] }));
  writeTask(dir, task('3', { status: 'completed', owner: 'worker-2' }));
  writeTask(dir, task('4', { blocks: ['5'] }));
  writeTask(dir, task('5', { blockedBy: ['4'] }));
  fs.writeFileSync(path.join(dir, '.lock'), '');
  fs.writeFileSync(path.join(dir, '.highwatermark'), '5');
  const old = (Date.now() - 1800_000) / 1000;
  for (const name of fs.readdirSync(dir)) fs.utimesSync(path.join(dir, name), old, old);
  fs.utimesSync(dir, old, old);
  return dir;
}

const NOTHING_CHANGES: Array<{ args: string[]; code: number }> = [
  // reads
  { args: ['list'], code: 0 },
  { args: ['list', '--json', '--stalled'], code: 0 },
  { args: ['get', '2'], code: 0 },
  { args: ['export', '--format', 'json'], code: 0 },
  { args: ['log'], code: 0 },
  { args: ['check'], code: 0 },
  { args: ['lists'], code: 0 },
  // nothing to undo
  { args: ['undo', '-n'], code: 3 },
  { args: ['undo'], code: 3 },
  // refusals
  { args: ['claim', '1', '--as', 'me'], code: 4 },
  { args: ['claim', '2', '--as', 'me'], code: 4 },
  { args: ['claim', '2', '--as', 'worker-1', '--busy-check'], code: 4 },
  { args: ['claim', '--next', '--as', 'worker-1', '--busy-check'], code: 4 },
  { args: ['update', '1', '--status', 'completed', '--if-owner', 'someone-else'], code: 4 },
  { args: ['release', '3'], code: 4 },
  { args: ['block', '4', '--by', '5'], code: 4 },
  { args: ['block', '4', '--by', '4'], code: 4 },
  { args: ['delete', '9', '-y'], code: 3 },
  { args: ['delete', '1', '-y', '--if-status', 'pending'], code: 4 },
  { args: ['unblock', '2', '--by', '9'], code: 3 },
  // changes already made
  { args: ['update', '1', '--status', 'in_progress'], code: 0 },
  { args: ['start', '1'], code: 0 },
  { args: ['update', '1', '--owner', 'worker-1', '--subject', 'Task 1'], code: 0 },
  { args: ['claim', '1', '--as', 'worker-1'], code: 0 },
  { args: ['release', '4'], code: 0 },
  { args: ['release', '--owner', 'nobody'], code: 0 },
  { args: ['block', '5', '--by', '4'], code: 0 },
  { args: ['update', '5', '--add-blocked-by', '4'], code: 0 },
  { args: ['unblock', '4'], code: 0 },
  { args: ['check', '--fix'], code: 0 },
  { args: ['import', '-', '-n'], code: 0 },
];

describe('a command that changes nothing leaves the list as it was', () => {
  for (const { args, code } of NOTHING_CHANGES) {
    it(`tasks ${args.join(' ')}`, () => {
      const config = tempConfig();
      const dir = agentList(config, 'agents');
      const before = stamps(dir);
      const input = args[0] === 'import' ? JSON.stringify([{ content: 'x', status: 'pending', activeForm: 'x' }]) : undefined;
      const r = runInProcessSync(config, ['-l', 'agents', ...args], { input });
      expect(r.code, r.stderr).toBe(code);
      expect(stamps(dir)).toEqual(before);
    });
  }
});

describe("a list's change time", () => {
  it('is its newest task file or high-water mark, not its folder: refusals do not move a list up', () => {
    const config = tempConfig();
    const older = agentList(config, 'older');
    const newer = agentList(config, 'newer');
    const recent = (Date.now() - 60_000) / 1000;
    fs.utimesSync(path.join(newer, '2.json'), recent, recent);
    // Something made and removed a folder in the older list (a lock): its folder time is now.
    fs.mkdirSync(path.join(older, '1.json.lock'));
    fs.rmdirSync(path.join(older, '1.json.lock'));
    runInProcessSync(config, ['-l', 'older', 'claim', '1', '--as', 'me']);
    const lists = JSON.parse(runInProcessSync(config, ['lists', '--json']).stdout) as Array<{ id: string; changedAt: string }>;
    expect(lists.map((l) => l.id)).toEqual(['newer', 'older']);
    expect(Math.abs(Date.parse(lists[0]!.changedAt) - recent * 1000)).toBeLessThan(2);
    // A delete raises the high-water mark: that is a change.
    expect(runInProcessSync(config, ['-l', 'older', 'delete', '5', '-y']).code).toBe(0);
    expect((JSON.parse(runInProcessSync(config, ['lists', '--json']).stdout) as Array<{ id: string }>).map((l) => l.id)).toEqual([
      'older',
      'newer',
    ]);
  });
});
