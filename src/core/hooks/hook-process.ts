import { type ChildProcess, spawn } from 'node:child_process';

/**
 * Run one hook command as Claude Code does: through `/bin/sh -c` (or directly with
 * `args`), in the project folder, the event's JSON on stdin, stdout and stderr captured.
 * The hook runs in a process group of its own so that a timeout or an interrupt can end
 * it together with everything it started (a test runner and its workers).
 */

export interface HookProcessRequest {
  command: string;
  args?: string[] | undefined;
  stdin: string;
  cwd: string;
  env: Record<string, string | undefined>;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

export interface HookProcessResult {
  /** Exit status; null when ended by a signal or never started. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  interrupted: boolean;
  /** The command could not be started at all (no /bin/sh, bad cwd...). */
  spawnError?: string | undefined;
}

/** Output beyond this is dropped (a hook that prints a whole test log must not eat memory). */
const MAX_CAPTURE = 1024 * 1024;
/** After SIGTERM, how long a hook's group gets before SIGKILL. */
const KILL_GRACE_MS = 1000;
/** After the hook exits, how long to wait for pipes that a leftover grandchild keeps open. */
const STDIO_GRACE_MS = 500;

function startHook(req: HookProcessRequest, detached: boolean): ChildProcess {
  const env = Object.fromEntries(Object.entries(req.env).filter((e): e is [string, string] => e[1] !== undefined));
  const stdio: ['pipe', 'pipe' | 'ignore', 'pipe' | 'ignore'] = ['pipe', 'pipe', 'pipe'];
  return req.args !== undefined
    ? spawn(req.command, req.args, { cwd: req.cwd, env, detached, stdio })
    : spawn('/bin/sh', ['-c', req.command], { cwd: req.cwd, env, detached, stdio });
}

function killGroup(child: ChildProcess, sig: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, sig);
  } catch {
    try {
      child.kill(sig);
    } catch {
      // already gone
    }
  }
}

export function runHookProcess(req: HookProcessRequest): Promise<HookProcessResult> {
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = startHook(req, true);
    } catch (err) {
      resolve({
        code: null,
        signal: null,
        stdout: '',
        stderr: '',
        timedOut: false,
        interrupted: false,
        spawnError: (err as Error).message,
      });
      return;
    }
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let interrupted = false;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    let stdioTimer: NodeJS.Timeout | undefined;
    const capture = (chunk: Buffer, which: 'out' | 'err') => {
      if (which === 'out' && stdout.length < MAX_CAPTURE) stdout += chunk.toString('utf8');
      if (which === 'err' && stderr.length < MAX_CAPTURE) stderr += chunk.toString('utf8');
    };
    child.stdout?.on('data', (c: Buffer) => capture(c, 'out'));
    child.stderr?.on('data', (c: Buffer) => capture(c, 'err'));
    // A hook that exits without reading its stdin makes our write fail with EPIPE: harmless.
    child.stdin?.on('error', () => {});
    child.stdin?.end(req.stdin);

    const stop = () => {
      killGroup(child, 'SIGTERM');
      killTimer ??= setTimeout(() => killGroup(child, 'SIGKILL'), KILL_GRACE_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, req.timeoutMs);
    const onAbort = () => {
      interrupted = true;
      stop();
    };
    if (req.signal?.aborted) onAbort();
    else req.signal?.addEventListener('abort', onAbort, { once: true });

    const finish = (code: number | null, signal: NodeJS.Signals | null, spawnError?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      if (stdioTimer) clearTimeout(stdioTimer);
      req.signal?.removeEventListener('abort', onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve({
        code,
        signal,
        stdout: stdout.slice(0, MAX_CAPTURE),
        stderr: stderr.slice(0, MAX_CAPTURE),
        timedOut,
        interrupted,
        spawnError,
      });
    };
    child.on('error', (err) => finish(null, null, err.message));
    child.on('exit', (code, signal) => {
      // Normally 'close' follows at once; a grandchild that left the group may hold the pipes.
      stdioTimer = setTimeout(() => finish(code, signal), STDIO_GRACE_MS);
      child.on('close', () => finish(code, signal));
    });
  });
}

/** `async` hooks: started with the event on stdin, left to run; their result counts for nothing. */
export function startBackgroundHook(req: Omit<HookProcessRequest, 'timeoutMs' | 'signal'>): string | undefined {
  try {
    const child = spawn(req.args !== undefined ? req.command : '/bin/sh', req.args ?? ['-c', req.command], {
      cwd: req.cwd,
      env: Object.fromEntries(Object.entries(req.env).filter((e): e is [string, string] => e[1] !== undefined)),
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    child.on('error', () => {});
    child.stdin?.on('error', () => {});
    child.stdin?.end(req.stdin);
    child.unref();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}
