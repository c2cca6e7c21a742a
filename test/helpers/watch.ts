import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { BIN, baseEnv, type RunResult } from './cli.js';
import { parseNdjson, type StreamEvent } from './replay.js';

/** A `tasks watch` running in the background, its NDJSON read as it comes. */
export interface WatchProcess {
  child: ChildProcessWithoutNullStreams;
  events(): StreamEvent[];
  stderr(): string;
  /** Resolves with the first event (from the start) that `match` accepts. */
  waitFor(match: (e: StreamEvent) => boolean, what: string, timeoutMs?: number): Promise<StreamEvent>;
  /** Resolves when the process ends, whatever ended it. */
  exited: Promise<RunResult>;
  stop(signal?: NodeJS.Signals): Promise<RunResult>;
}

export function startWatch(configDir: string, args: string[], env: Record<string, string | undefined> = {}): WatchProcess {
  const child = spawn(process.execPath, [BIN, ...args], { env: baseEnv(configDir, env), cwd: configDir });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.end();
  const exited = new Promise<RunResult>((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr })));
  const events = () => parseNdjson(stdout.slice(0, stdout.lastIndexOf('\n') + 1));
  let ended = false;
  void exited.then(() => (ended = true));
  return {
    child,
    events,
    stderr: () => stderr,
    exited,
    async waitFor(match, what, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const found = events().find(match);
        if (found) return found;
        if (ended || Date.now() > until) {
          throw new Error(`${ended ? 'watch ended' : 'timed out'} waiting for ${what}; stderr: ${stderr}; stdout: ${stdout.slice(-2000)}`);
        }
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async stop(signal = 'SIGTERM') {
      if (!ended) child.kill(signal);
      return exited;
    },
  };
}
