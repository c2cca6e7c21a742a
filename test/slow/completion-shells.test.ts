import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fixtureConfig, tempConfig, writeTask } from '../helpers/cli.js';
import { bashComplete, binDir, fishComplete, hasShell, zshComplete } from '../helpers/complete.js';

/**
 * The scripts in completions/, run by the real shells against the built binary: what a
 * person sees after TAB. Without a shell the tests of that shell fail in CI (.ci/run
 * installs them) and are skipped elsewhere.
 */

function needs(shell: string): boolean {
  if (hasShell(shell)) return true;
  if (process.env.CI) throw new Error(`${shell} is not installed (.ci/run installs it)`);
  return false;
}

let config: string;
let bin: string;
/** A folder for file-name completion: a file, a folder. */
let work: string;

beforeAll(() => {
  const fixture = fixtureConfig();
  config = fixture.config;
  writeTask(fixture.list, {
    id: '10',
    subject: 'Ship it',
    description: '',
    owner: 'amy',
    status: 'in_progress',
    blocks: [],
    blockedBy: [],
  });
  writeTask(path.join(path.dirname(fixture.list), 'other'), {
    id: '7',
    subject: 'Other work',
    description: '',
    status: 'pending',
    blocks: [],
    blockedBy: [],
  });
  // `refactor-auth` is the most recent: the list a read picks.
  const past = Date.now() / 1000 - 3600;
  fs.utimesSync(path.join(path.dirname(fixture.list), 'other', '7.json'), past, past);
  fs.utimesSync(path.join(path.dirname(fixture.list), 'other'), past, past);
  bin = binDir();
  work = tempConfig();
  fs.writeFileSync(path.join(work, 'notes.txt'), '');
  fs.mkdirSync(path.join(work, 'sub'));
});

/** What a stub `tasks` prints, to see how each script follows each directive. */
function stub(output: string): string {
  return binDir(output);
}

