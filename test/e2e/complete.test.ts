import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, fixtureConfig, run, tempConfig, writeTask } from '../helpers/cli.js';
import { complete } from '../helpers/complete.js';

/**
 * `tasks __complete`, the hidden command behind every TAB, through the built binary: a TAB
 * runs its own small bundle (dist/complete.cjs), not the CLI's, so that is what is tested.
 */

const NO_FILES = 4;
const KEEP_ORDER = 32;

function task(id: string, subject: string, status: string, owner?: string): Record<string, unknown> {
  return { id, subject, description: '', ...(owner === undefined ? {} : { owner }), status, blocks: [], blockedBy: [] };
}

/** The agent's refactor-auth list (1 done by researcher, 2, 4, 5 pending) plus 3 and 10. */
function listWithTen(): { config: string; list: string } {
  const fixture = fixtureConfig();
  writeTask(fixture.list, task('10', 'Ship it', 'in_progress', 'amy'));
  writeTask(fixture.list, task('3', 'Review auth', 'pending', 'amy'));
  return fixture;
}

describe('__complete: commands and options', () => {
  it('offers the subcommands that --help shows, in its order, with descriptions and no file names', () => {
    const c = complete(tempConfig(), ['']);
    expect(c.run.code).toBe(0);
    expect(c.run.stderr).toBe('');
    const help = run(tempConfig(), ['--help']).stdout;
    const section = help.slice(help.indexOf('Commands:'));
    const listed = section
      .slice(0, section.indexOf('\n\n'))
      .split('\n')
      .slice(1)
      .filter((line) => /^ {2}\S/.test(line))
      .map((line) => line.trim().split(/[\s|]/)[0]);
    expect(listed.length).toBeGreaterThan(5);
    expect(c.values).toEqual(listed);
    expect(c.values.slice(0, 4)).toEqual(['list', 'get', 'create', 'update']);
    expect(c.values).toEqual(expect.arrayContaining(['completion', 'help']));
    expect(c.descriptions.update).toMatch(/TaskUpdate/);
    expect(c.directive).toBe(NO_FILES);
    expect(c.values).not.toContain('__complete');
  });

  it('filters by what is typed, and offers an alias only when no name fits', () => {
    expect(complete(tempConfig(), ['up']).values).toEqual(['update']);
    expect(complete(tempConfig(), ['l']).values).toEqual(['list', 'lists', 'log']);
    expect(complete(tempConfig(), ['rm']).values).toEqual(['rm']);
  });

  it("offers a command's own options and the global ones, with descriptions", () => {
    const c = complete(tempConfig(), ['update', '4', '--']);
    expect(c.values).toEqual(
      expect.arrayContaining([
        '--status',
        '--owner',
        '--no-owner',
        '--add-blocks',
        '--add-blocked-by',
        '--list',
        '--config-dir',
        '--json',
        '--help',
      ]),
    );
    expect(c.values).not.toContain('--version');
    expect(c.descriptions['--add-blocks']).toBe('tasks this one blocks (comma-separated, or repeat)');
    expect(c.directive).toBe(NO_FILES);
    // A single dash adds the short forms, as cobra does.
    expect(complete(tempConfig(), ['list', '-']).values).toEqual(
      expect.arrayContaining(['-s', '--status', '-o', '--owner', '-l', '--list']),
    );
  });

  it('leaves out options already given, except those that repeat', () => {
    const c = complete(tempConfig(), ['update', '4', '--owner', 'amy', '--meta', 'a=1', '--']);
    expect(c.values).not.toContain('--owner');
    expect(c.values).not.toContain('--no-owner'); // the same setting
    expect(c.values).toContain('--meta');
    expect(complete(tempConfig(), ['list', '-s', 'pending', '--s']).values).toEqual([
      '--status',
      '--search',
      '--sort',
      '--stalled',
      '--session',
    ]);
  });

  it('offers options once every argument is given, and nothing for free text', () => {
    expect(complete(tempConfig(), ['list', '']).values).toContain('--status');
    const subject = complete(tempConfig(), ['create', '']);
    expect(subject.values).toEqual([]);
    expect(subject.directive).toBe(NO_FILES);
    expect(complete(tempConfig(), ['create', 'x', '--description', '']).values).toEqual([]);
  });

  it('completes help <command> and completion <shell>', () => {
    expect(complete(tempConfig(), ['help', 'cr']).values).toEqual(['create']);
    const shells = complete(tempConfig(), ['completion', '']);
    expect(shells.values).toEqual(['bash', 'zsh', 'fish']);
    expect(shells.directive).toBe(NO_FILES | KEEP_ORDER);
  });
});

