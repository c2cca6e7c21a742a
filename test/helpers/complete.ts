import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, baseEnv, ROOT, type RunResult, run } from './cli.js';

/** Helpers for completion tests: `tasks __complete` and the real shells with the real scripts. */

export interface Completed {
  run: RunResult;
  values: string[];
  /** value -> description ('' when none) */
  descriptions: Record<string, string>;
  directive: number;
}

/** `tasks __complete <words...>`; the last word is the one being completed. */
export function complete(config: string, words: string[], env: Record<string, string | undefined> = {}, cwd?: string): Completed {
  const r = run(config, ['__complete', ...words], cwd === undefined ? { env } : { env, cwd });
  const lines = r.stdout.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const last = lines.pop() ?? '';
  const values: string[] = [];
  const descriptions: Record<string, string> = {};
  for (const line of lines) {
    const [value = '', description = ''] = line.split('\t');
    values.push(value);
    descriptions[value] = description;
  }
  return { run: r, values, descriptions, directive: /^:\d+$/.test(last) ? Number(last.slice(1)) : Number.NaN };
}

export const COMPLETIONS = path.join(ROOT, 'completions');

export function hasShell(shell: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;
}

/**
 * A folder for PATH holding `tasks`: the built binary, or a stub that prints `output`
 * (to test how a script follows each directive).
 */
export function binDir(stubOutput?: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-bin-'));
  const target = path.join(dir, 'tasks');
  if (stubOutput === undefined) {
    fs.writeFileSync(target, `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  } else {
    fs.writeFileSync(path.join(dir, 'output'), stubOutput);
    fs.writeFileSync(target, `#!/bin/sh\nprintf '%s\\n' "$*" >> "${dir}/calls"\ncat "${dir}/output"\n`);
  }
  fs.chmodSync(target, 0o755);
  return dir;
}

export interface ShellRun {
  lines: string[];
  stdout: string;
  stderr: string;
  code: number;
}

function shellEnv(config: string, bin: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env = baseEnv(config, extra);
  env.PATH = `${bin}${path.delimiter}${process.env.PATH ?? ''}`;
  env.COLUMNS = '200';
  delete env.BASH_COMP_DEBUG_FILE;
  return env;
}

function shellResult(r: ReturnType<typeof spawnSync>): ShellRun {
  const stdout = String(r.stdout ?? '');
  return { lines: stdout.split('\n').filter((l) => l !== ''), stdout, stderr: String(r.stderr ?? ''), code: r.status ?? -1 };
}

/** Bash: the script's completion function called as bash calls it (test/helpers/bash-complete.sh). */
export function bashComplete(
  line: string,
  config: string,
  bin: string,
  opts: { cwd?: string; env?: Record<string, string | undefined>; compType?: number } = {},
): ShellRun {
  const harness = path.join(ROOT, 'test', 'helpers', 'bash-complete.sh');
  const r = spawnSync('bash', ['--norc', '--noprofile', harness, path.join(COMPLETIONS, 'tasks.bash'), line, String(opts.compType ?? 9)], {
    env: shellEnv(config, bin, opts.env),
    cwd: opts.cwd ?? config,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return shellResult(r);
}

/** Zsh: the real completion system in a pseudo-terminal (test/helpers/zsh-complete.zsh). */
export function zshComplete(
  line: string,
  config: string,
  bin: string,
  opts: { cwd?: string; env?: Record<string, string | undefined> } = {},
): ShellRun {
  const r = spawnSync('zsh', ['-f', path.join(ROOT, 'test', 'helpers', 'zsh-complete.zsh'), path.join(COMPLETIONS, '_tasks'), line], {
    env: { ...shellEnv(config, bin, opts.env), ZSH_COMPLETE_TIMEOUT: '50' },
    cwd: opts.cwd ?? config,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return shellResult(r);
}

/** Fish: `complete -C` after sourcing the script; prints `value<TAB>description` lines. */
export function fishComplete(
  line: string,
  config: string,
  bin: string,
  opts: { cwd?: string; env?: Record<string, string | undefined> } = {},
): ShellRun {
  const r = spawnSync('fish', ['--no-config', '-c', 'source $COMPLETIONS/tasks.fish; complete -C $LINE'], {
    env: { ...shellEnv(config, bin, opts.env), COMPLETIONS, LINE: line },
    cwd: opts.cwd ?? config,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return shellResult(r);
}
