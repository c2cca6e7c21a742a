import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { TasksError } from '../base/errors.js';
import { groupRunning, signalGroup, withinMs } from '../base/process-group.js';
import { descriptorLink } from './stream-writers.js';

/**
 * An agent's process, owned: `tasks run` starts the command in a process group of its
 * own, so that ending it ends everything it started (its tools' shells, test runners);
 * it can be asked to end (SIGTERM to the group, SIGKILL after a grace) and is waited for
 * until no process of the group runs.
 *
 * The process that runs the command is a shell that `exec`s it (so the pid, the exit
 * status and the signals are the command's own), after starting a guard in the same
 * group: the guard waits on a socket whose other end only this process holds, so when
 * this process dies in any way, SIGKILL included, the kernel closes it, and the guard
 * ends the group (SIGTERM, then SIGKILL after the grace). The guard ignores SIGTERM, so
 * the group's SIGTERM leaves it to do that; it is ended last, with the group's SIGKILL.
 */
export interface AgentSpec {
  /** The command as given (a name looked up in PATH, or a path). */
  command: string;
  args: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The agent's stdin: ours (a prompt piped in), or nothing. */
  stdin: 'inherit' | 'ignore';
  /** The agent's stderr: ours as it is, or read here (its lines handed on). */
  stderr: 'inherit' | 'pipe';
  /** How long the guard waits between SIGTERM and SIGKILL should this process die first. */
  graceMs: number;
}

export interface AgentExit {
  /** Its exit status; null when a signal ended it. */
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * The guard, then the command. `$$` in the subshell is the shell's own pid, which is the
 * group's id (the shell leads the group). The guard tells its pid on fd 3; the command
 * does not get fd 3.
 */
const GUARD = `grace=$1; shift; pg=$$
( trap '' TERM INT HUP; read _ <&3; kill -s TERM -- -$pg 2>/dev/null; sleep "$grace"; kill -s KILL -- -$pg 2>/dev/null ) </dev/null >/dev/null 2>&1 &
echo $! >&3
exec "$@" 3>&-`;

/** How often the group is looked at while it is waited for. */
const POLL_MS = 50;

/** After the group's SIGKILL: how long, at most, its processes are waited for to end, and how often they are looked at. */
const KILLED_GONE_MS = 5000;
const KILL_POLL_MS = 10;

export class AgentProcess {
  readonly pid: number;
  readonly stdout: Readable;
  readonly stderr: Readable | null;
  /**
   * What the agent's stdout is (`pipe:[<inode>]`, read as it starts): every process that
   * holds it open, in the agent's group or not, is found by it.
   */
  readonly stdoutLink: string | undefined;
  /** Resolves once the command's own process has exited (its group may live on). */
  readonly exited: Promise<AgentExit>;
  private exit: AgentExit | undefined;
  private guardPid: number | undefined;
  /** Resolves once the guard has told its pid (or never will). */
  private readonly guardKnown: Promise<void>;
  private over = false;

  private constructor(
    private readonly child: ChildProcess,
    pid: number,
  ) {
    this.pid = pid;
    this.stdout = child.stdout as Readable;
    this.stderr = child.stderr;
    this.stdoutLink = descriptorLink(pid, 1);
    this.exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
    const guard = child.stdio[3] as Readable | null;
    this.guardKnown = new Promise((resolve) => {
      guard?.setEncoding('utf8');
      guard?.on('data', (text: string) => {
        const pid = Number.parseInt(text, 10);
        if (Number.isInteger(pid) && pid > 0) this.guardPid ??= pid;
        resolve();
      });
      guard?.on('close', () => resolve());
      guard?.on('error', () => resolve());
      if (guard === null) resolve();
    });
  }

  /**
   * Start `spec`'s command. Throws `command_not_found` (no such command in PATH, or no
   * such file) or `command_not_executable` (found, but not a file this user may run), as
   * a shell reports them with 127 and 126, before anything is started.
   */
  static start(spec: AgentSpec): AgentProcess {
    const file = resolveCommand(spec.command, spec.env.PATH, spec.cwd);
    const env = Object.fromEntries(Object.entries(spec.env).filter((e): e is [string, string] => e[1] !== undefined));
    const graceSeconds = String(Math.max(1, Math.ceil(spec.graceMs / 1000)));
    const child = spawn('/bin/sh', ['-c', GUARD, 'tasks-run', graceSeconds, file, ...spec.args], {
      cwd: spec.cwd,
      env,
      detached: true,
      stdio: [spec.stdin, 'pipe', spec.stderr, 'pipe'],
    });
    if (child.pid === undefined) {
      throw new TasksError('io', `cannot start ${spec.command}: /bin/sh could not be run`);
    }
    child.on('error', () => {});
    return new AgentProcess(child, child.pid);
  }