describe('__complete: values from the list', () => {
  it('offers task ids in id order with "subject (status)", kept in that order', () => {
    const { config } = listWithTen();
    const c = complete(config, ['update', '']);
    expect(c.values).toEqual(['1', '2', '3', '4', '5', '10']);
    expect(c.descriptions['1']).toBe('Analyse code (completed)');
    expect(c.descriptions['10']).toBe('Ship it (in_progress)');
    expect(c.directive).toBe(NO_FILES | KEEP_ORDER);
    expect(complete(config, ['get', '1']).values).toEqual(['1', '10']);
    expect(complete(config, ['get', '#1']).values).toEqual(['#1', '#10']);
  });

  it('offers ids for id-taking options, without those already on the line', () => {
    const { config } = listWithTen();
    expect(complete(config, ['update', '4', '--add-blocks', '']).values).toEqual(['1', '2', '3', '5', '10']);
    // An id option takes one id a time: repeated, it offers the ids not given yet.
    expect(complete(config, ['create', 'x', '--blocked-by', '1', '--blocked-by', '']).values).toEqual(['2', '3', '4', '5', '10']);
    expect(complete(config, ['create', 'x', '--blocked-by', '1,']).values).toEqual(['1,2', '1,3', '1,4', '1,5', '1,10']);
    expect(complete(config, ['delete', '2', '3', '']).values).toEqual(['1', '4', '5', '10']);
    expect(complete(config, ['delete', '2,3,']).values).toEqual(['2,3,1', '2,3,4', '2,3,5', '2,3,10']);
  });

  it('offers statuses in their order, and the rest of a comma-separated list', () => {
    const config = tempConfig();
    const c = complete(config, ['list', '--status', '']);
    expect(c.values).toEqual(['pending', 'in_progress', 'completed']);
    expect(c.descriptions.completed).toBe('done');
    expect(c.directive).toBe(NO_FILES | KEEP_ORDER);
    expect(complete(config, ['list', '--status=in']).values).toEqual(['--status=in_progress']);
    expect(complete(config, ['list', '-s', 'pending,']).values).toEqual(['pending,in_progress', 'pending,completed']);
    expect(complete(config, ['update', '1', '--status', 'c']).values).toEqual(['completed']);
  });

  it('offers the lists with their sizes', () => {
    const { config, list } = fixtureConfig();
    writeTask(path.join(path.dirname(list), 'other'), task('1', 'x', 'pending'));
    const c = complete(config, ['--list', '']);
    expect(c.values).toEqual(['other', 'refactor-auth']);
    expect(c.descriptions['refactor-auth']).toBe('4 tasks');
    expect(c.descriptions.other).toBe('1 task');
    expect(c.directive).toBe(NO_FILES);
    expect(complete(config, ['-l', 'ref']).values).toEqual(['refactor-auth']);
    expect(complete(config, ['list', '--list=o']).values).toEqual(['--list=other']);
  });

  it('offers the owners found in the list for --owner', () => {
    const { config } = listWithTen();
    const c = complete(config, ['list', '--owner', '']);
    expect(c.values).toEqual(['amy', 'researcher']);
    expect(c.descriptions.amy).toBe('2 tasks, 2 open');
    expect(c.descriptions.researcher).toBe('1 task, 0 open');
    expect(complete(config, ['update', '4', '--owner', 'r']).values).toEqual(['researcher']);
  });

  it('takes --list and --config-dir typed earlier on the line', () => {
    const { config, list } = fixtureConfig();
    writeTask(path.join(path.dirname(list), 'other'), task('7', 'Other work', 'pending', 'zed'));
    expect(complete(config, ['--list', 'other', 'get', '']).values).toEqual(['7']);
    expect(complete(config, ['get', '-l', 'other', '']).values).toEqual(['7']);
    expect(complete(config, ['get', '-lother', '']).values).toEqual(['7']);
    expect(complete(config, ['--list=other', 'list', '--owner', '']).values).toEqual(['zed']);
    expect(complete(config, ['--list', 'refactor-auth', 'get', '']).values).toEqual(['1', '2', '4', '5']);

    const elsewhere = tempConfig();
    writeTask(path.join(elsewhere, 'tasks', 'far'), task('42', 'Far away', 'pending'));
    expect(complete(config, ['--config-dir', elsewhere, 'get', '']).values).toEqual(['42']);
    expect(complete(config, ['--config-dir', elsewhere, '--list', '']).values).toEqual(['far']);
    // `~` as typed: the shell leaves it to us.
    const home = path.join(config, 'home');
    fs.mkdirSync(home, { recursive: true });
    fs.symlinkSync(elsewhere, path.join(home, 'claude'));
    expect(complete(config, ['--config-dir', '~/claude', 'get', '']).values).toEqual(['42']);
    // Relative to where the shell is, as the command would take it.
    expect(complete(config, ['--config-dir', path.basename(elsewhere), '--list', ''], {}, path.dirname(elsewhere)).values).toEqual(['far']);
  });

  it('follows $CLAUDE_CONFIG_DIR and $CLAUDE_CODE_TASK_LIST_ID', () => {
    const { config, list } = fixtureConfig();
    writeTask(path.join(path.dirname(list), 'other'), task('7', 'Other work', 'pending'));
    expect(complete(config, ['get', ''], { CLAUDE_CODE_TASK_LIST_ID: 'other' }).values).toEqual(['7']);
    // With several lists and no choice, the most recently changed one, as a read takes it.
    const now = Date.now() / 1000;
    fs.utimesSync(path.join(path.dirname(list), 'other'), now - 3600, now - 3600);
    fs.utimesSync(path.join(path.dirname(list), 'other', '7.json'), now - 3600, now - 3600);
    fs.utimesSync(list, now, now);
    expect(complete(config, ['get', '']).values).toEqual(['1', '2', '4', '5']);
  });

  it("follows the project's binding (tasks use), as the commands there do", () => {
    const { config, list } = fixtureConfig();
    writeTask(path.join(path.dirname(list), 'bound'), task('7', 'Bound work', 'pending', 'amy'));
    const now = Date.now() / 1000;
    fs.utimesSync(path.join(path.dirname(list), 'bound', '7.json'), now - 3600, now - 3600);
    const proj = path.join(config, 'home', 'proj');
    fs.mkdirSync(proj, { recursive: true });
    expect(complete(config, ['get', ''], {}, proj).values).toEqual(['1', '2', '4', '5']);
    expect(run(config, ['use', 'bound'], { cwd: proj }).code).toBe(0);
    expect(complete(config, ['update', ''], {}, proj).values).toEqual(['7']);
    expect(complete(config, ['update', '7', '--owner', ''], {}, proj).values).toEqual(['amy']);
  });

  it('offers folder names for --config-dir (directive 16)', () => {
    const c = complete(tempConfig(), ['--config-dir', '']);
    expect(c.values).toEqual([]);
    expect(c.directive).toBe(16);
  });
});

