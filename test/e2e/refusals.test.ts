import { describe, expect, it } from 'vitest';
import { fixtureConfig, snapshotDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';

/**
 * Every refusal of the dependency, claim and release commands: the right exit code, one
 * line on stderr, nothing on stdout, and every file in the list byte-identical.
 * The fixture: 1 (completed, researcher) blocks 2; 2 blocks 4; 5 stands alone.
 */
const cases: Array<{ name: string; args: string[]; code: number; message: RegExp }> = [
  {
    name: 'block: a cycle',
    args: ['block', '1', '--by', '4'],
    code: 4,
    message: /^error: #4 blocking #1 would make a cycle: 4 -> 1 -> 2 -> 4$/,
  },
  { name: 'block: a task blocking itself', args: ['block', '5', '--by', '5'], code: 4, message: /^error: task #5 cannot block itself$/ },
  { name: 'block: a missing blocker', args: ['block', '5', '--by', '2,42'], code: 3, message: /^error: task #42 not found$/ },
  { name: 'block: a missing task', args: ['block', '42', '--by', '2'], code: 3, message: /^error: task #42 not found$/ },
  { name: 'block: no --by', args: ['block', '5'], code: 2, message: /required option '--by <ids>'/ },
  { name: 'block: a bad id', args: ['block', '5', '--by', 'x'], code: 2, message: /invalid task id "x"/ },
  { name: 'unblock: an unknown blocker', args: ['unblock', '4', '--by', '2,77'], code: 3, message: /^error: task #77 not found/ },
  { name: 'unblock: an empty --by', args: ['unblock', '4', '--by', ''], code: 2, message: /--by needs at least one task id/ },
  { name: 'unblock: a missing task', args: ['unblock', '42'], code: 3, message: /^error: task #42 not found$/ },
  { name: 'claim: without --as', args: ['claim', '5'], code: 2, message: /--as <agent> is required/ },
  { name: 'claim: empty --as', args: ['claim', '5', '--as', ' '], code: 2, message: /--as cannot be empty/ },
  { name: 'claim: id and --next', args: ['claim', '5', '--next', '--as', 'a'], code: 2, message: /not both/ },
  { name: 'claim: neither id nor --next', args: ['claim', '--as', 'a'], code: 2, message: /give a task id, or --next/ },
  { name: 'claim: blocked', args: ['claim', '4', '--as', 'a'], code: 4, message: /^error: cannot claim task #4: blocked by #2$/ },
  {
    name: 'claim: already claimed',
    args: ['claim', '1', '--as', 'a'],
    code: 4,
    message: /^error: cannot claim task #1: already_claimed by researcher$/,
  },
  {
    name: 'claim: not found',
    args: ['claim', '9', '--as', 'a'],
    code: 3,
    message: /^error: cannot claim task #9: task_not_found \(no task #9 in the list\)$/,
  },
  {
    name: 'claim: a failed precondition',
    args: ['claim', '5', '--as', 'a', '--if-status', 'in_progress'],
    code: 4,
    message: /^error: precondition failed: task #5 is pending, not in_progress; nothing changed$/,
  },
  { name: 'claim --next with a precondition', args: ['claim', '--next', '--as', 'a', '--if-unowned'], code: 2, message: /not to --next/ },
  {
    name: 'release: a completed task',
    args: ['release', '1'],
    code: 4,
    message: /^error: task #1 is completed; release leaves finished work alone/,
  },
  { name: 'release: ids and --owner', args: ['release', '2', '--owner', 'a'], code: 2, message: /ids or --owner, not both/ },
  { name: 'release: nothing named', args: ['release'], code: 2, message: /give task ids, or --owner/ },
  {
    name: 'release: a failed precondition',
    args: ['release', '2', '--if-owner', 'amy'],
    code: 4,
    message: /^error: precondition failed: task #2 is owned by nobody, not amy; nothing changed$/,
  },
  {
    name: 'update: a failed precondition',
    args: ['update', '1', '--owner', 'x', '--if-unowned'],
    code: 4,
    message: /^error: precondition failed: task #1 is owned by researcher; nothing changed$/,
  },
  {
    name: 'update: a precondition with edges',
    args: ['update', '5', '--add-blocks', '4', '--if-status', 'completed'],
    code: 4,
    message: /precondition failed: task #5 is pending, not completed/,
  },
  {
    name: 'update: --if-owner and --if-unowned',
    args: ['update', '5', '--owner', 'x', '--if-owner', 'a', '--if-unowned'],
    code: 2,
    message: /cannot be used together/,
  },
  {
    name: 'update: a bad --if-status',
    args: ['update', '5', '--owner', 'x', '--if-status', 'nope'],
    code: 2,
    message: /invalid status "nope"/,
  },
  {
    name: 'update --status deleted: a failed precondition',
    args: ['update', '5', '--status', 'deleted', '--if-owner', 'x'],
    code: 4,
    message: /precondition failed/,
  },
  {
    name: 'delete: a failed precondition',
    args: ['delete', '2', '--if-status', 'completed'],
    code: 4,
    message: /^error: precondition failed: task #2 is pending, not completed; nothing changed$/,
  },
  {
    name: 'delete --dry-run: a failed precondition',
    args: ['delete', '2', '--dry-run', '--if-owner', 'x'],
    code: 4,
    message: /precondition failed/,
  },
];

describe('refusals change nothing', () => {
  for (const c of cases) {
    it(`${c.name}: exit ${c.code}, one line`, async () => {
      const { config, list } = fixtureConfig();
      const before = snapshotDir(list);
      const r = await runInProcess(config, c.args);
      expect(r.code).toBe(c.code);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr.trimEnd()).toMatch(c.message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(snapshotDir(list)).toEqual(before);
    });
  }

  it('claim --next with nothing ready', async () => {
    const { config, list } = fixtureConfig();
    await runInProcess(config, ['claim', '2', '--as', 'a']);
    await runInProcess(config, ['claim', '5', '--as', 'b']);
    const before = snapshotDir(list);
    const r = await runInProcess(config, ['claim', '--next', '--as', 'c', '--json']);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'conflict', reason: 'no_task_ready', task: null } });
    expect(snapshotDir(list)).toEqual(before);
  });
});