describe.runIf(needs('bash'))('bash', { timeout: 120_000 }, () => {
  it('completes subcommands', () => {
    expect(bashComplete('tasks up', config, bin).lines[0]).toBe('update');
    const all = bashComplete('tasks ', config, bin).lines;
    expect(all.some((l) => /^list +\(list the tasks/.test(l))).toBe(true);
    expect(all.some((l) => l.startsWith('completion '))).toBe(true);
  });

  it('completes options with descriptions', () => {
    const r = bashComplete('tasks update 4 --add-b', config, bin);
    expect(r.lines.slice(0, 2)).toEqual([
      '--add-blocks      (tasks this one blocks (comma-separated, or repeat))',
      '--add-blocked-by  (tasks that block this one (comma-separated, or repeat))',
    ]);
    expect(r.lines).toContain('compopt: +o default');
  });

  it('completes ids with "subject (status)", in id order, unsorted', () => {
    const r = bashComplete('tasks update ', config, bin);
    expect(r.lines.slice(0, 5)).toEqual([
      '1   (Analyse code (completed))',
      '2   (Refactor auth (pending))',
      '4   (Run tests (pending))',
      '5   (Write changelog (pending))',
      '10  (Ship it (in_progress))',
    ]);
    expect(r.lines[5]).toBe('compopt: +o default -o nosort');
    // One candidate left: the value alone, for bash to insert.
    expect(bashComplete('tasks get 1', config, bin).lines.slice(0, 2)).toEqual([
      '1   (Analyse code (completed))',
      '10  (Ship it (in_progress))',
    ]);
    expect(bashComplete('tasks get 10', config, bin).lines[0]).toBe('10');
    // menu-complete inserts candidates one by one: values only.
    expect(bashComplete('tasks get 1', config, bin, { compType: 37 }).lines.slice(0, 2)).toEqual(['1', '10']);
  });

  it('completes statuses and lists, with --list=<TAB> split at "=" as bash splits it', () => {
    expect(bashComplete('tasks list --status ', config, bin).lines.slice(0, 3)).toEqual([
      'pending      (not started)',
      'in_progress  (being worked on)',
      'completed    (done)',
    ]);
    expect(bashComplete('tasks list -s pending,in', config, bin).lines[0]).toBe('pending,in_progress');
    expect(bashComplete('tasks --list ', config, bin).lines.slice(0, 2)).toEqual(['other          (1 task)', 'refactor-auth  (5 tasks)']);
    // Bash replaces only what follows '=': the reply must not repeat '--list='.
    expect(bashComplete('tasks --list=ref', config, bin).lines[0]).toBe('refactor-auth');
    expect(bashComplete('tasks --list=other get ', config, bin).lines[0]).toBe('7');
  });

  it('falls back to file names, folders only, or nothing, as the directive says', () => {
    const files = bashComplete('tasks x ', config, stub(':0'), { cwd: work });
    expect(files.lines).toEqual(['compopt: ']); // nothing set: `complete -o default` gives file names
    const dirs = bashComplete('tasks x ', config, stub(':16'), { cwd: work });
    expect(dirs.lines).toEqual(['sub', 'compopt: -o filenames']);
    const none = bashComplete('tasks x ', config, stub(':4'), { cwd: work });
    expect(none.lines).toEqual(['compopt: +o default']);
    const error = bashComplete('tasks x ', config, stub('a\tb\n:1'), { cwd: work });
    expect(error.lines).toEqual(['compopt: +o default']);
    const nospace = bashComplete('tasks x ', config, stub('a\n:2'));
    expect(nospace.lines).toEqual(['a', 'compopt: -o nospace']);
    const ext = bashComplete('tasks x ', config, stub('txt\n:8'), { cwd: work });
    expect(ext.lines).toEqual(['notes.txt', 'sub', 'compopt: -o filenames']);
  });

  it('passes the words, unquoted, and never runs them', () => {
    const dir = stub(':4');
    bashComplete('tasks --list "my list" get $(touch pwned) ', config, dir, { cwd: work });
    expect(fs.readFileSync(path.join(dir, 'calls'), 'utf8')).toBe('__complete --list my list get $(touch pwned) \n');
    expect(fs.existsSync(path.join(work, 'pwned'))).toBe(false);
  });

  it('offers nothing and prints nothing when the program fails', () => {
    const r = bashComplete('tasks get ', config, stub('garbage without a directive'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});

// Each line starts an interactive zsh with compinit: seconds each on a busy machine.
describe.runIf(needs('zsh'))('zsh', { timeout: 300_000 }, () => {
  it('completes subcommands with descriptions', () => {
    const r = zshComplete('tasks up', config, bin);
    expect(r.code).toBe(0);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toMatch(/^update -- update +-- change a task/);
  });

  it('completes ids with "subject (status)", unsorted', () => {
    const r = zshComplete('tasks update ', config, bin);
    expect(r.lines[0]).toBe('group-unsorted');
    expect(r.lines.slice(1).map((l) => l.replace(/ +/g, ' '))).toEqual([
      '1 -- 1 -- Analyse code (completed)',
      '2 -- 2 -- Refactor auth (pending)',
      '4 -- 4 -- Run tests (pending)',
      '5 -- 5 -- Write changelog (pending)',
      '10 -- 10 -- Ship it (in_progress)',
    ]);
  });

  it('completes options, statuses and lists', () => {
    expect(zshComplete('tasks list --ow', config, bin).lines.map((l) => l.split(' ')[0])).toEqual(['--owner']);
    const statuses = zshComplete('tasks list --status ', config, bin).lines;
    expect(statuses.map((l) => l.split(' ')[0])).toEqual(['group-unsorted', 'pending', 'in_progress', 'completed']);
    expect(zshComplete('tasks --list ', config, bin).lines.map((l) => l.split(' ')[0])).toEqual(['other', 'refactor-auth']);
    expect(zshComplete('tasks --list=re', config, bin).lines.map((l) => l.split(' ')[0])).toEqual(['--list=refactor-auth']);
    expect(zshComplete('tasks -l other get ', config, bin).lines.map((l) => l.split(' ')[0])).toEqual(['group-unsorted', '7']);
  });

  it('falls back to file names unless told not to', () => {
    expect(zshComplete('tasks x ', config, stub(':0'), { cwd: work }).lines.sort()).toEqual(['notes.txt', 'sub']);
    // _files may add a folder more than once; zsh shows it once.
    expect([...new Set(zshComplete('tasks x ', config, stub(':16'), { cwd: work }).lines)]).toEqual(['sub']);
    expect(zshComplete('tasks x ', config, stub(':4'), { cwd: work }).lines).toEqual([]);
    expect(zshComplete('tasks x ', config, stub('a\n:1'), { cwd: work }).lines).toEqual([]);
  });
});

describe.runIf(needs('fish'))('fish', { timeout: 120_000 }, () => {
  it('completes subcommands with descriptions', () => {
    const r = fishComplete('tasks up', config, bin);
    expect(r.code).toBe(0);
    expect(r.lines).toEqual(["update\tchange a task, merging as the agents' TaskUpdate does"]);
  });

  it('completes ids with "subject (status)" in id order', () => {
    expect(fishComplete('tasks update ', config, bin).lines).toEqual([
      '1\tAnalyse code (completed)',
      '2\tRefactor auth (pending)',
      '4\tRun tests (pending)',
      '5\tWrite changelog (pending)',
      '10\tShip it (in_progress)',
    ]);
  });

  it('completes options, statuses in their order, and lists', () => {
    expect(fishComplete('tasks update 4 --add-b', config, bin).lines).toEqual([
      '--add-blocked-by\ttasks that block this one (comma-separated, or repeat)',
      '--add-blocks\ttasks this one blocks (comma-separated, or repeat)',
    ]);
    expect(fishComplete('tasks list --status ', config, bin).lines).toEqual([
      'pending\tnot started',
      'in_progress\tbeing worked on',
      'completed\tdone',
    ]);
    expect(fishComplete('tasks --list ', config, bin).lines).toEqual(['other\t1 task', 'refactor-auth\t5 tasks']);
    expect(fishComplete('tasks --list=other get ', config, bin).lines).toEqual(['7\tOther work (pending)']);
    expect(fishComplete('tasks list --owner ', config, bin).lines).toEqual(['amy\t1 task, 1 open', 'researcher\t1 task, 0 open']);
  });

  it('falls back to file names unless told not to', () => {
    expect(fishComplete('tasks x ', config, stub(':0'), { cwd: work }).lines.sort()).toEqual(['notes.txt', 'sub/']);
    expect(fishComplete('tasks x ', config, stub(':16'), { cwd: work }).lines.map((l) => l.split('\t')[0])).toEqual(['sub/']);
    expect(fishComplete('tasks x ', config, stub(':4'), { cwd: work }).lines).toEqual([]);
    expect(fishComplete('tasks x ', config, stub('a\n:1'), { cwd: work }).lines).toEqual([]);
  });
});
