import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, baseEnv, fixtureConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { runInTmux } from '../helpers/tmux.js';

const ESC = '\u001b[';

describe('output contract', () => {
  it('piped list: one task per line, tab-separated, no colour; summary on stderr', () => {
    const { config } = fixtureConfig();
    const r = runInProcessSync(config, ['list']);
    expect(r.stdout).toBe(
      [
        '1\tcompleted\tresearcher\t-\tAnalyse code',
        '2\tpending\t-\t-\tRefactor auth',
        '4\tpending\t-\t2\tRun tests',
        '5\tpending\t-\t-\tWrite changelog',
        '',
      ].join('\n'),
    );
    expect(r.stderr).toBe('4 tasks: 1 done, 0 in progress, 3 pending (1 blocked)\n');
  });

  it('FORCE_COLOR never colours a pipe or a file: not the lines, not a detail, not an import, not stderr', () => {
    const { config } = fixtureConfig();
    expect(runInProcessSync(config, ['list'], { env: { FORCE_COLOR: '1' } }).stdout).not.toContain(ESC);
    expect(runInProcessSync(config, ['list'], { env: { FORCE_COLOR: '1' } }).stderr).not.toContain(ESC);
    expect(runInProcessSync(config, ['get', '4'], { env: { FORCE_COLOR: '1' } }).stdout).not.toContain(ESC);
    expect(runInProcessSync(config, ['get', '4'], { env: { FORCE_COLOR: '3' } }).stdout).not.toContain(ESC);
    const imported = runInProcessSync(config, ['-l', 'imp', 'import', '-'], {
      env: { FORCE_COLOR: '1' },
      input: '[{"content":"a","status":"pending"}]',
    });
    expect(imported.code).toBe(0);
    expect(imported.stdout + imported.stderr).not.toContain(ESC);
  });

  it('filters by status, owner, unowned; hides _internal unless --all', () => {
    const { config, list } = fixtureConfig();
    writeTask(list, {
      id: '6',
      subject: 'hidden',
      description: '',
      status: 'pending',
      blocks: [],
      blockedBy: [],
      metadata: { _internal: true },
    });
    const ids = (args: string[]) =>
      JSON.parse(runInProcessSync(config, ['list', '--json', ...args]).stdout).map((t: { id: string }) => t.id);
    expect(ids([])).toEqual(['1', '2', '4', '5']);
    expect(ids(['--all'])).toEqual(['1', '2', '4', '5', '6']);
    expect(ids(['--status', 'completed'])).toEqual(['1']);
    expect(ids(['-s', 'done,pending'])).toEqual(['1', '2', '4', '5']);
    expect(ids(['--owner', 'researcher'])).toEqual(['1']);
    expect(ids(['--unowned'])).toEqual(['2', '4', '5']);
  });

  it('strips control characters that agents wrote before they reach the terminal', () => {
    const { config, list } = fixtureConfig();
    writeTask(list, {
      id: '6',
      subject: 'evil\u001b[2J\u001b]0;pwned\u0007 title',
      description: 'x\u001b[31m',
      status: 'pending',
      blocks: [],
      blockedBy: [],
      owner: 'a\rb',
    });
    for (const args of [['list'], ['get', '6']]) {
      const r = runInProcessSync(config, args, { env: { FORCE_COLOR: '0' } });
      expect(r.stdout).not.toMatch(/\u001b|\u0007|\r/);
    }
    expect(JSON.parse(runInProcessSync(config, ['get', '6', '--json']).stdout).subject).toContain('\u001b[2J'); // data stays data
  });

  it('a closed pipe ends quietly with status 0', () => {
    const { config, list } = fixtureConfig();
    for (let i = 6; i < 3000; i++)
      writeTask(list, {
        id: String(i),
        subject: `task ${i} ${'x'.repeat(60)}`,
        description: '',
        status: 'pending',
        blocks: [],
        blockedBy: [],
      });
    // The binary: a pipe whose reader goes away.
    const r = spawnSync('bash', ['-c', `set -o pipefail; node ${JSON.stringify(BIN)} list --json | head -1`], {
      env: baseEnv(config),
      encoding: 'utf8',
    });
    expect(r.stdout).toBe('[\n');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('into a pipe its reader has already closed, every kind of output ends quietly with status 0', () => {
    const { config } = fixtureConfig();
    // `true` exits without reading, long before node has started: every write meets EPIPE.
    for (const args of [['help', 'get'], ['--help'], ['--version'], ['list'], ['list', '--json'], ['get', '1'], ['lists']]) {
      // The binary: a pipe whose reader goes away.
      const r = spawnSync('bash', ['-c', `set -o pipefail; node ${JSON.stringify(BIN)} ${args.join(' ')} | true`], {
        env: baseEnv(config),
        encoding: 'utf8',
      });
      expect({ args, stderr: r.stderr, status: r.status }).toEqual({ args, stderr: '', status: 0 });
    }
  });

  it("each command's help shows the global options it inherits", () => {
    const { config } = fixtureConfig();
    for (const command of ['get', 'list', 'update', 'watch']) {
      const help = runInProcessSync(config, [command, '--help']).stdout;
      expect(help).toMatch(/^Global Options:\n(.*\n)*\s+-l, --list <id>(.*\n)*\s+--config-dir <dir>(.*\n)*\s+--json /m);
    }
  });

  it('--version and --help succeed', () => {
    const { config } = fixtureConfig();
    expect(runInProcessSync(config, ['--version'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/) });
    const help = runInProcessSync(config, ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:');
    expect(runInProcessSync(config, ['create', '--help']).stdout).toContain('--blocked-by');
  });

  it('the table fits the terminal width', async () => {
    const { config, list } = fixtureConfig();
    writeTask(list, {
      id: '6',
      subject: 'a very long subject '.repeat(10),
      description: '',
      status: 'in_progress',
      activeForm: 'Doing it',
      owner: 'agent-with-a-long-name',
      blocks: [],
      blockedBy: [],
    });
    // The binary in a terminal (tmux): the table as a person sees it.
    const visible = (await runInTmux(config, ['list'], { width: 90, height: 20 })).split('\n');
    for (const line of visible) expect([...line].length).toBeLessThanOrEqual(90);
    expect(visible.join('\n')).toContain('…');
    expect(path.basename(list)).toBe('refactor-auth');
  });
});