describe('__complete: commands that declare nothing for completion', () => {
  it('claim, release, block and unblock take ids and owners by their names', () => {
    const { config } = listWithTen();
    expect(complete(config, ['claim', '']).values).toEqual(['1', '2', '3', '4', '5', '10']);
    expect(complete(config, ['claim', '2', '--as', '']).values).toEqual(['amy', 'researcher']);
    expect(complete(config, ['release', '--owner', 'a']).values).toEqual(['amy']);
    expect(complete(config, ['block', '4', '--by', '']).values).toEqual(['1', '2', '3', '5', '10']);
    expect(complete(config, ['unblock', '4', '--by', '1', '--by', '']).values).toEqual(['2', '3', '5', '10']);
    expect(complete(config, ['update', '4', '--if-status', '']).values).toEqual(['pending', 'in_progress', 'completed']);
  });

  it('carry: --from offers the lists, and the ids after it are those of the --from list; restore, doctor, lists --all, import --renumber', () => {
    const { config } = listWithTen();
    const old = path.join(config, 'tasks', 'old-work');
    writeTask(old, task('7', 'Left over', 'pending'));
    writeTask(old, task('8', 'Done there', 'completed'));
    expect(complete(config, ['carry', '--from', '']).values).toEqual(['old-work', 'refactor-auth']);
    const ids = complete(config, ['-l', 'refactor-auth', 'carry', '--from', 'old-work', '']);
    expect(ids.values).toEqual(['7', '8']);
    expect(ids.descriptions['7']).toBe('Left over (pending)');
    expect(complete(config, ['carry', '--']).values).toEqual(expect.arrayContaining(['--from', '--move', '--force', '--dry-run']));
    expect(complete(config, ['rest']).values).toEqual(['restore']);
    expect(complete(config, ['doc']).values).toEqual(['doctor']);
    expect(complete(config, ['restore', '--']).values).toEqual(expect.arrayContaining(['--from', '--dry-run']));
    expect(complete(config, ['lists', '--a']).values).toEqual(['--all']);
    expect(complete(config, ['import', 'x', '--ren']).values).toEqual(['--renumber']);
  });

  it('import takes a file; export offers its formats and a file for --output', () => {
    const { config } = listWithTen();
    expect(complete(config, ['import', ''])).toMatchObject({ values: [], directive: 0 });
    expect(complete(config, ['export', '--output', ''])).toMatchObject({ values: [], directive: 0 });
    const formats = complete(config, ['export', '--format', '']);
    expect(formats.values).toEqual(expect.arrayContaining(['json', 'markdown']));
    expect(formats.directive).toBe(NO_FILES | KEEP_ORDER);
  });
});

