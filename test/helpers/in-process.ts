import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { run } from '../../src/cli/run.js';
import type { OutputTarget } from '../../src/cli/runtime/fd-output.js';
import { IO } from '../../src/cli/runtime/io.js';
import { baseEnv, ROOT, type RunResult } from './cli.js';

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
  const cwd = workingDirectory(configDir, opts.cwd);
  const code = await run(['node', 'tasks', ...args], io, env, { cwd });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/**
 * The working directory as a process started there sees it: by its real path (a folder
 * reached through a symlink is where the link points), as `run` in cli.ts starts the binary.
 */
function workingDirectory(configDir: string, cwd: string | undefined): string {
  const dir = cwd ?? (fs.existsSync(configDir) ? configDir : os.tmpdir());
  try {
    return fs.realpathSync(dir);
  } catch {
    return dir;
  }
}

/** The thread that runs runInProcessSync's runs: one a test process (the files vitest runs in it share it), started on first use. */
let runner: { worker: Worker; port: MessagePort; done: Int32Array } | undefined;
/** Runs asked of it so far: each reply names its run. */
let runs = 0;

/**
 * `tasks <args>` run in process, as `runInProcess` does, but waited for as `run` in cli.ts
 * waits for the binary (spawnSync): the test's thread stops until the run ends. So a test
 * written against the binary runs here with its body unchanged, without starting a
 * process (about 10 ms a run against some 365 ms). The run happens in a worker thread
 * that loads the build (dist/, which npm test makes first), since this thread must block
 * while it runs; runs are one at a time by construction. A run still going after
 * `timeoutMs` (default 60 s) is stopped, and the result is code -1, as a killed binary's.
 */
export function runInProcessSync(configDir: string, args: string[], opts: InProcessOptions & { timeoutMs?: number } = {}): RunResult {
  runner ??= startRunner();
  const { worker, port, done } = runner;
  const env = { ...baseEnv(configDir, opts.env) };
  const id = ++runs;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  worker.postMessage({ id, args, env, cwd: workingDirectory(configDir, opts.cwd), input: opts.input ?? '' });
  // The worker writes the id of each run it has answered into the shared word, after
  // posting the answer: wait until it names this run (any other value is an earlier run's).
  for (let seen = Atomics.load(done, 0); seen !== id; seen = Atomics.load(done, 0)) {
    const left = deadline - Date.now();
    if (left <= 0 || Atomics.wait(done, 0, seen, left) === 'timed-out') {
      void worker.terminate();
      runner = undefined;
      return { code: -1, stdout: '', stderr: `tasks ${args.join(' ')}: still running after ${timeoutMs} ms\n` };
    }
  }
  // The answer of this run: a message left by an earlier one (an error thrown after its
  // answer) is set aside, said, and never taken for this run's. The answer is posted before
  // the word is written, yet on a loaded machine it has been seen to reach this side of the
  // port a moment after (Node 22): so it is waited for, briefly.
  let reply: (RunResult & { id?: number; crash?: string }) | undefined;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const giveUp = Date.now() + 5_000;
  for (;;) {
    const message = receiveMessageOnPort(port)?.message as (RunResult & { id?: number; crash?: string }) | undefined;
    if (message === undefined && Date.now() < giveUp) {
      Atomics.wait(pause, 0, 0, 2);
      continue;
    }
    if (message === undefined || message.id === id) {
      reply = message;
      break;
    }
    console.warn(`in-process runner: a message of an earlier run, after its answer: ${message.crash ?? JSON.stringify(message)}`);
  }
  if (reply === undefined || reply.crash !== undefined) throw new Error(`tasks ${args.join(' ')} crashed in process: ${reply?.crash}`);
  return { code: reply.code, stdout: reply.stdout, stderr: reply.stderr };
}

function startRunner(): { worker: Worker; port: MessagePort; done: Int32Array } {
  const signal = new SharedArrayBuffer(4);
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(path.join(ROOT, 'test', 'helpers', 'in-process-worker.mjs'), {
    workerData: { signal, port: port2 },
    transferList: [port2],
  });
  // The thread must not keep the test's process alive once its tests are done.
  worker.unref();
  return { worker, port: port1, done: new Int32Array(signal) };
}
