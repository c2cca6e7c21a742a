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

/** The command line of the run under way in this process, if any. */
let running: string | undefined;

/**
 * `tasks <args>` run in this process (src/cli/run.ts), with the same environment, working
 * directory and stdin that `run` in cli.ts gives the binary, and the same result:
 * {code, stdout, stderr}. For tests that check only output: no process to start, so
 * they are fast. What needs a process (signals, terminals, pipes, locks held across
 * processes, the binary's own exit status) keeps spawning the binary. Runs must be
 * awaited one at a time: a run's journal records the process's writes. A run started
 * while another is under way throws (tests in a `describe.concurrent` block, a missing
 * await): one run could otherwise record the other's writes. Across test files nothing
 * is shared: vitest runs each file in a process of its own (vitest.config.ts).
 */
export async function runInProcess(configDir: string, args: string[], opts: InProcessOptions = {}): Promise<RunResult> {
  if (running !== undefined) throw new Error(`in-process runs must not overlap: \`tasks ${running}\` is still running`);
  running = args.join(' ');
  try {
    return await runOnce(configDir, args, opts);
  } finally {
    running = undefined;
  }
}

async function runOnce(configDir: string, args: string[], opts: InProcessOptions): Promise<RunResult> {
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