describe('__complete: never an error in the terminal', () => {
  it('skips unreadable task files and keeps the others', () => {
    const { config, list } = fixtureConfig();
    fs.writeFileSync(path.join(list, '6.json'), '{"id": "6", "subj');
    fs.writeFileSync(path.join(list, '7.json'), '');
    writeTask(list, { id: '8', subject: 'no status', description: '', blocks: [], blockedBy: [] });
    fs.mkdirSync(path.join(list, '9.json'));
    fs.symlinkSync(path.join(list, '1.json'), path.join(list, '11.json'));
    const c = complete(config, ['get', '']);
    expect(c.run.code).toBe(0);
    expect(c.run.stderr).toBe('');
    expect(c.values).toEqual(['1', '2', '4', '5']);
  });

  it('offers nothing, quietly, without a config folder, a list, or sense', () => {
    const missing = path.join(os.tmpdir(), 'tasks-no-such-config', String(process.pid));
    const cases: string[][] = [
      ['get', ''],
      ['--list', ''],
      ['list', '--owner', ''],
      ['--list', 'nope', 'get', ''],
      ['--config-dir', '/dev/null/x', 'get', ''],
      ['--bogus', 'get', ''],
      ['nosuchcommand', ''],
      ['list', '--nosuchflag=', ''],
      ['get', '1', '2', '3', ''],
      ['--', '--', '-'],
      [],
    ];
    for (const words of cases) {
      const c = complete(missing, words);
      expect(c.run.code, words.join(' ')).toBe(0);
      expect(c.run.stderr, words.join(' ')).toBe('');
      expect(Number.isNaN(c.directive), words.join(' ')).toBe(false);
    }
    expect(complete(missing, ['get', '']).values).toEqual([]);
    expect(fs.existsSync(missing)).toBe(false);
  });

  it('with TASKS_DEBUG=1, says on stderr why it offers nothing: a missing config folder, a list that does not exist', () => {
    const missing = path.join(os.tmpdir(), 'tasks-no-such-config', String(process.pid));
    const noFolder = complete(missing, ['get', ''], { TASKS_DEBUG: '1' });
    expect(noFolder.run.code).toBe(0);
    expect(noFolder.values).toEqual([]);
    expect(noFolder.run.stderr).toMatch(/^tasks __complete: .*config folder .*tasks-no-such-config.* does not exist/m);
    const { config } = fixtureConfig();
    const noList = complete(config, ['--list', 'nope', 'get', ''], { TASKS_DEBUG: '1' });
    expect(noList.run.code).toBe(0);
    expect(noList.run.stderr).toMatch(/^tasks __complete: .*nope does not exist/m);
    // Without it, nothing on stderr (the shells' scripts discard it anyway).
    expect(complete(config, ['--list', 'nope', 'get', '']).run.stderr).toBe('');
  });

  it('changes nothing on disk', () => {
    const { config, list } = fixtureConfig();
    const before = fs.readdirSync(list).sort();
    complete(config, ['update', '']);
    complete(config, ['list', '--owner', '']);
    expect(fs.readdirSync(list).sort()).toEqual(before);
  });

  it('loads one bundled file: none of commander, chalk, zod, proper-lockfile or cli-table3', () => {
    const { config } = listWithTen();
    const traced = (args: string[]): string => {
      const trace = path.join(config, `imports-${args[0]}.txt`);
      const hook = path.join(path.dirname(BIN), '..', 'test', 'helpers', 'trace-imports.mjs');
      const r = run(config, args, { env: { NODE_OPTIONS: `--import=${hook}`, TRACE_IMPORTS_FILE: trace } });
      expect(r.code).toBe(0);
      return fs.readFileSync(trace, 'utf8');
    };
    const heavy = /node_modules\/(commander|chalk|zod|proper-lockfile|cli-table3)\//;
    // The CLI runs from one bundle (dist/tasks-read.cjs for list, else dist/tasks.cjs, compiled
    // by bin/tasks.js with its code cache): no module of ours or of a dependency is loaded on its own.
    const full = traced(['list']);
    expect(full).not.toMatch(heavy);
    expect(full).not.toContain('/dist/cli/');
    const loaded = traced(['__complete', 'update', '4', '--owner', '']);
    // One CommonJS file, and no ES module of ours (the ES module loader stays unused).
    expect(loaded).toContain('/dist/complete.cjs');
    expect(loaded).not.toMatch(heavy);
    expect(loaded).not.toContain('/dist/cli/');
    expect(loaded).not.toContain('/dist/tasks.cjs');
    expect(loaded).not.toContain('/dist/tasks-read.cjs');
  });
});

describe('__complete: watch --until', () => {
  it('offers the fixed conditions and task:<id>: for each task, then the statuses after task:<id>:', () => {
    const { config } = listWithTen();
    const c = complete(config, ['watch', '--until', '']);
    expect(c.run.code).toBe(0);
    expect(c.values).toEqual(expect.arrayContaining(['all-completed', 'ready', 'empty', 'task:1:', 'task:10:']));
    const statuses = complete(config, ['watch', '--until', 'task:4:']);
    expect(statuses.values).toEqual(['task:4:pending', 'task:4:in_progress', 'task:4:completed']);
  });
});

describe('__complete: short status words', () => {
  it('offers done, todo, active when no stored status fits what is typed', () => {
    const config = tempConfig();
    expect(complete(config, ['list', '--status', 'd']).values).toEqual(['done']);
    expect(complete(config, ['update', '1', '--status', 'a']).values).toEqual(['active']);
    expect(complete(config, ['list', '--status', '']).values).toEqual(['pending', 'in_progress', 'completed']);
  });
});