  /** The command's exit, once it has exited. */
  get exitStatus(): AgentExit | undefined {
    return this.exit;
  }

  /**
   * Is any process of the agent's group running, the guard aside? The command's own
   * process, once exited, is a zombie until Node collects it: not running.
   */
  running(): boolean {
    if (this.over) return false;
    return groupRunning(this.pid, this.guardPid);
  }

  /**
   * End the group and wait until none of it runs: SIGTERM now, SIGKILL after `graceMs`
   * (at once when `now`). Resolves how it ended: it had ended already, it gave way to
   * SIGTERM, or it needed SIGKILL. `hurry` aborted: SIGKILL at that moment.
   */
  async end(graceMs: number, hurry?: AbortSignal): Promise<'already' | 'term' | 'kill'> {
    // Told at once as the shell starts; without it the guard would count as the agent.
    await withinMs(this.guardKnown, 1000, undefined);
    if (!this.running()) {
      await this.finish();
      return 'already';
    }
    signalGroup(this.pid, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (this.running()) {
      if (Date.now() >= deadline || hurry?.aborted) {
        await this.finish();
        await this.waitExit();
        return 'kill';
      }
      await sleep(POLL_MS);
    }
    // The group gone during the grace: it gave way to SIGTERM, or a last resort killed it (a second signal).
    const killed = this.over;
    await this.finish();
    return killed ? 'kill' : 'term';
  }

  /** Last resort, synchronous (the process is exiting): SIGKILL to the whole group, the guard too. */
  killNow(): void {
    if (this.over) return;
    this.over = true;
    signalGroup(this.pid, 'SIGKILL');
  }

  /**
   * Nothing of the agent is to run any more: the group's SIGKILL (the guard too, and
   * whatever outlived the grace), then a wait until none of it runs. A killed process
   * ends only once it is scheduled again, which on a busy machine takes a while: until
   * then it still runs, and a caller told "ended" could find it.
   */
  private async finish(): Promise<void> {
    this.killNow();
    (this.child.stdio[3] as Readable | null)?.destroy();
    const deadline = Date.now() + KILLED_GONE_MS;
    while (groupRunning(this.pid) && Date.now() < deadline) await sleep(KILL_POLL_MS);
  }

  /** After the group's SIGKILL: the command's own exit is reported within moments. */
  private async waitExit(): Promise<void> {
    if (this.exit !== undefined) return;
    await withinMs(this.exited, 2000, undefined);
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Where a command is, as a shell finds it: a name with a slash is a path (from `cwd`);
 * else the first executable file of that name in PATH (an empty entry is `cwd`).
 */
export function resolveCommand(command: string, pathVar: string | undefined, cwd: string): string {
  if (command === '') throw new TasksError('usage', 'tasks run needs a command after --');
  if (command.includes('/')) {
    const file = path.resolve(cwd, command);
    const problem = runnable(file);
    if (problem === 'missing') throw notFound(command, `${command}: no such file`);
    if (problem !== undefined) throw notExecutable(command, problem);
    return file;
  }
  let seen: string | undefined;
  for (const dir of (pathVar ?? '/usr/local/bin:/usr/bin:/bin').split(':')) {
    const file = path.resolve(cwd, dir === '' ? '.' : dir, command);
    const problem = runnable(file);
    if (problem === undefined) return file;
    if (problem !== 'missing') seen ??= problem;
  }
  if (seen !== undefined) throw notExecutable(command, seen);
  throw notFound(command, `${command}: command not found (not in PATH)`);
}

/** Why this file cannot be run; undefined: it can. */
function runnable(file: string): 'missing' | string | undefined {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    return 'missing';
  }
  if (st.isDirectory()) return `${file} is a folder`;
  if (!st.isFile()) return `${file} is not a regular file`;
  try {
    fs.accessSync(file, fs.constants.X_OK);
  } catch {
    return `${file} is not executable (permission denied)`;
  }
  return undefined;
}

function notFound(command: string, message: string): TasksError {
  return new TasksError('command_not_found', message, { details: { command } });
}

function notExecutable(command: string, why: string): TasksError {
  return new TasksError('command_not_executable', `${command}: ${why}`, { details: { command } });
}
