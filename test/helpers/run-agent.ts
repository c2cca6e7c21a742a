import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, baseEnv, ROOT } from './cli.js';
import { parseNdjson } from './replay.js';
import { StreamScript } from './stream-lines.js';

/**
 * `tasks run` through the built binary with the scripted agent of fake-agent.mjs: start
 * one, see what of its processes still runs, wait for a moment. Every pid file started is
 * kept, so that a test file can kill what a failed test left (killLeftovers, after each).
 */
export const FAKE = path.join(ROOT, 'test', 'helpers', 'fake-agent.mjs');

export interface Plan {
  ignoreTerm?: boolean;
  children?: number;
  outside?: number;
  steps: Array<Record<string, unknown>>;
}

export interface Finished {
  code: number;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** From start to exit (ms). */
  ms: number;
}

const started: string[] = [];

/** `tasks run <args> -- node fake-agent.mjs <plan>`; the agent's pids are kept for `leftovers`. */
export function startRun(
  config: string,
  args: string[],
  plan: Plan,
  opts: { input?: string; env?: Record<string, string>; globals?: string[] } = {},
) {
  const planFile = path.join(config, `plan-${started.length}.json`);
  const pids = path.join(config, `pids-${started.length}`);
  fs.writeFileSync(planFile, JSON.stringify({ ...plan, pids }));
  started.push(pids);
  const t0 = Date.now();
  const child: ChildProcess = spawn(
    process.execPath,
    [BIN, ...(opts.globals ?? []), 'run', ...args, '--', process.execPath, FAKE, planFile],
    {
      env: baseEnv(config, opts.env),
      cwd: config,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  if (opts.input !== undefined) child.stdin?.end(opts.input);
  else child.stdin?.end();
  const done = new Promise<Finished>((resolve) =>
    child.on('close', (code, signal) => resolve({ code: code ?? -1, signal, stdout, stderr, ms: Date.now() - t0 })),
  );
  return { child, done, pids, out: () => stdout };
}

/** The agent's processes (its own and its children) still running: none must be. */
export function leftovers(pidsFile: string): number[] {
  if (!fs.existsSync(pidsFile)) return [];
  return fs
    .readFileSync(pidsFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .filter((pid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
        const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
        return state !== 'Z' && state !== 'X';
      } catch {
        return false;
      }
    });
}

/** Wait until `pred` holds (polled), or fail after `ms`. */
export async function until(pred: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Kill what the runs started since the last call left running (for afterEach: nothing may outlive a test). */
export function killLeftovers(): void {
  for (const file of started.splice(0)) for (const pid of leftovers(file)) process.kill(pid, 'SIGKILL');
}

/** Note a pid file written by a plan the test starts itself. */
export function trackPids(file: string): void {
  started.push(file);
}

export const outs = (lines: readonly string[]) => lines.map((l) => ({ out: JSON.parse(l) as unknown }));

/** The agent creates #1 and #2, starts #1 (the run's own list, no files: the stream alone). */
export function started2(): StreamScript {
  return new StreamScript().init().create('1', 'Reproduce').create('2', 'Fix').update('1', { status: 'in_progress' });
}

export const lastEvent = (stdout: string) => parseNdjson(stdout).at(-1);
