import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireOwner } from '../../src/cli/flags/parse.js';
import { Context, loginName } from '../../src/cli/runtime/context.js';
import type { OutputTarget } from '../../src/cli/runtime/fd-output.js';
import { IO } from '../../src/cli/runtime/io.js';
import { terminalColumns } from '../../src/cli/runtime/terminal.js';
import { resolveConfigDir } from '../../src/core/store/paths.js';

function target(opts: { isTTY?: boolean; columns?: number } = {}): OutputTarget & { text: string } {
  return {
    ...opts,
    text: '',
    write(text: string) {
      this.text += text;
    },
  };
}

const noInput = { isTTY: false, stream: () => process.stdin };

function io(opts: { stdout?: OutputTarget; stderr?: OutputTarget; env?: NodeJS.ProcessEnv } = {}): IO {
  return new IO({ stdout: opts.stdout ?? target(), stderr: opts.stderr ?? target(), stdin: noInput }, opts.env ?? {});
}

describe('the login name', () => {
  it("is read from the environment given, not the process's", () => {
    expect(loginName({ USER: 'amy' })).toBe('amy');
    expect(loginName({ LOGNAME: 'bo' })).toBe('bo');
    expect(loginName({ USER: 'amy', LOGNAME: 'bo' })).toBe('amy');
    const ctx = new Context(io(), { env: { USER: 'not-the-process-user' }, cwd: '/' });
    expect(requireOwner('--owner', '@me', ctx)).toBe('not-the-process-user');
    expect(requireOwner('--owner', 'alice', ctx)).toBe('alice');
  });
});

describe('the terminal width', () => {
  it("is the stream's columns, else $COLUMNS, else 80", () => {
    expect(terminalColumns(132, { COLUMNS: '90' })).toBe(132);
    expect(terminalColumns(0, { COLUMNS: '90' })).toBe(90);
    expect(terminalColumns(undefined, { COLUMNS: 'wide' })).toBe(80);
    expect(terminalColumns(undefined, {})).toBe(80);
  });

  it("is the same rule for stdout and for notes on a terminal's stderr; a piped note has a fixed width", () => {
    const tty = io({ stdout: target({ isTTY: true }), stderr: target({ isTTY: true }), env: { COLUMNS: '70' } });
    expect([tty.columns, tty.noteColumns]).toEqual([70, 70]);
    const bare = io({ stdout: target({ isTTY: true }), stderr: target({ isTTY: true }) });
    expect([bare.columns, bare.noteColumns]).toEqual([80, 80]);
    expect(io({ env: { COLUMNS: '70' } }).noteColumns).toBe(100);
  });
});

describe('human layout', () => {
  it('is decided by stdout being a terminal alone: FORCE_COLOR does not change it', () => {
    expect(io({ stdout: target({ isTTY: true }) }).humanLayout).toBe(true);
    expect(io({ env: { FORCE_COLOR: '1' } }).humanLayout).toBe(false);
  });
});

describe('the working directory', () => {
  it('is an input: a relative config folder is read from it', () => {
    const ctx = new Context(io(), { env: { HOME: '/home/x' }, cwd: '/work/p' });
    expect(resolveConfigDir({ flag: 'conf', home: '/home/x', cwd: '/work/p' })).toBe('/work/p/conf');
    expect(resolveConfigDir({ env: '../conf', home: '/home/x', cwd: '/work/p' })).toBe('/work/conf');
    expect(ctx.configDir).toBe('/home/x/.claude');
  });

  it("deleted (undefined) means no project: a relative config folder is read from the process's", () => {
    const ctx = new Context(io(), { env: { HOME: '/home/x', CLAUDE_CONFIG_DIR: '/abs/conf' }, cwd: undefined });
    expect(ctx.cwd).toBeUndefined();
    expect(ctx.configDir).toBe('/abs/conf');
    expect(resolveConfigDir({ flag: 'conf', home: '/home/x' })).toBe(path.resolve('conf'));
  });
});

describe('the IO', () => {
  it('keeps data on stdout and everything else on stderr, and the worst exit code', () => {
    const stdout = target();
    const stderr = target();
    const out = io({ stdout, stderr });
    out.out('1');
    out.note('a note', 'export_written');
    out.warn('careful\u001b[31m', 'export_warning');
    out.fail(new Error('boom'));
    out.setExit(4);
    expect(stdout.text).toBe('1\n');
    expect(stderr.text).toBe('a note\nwarning: careful[31m\nerror: unexpected: boom\n');
    expect(out.exitCode).toBe(4);
  });
});

describe('what a terminal can show', () => {
  it('a full-screen view needs a TERM that is not dumb, set, and known to terminfo where terminfo is installed', async () => {
    const { knownTerminal } = await import('../../src/cli/runtime/io.js');
    expect(knownTerminal({ TERM: 'dumb' })).toBe(false);
    expect(knownTerminal({})).toBe(false);
    expect(knownTerminal({ TERM: '' })).toBe(false);
    expect(knownTerminal({ TERM: 'xterm' })).toBe(true);
    expect(knownTerminal({ TERM: 'no-such-terminal-anywhere' })).toBe(false);
  });

  it('colour only ever on a terminal: FORCE_COLOR does not colour a pipe or a file', async () => {
    const { decideColor } = await import('../../src/render/style.js');
    expect(decideColor({ flag: undefined, env: { FORCE_COLOR: '1' }, isTTY: false })).toBe(false);
    expect(decideColor({ flag: undefined, env: { FORCE_COLOR: '1', TERM: 'dumb' }, isTTY: true })).toBe(true);
    expect(decideColor({ flag: undefined, env: { TERM: 'dumb' }, isTTY: true })).toBe(false);
    expect(decideColor({ flag: undefined, env: { TERM: 'xterm', NO_COLOR: '1', FORCE_COLOR: '1' }, isTTY: true })).toBe(false);
  });
});
