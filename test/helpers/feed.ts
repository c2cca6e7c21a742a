import { spawn } from 'node:child_process';
import { BIN, baseEnv, type RunResult } from './cli.js';

/**
 * `tasks <args>` with `lines` written to its stdin one at a time, `delayMs` apart, as a
 * running agent's pipe delivers them; stdin is closed after the last line unless `keepOpen`.
 */
export function runFed(
  config: string,
  args: string[],
  lines: readonly string[],
  opts: { delayMs?: number; keepOpen?: boolean; env?: Record<string, string | undefined> } = {},
): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: baseEnv(config, opts.env), cwd: config });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    // The watch may end (its condition held) before every line is written.
    child.stdin.on('error', () => {});
    let timer: NodeJS.Timeout | undefined;
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    const next = (i: number) => {
      if (i >= lines.length) {
        if (!opts.keepOpen) child.stdin.end();
        return;
      }
      child.stdin.write(`${lines[i]}\n`);
      timer = setTimeout(() => next(i + 1), opts.delayMs ?? 20);
    };
    next(0);
  });
}
