import fs from 'node:fs';
import os from 'node:os';
import { Readable } from 'node:stream';
import { run } from '../../src/cli/run.js';
import type { OutputTarget } from '../../src/cli/runtime/fd-output.js';
import { IO } from '../../src/cli/runtime/io.js';
import { baseEnv, type RunResult } from './cli.js';

export interface InProcessOptions {
  env?: Record<string, string | undefined>;
  /** The working directory of the run (default: the config folder, as `run` in cli.ts). */
  cwd?: string;
  /** What stdin holds (default: nothing, as a spawned run's closed pipe). */
  input?: string;
}

/** A stream that keeps what is written to it; never a terminal. */
function capture(): OutputTarget & { text: () => string } {
  const chunks: string[] = [];
  return {
    isTTY: false,
    write: (text: string) => {
      chunks.push(text);
    },
    text: () => chunks.join(''),
  };
}

/**
 * `tasks <args>` run in this process (src/cli/run.ts), with the same environment, working
 * directory and stdin that `run` in cli.ts gives the binary, and the same result:
 * {code, stdout, stderr}. For tests that check only output: no process to start, so
 * they are fast. What needs a process (signals, terminals, pipes, locks held across
 * processes, the binary's own exit status) keeps spawning the binary. Runs may overlap:
 * each run records and hears only its own writes and lock waits (its run scope,
 * core/scope).
 */
export async function runInProcess(configDir: string, args: string[], opts: InProcessOptions = {}): Promise<RunResult> {
  const stdout = capture();
  const stderr = capture();
  const input = opts.input ?? '';
  const stdin = { isTTY: false, stream: () => Readable.from([input]) };
  const env = baseEnv(configDir, opts.env);
  const io = new IO({ stdout, stderr, stdin }, env);
  const cwd = opts.cwd ?? (fs.existsSync(configDir) ? configDir : os.tmpdir());
  const code = await run(['node', 'tasks', ...args], io, env, { cwd });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}
