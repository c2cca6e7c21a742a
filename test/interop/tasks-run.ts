import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN } from '../helpers/cli.js';
import { agentEnv, claudeBin } from './agent.js';
import { type MockModel, startMockModel, type Turn } from './mock-model.js';

/**
 * `tasks run -- claude -p ... --output-format stream-json --verbose` with the real Claude
 * Code under test: `claude` on PATH is a script that notes its pid and `exec`s the binary
 * (as exec-claude.sh does for a caller that owns the agent), so the process tasks starts,
 * in its own group, is Claude Code itself, and its pid is its group's id. The model is the
 * loopback stand-in in this process (it outlives the agent however the agent ends).
 * Asynchronous: nothing here may block the event loop while an agent runs.
 */
export interface TasksRunOptions {
  config: string;
  /** Options of `tasks run` (before --). */
  args: readonly string[];
  turns: readonly Turn[];
  /** Awaited before turn `index` is served (a pause, a hold). */
  beforeTurn?: (index: number) => Promise<void> | void;
  /** The job's environment (CLAUDE_CODE_TASK_LIST_ID...), for tasks and claude alike. */
  env?: Record<string, string>;
  /** More options of claude's own (--max-turns 2). */
  claudeArgs?: readonly string[];
  /** Tools allowed beyond the Task tools (Bash). */
  moreTools?: readonly string[];
  /** `claude` is a wrapper script that runs the agent as its child and exits 0 after it, whatever its end (a CI job's script). */
  wrapped?: boolean;
  /**
   * `claude` is a script that runs the agent twice, one after the other, this many ms
   * apart (a CI job's plan-then-implement script); the model's turns run on across both.
   */
  twiceApartMs?: number;
}

export interface TasksRunHandle {
  child: ChildProcess;
  /** The agent's pid (its process group's id), once it has started. */
  agentPid(): number | undefined;
  /** With `wrapped`: the pid of Claude Code itself, the wrapper's child. */
  claudePid(): number | undefined;
  /** stdout so far. */
  out(): string;
  model: MockModel;
  done: Promise<{ code: number; stdout: string; stderr: string; endedAt: number }>;
  /** The work folder (the record lands there), removed with the model by close(). */
  work: string;
  close(): Promise<void>;
}

const TOOLS = 'TaskCreate TaskUpdate TaskList TaskGet TodoWrite';

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export async function startTasksRun(opts: TasksRunOptions): Promise<TasksRunHandle> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-run-job-'));
  const bin = path.join(work, '.bin');
  const home = path.join(work, '.home');
  fs.mkdirSync(bin);
  fs.mkdirSync(home);
  const pidFile = path.join(work, '.claude.pid');
  const claudePidFile = path.join(work, '.claude-itself.pid');
  const agent = `${quote(claudeBin())} "$@" --allowedTools ${quote([TOOLS, ...(opts.moreTools ?? [])].join(' '))}`;
  fs.writeFileSync(
    path.join(bin, 'claude'),
    opts.twiceApartMs !== undefined
      ? `#!/bin/sh\necho $$ > ${quote(pidFile)}\n${agent} || exit $?\nsleep ${opts.twiceApartMs / 1000}\nexec ${agent}\n`
      : opts.wrapped === true
        ? `#!/bin/sh\necho $$ > ${quote(pidFile)}\n${agent} &\necho $! > ${quote(claudePidFile)}\nwait $!\nexit 0\n`
        : `#!/bin/sh\necho $$ > ${quote(pidFile)}\nexec ${agent}\n`,
    { mode: 0o755 },
  );
  const model = await startMockModel({ turns: opts.turns, beforeTurn: opts.beforeTurn });
  const env = { ...agentEnv(opts.config, home, undefined, model.url), PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, ...opts.env };
  const child = spawn(
    process.execPath,
    [
      BIN,
      'run',
      ...opts.args,
      '--',
      'claude',
      ...(opts.claudeArgs ?? []),
      '-p',
      'Follow the plan.',
      '--output-format',
      'stream-json',
      '--verbose',
    ],
    { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
  const done = new Promise<{ code: number; stdout: string; stderr: string; endedAt: number }>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? -1 : -2), stdout, stderr, endedAt: Date.now() });
    }),
  );
  return {
    child,
    agentPid: () => {
      const text = fs.existsSync(pidFile) ? fs.readFileSync(pidFile, 'utf8').trim() : '';
      return text === '' ? undefined : Number(text);
    },
    claudePid: () => {
      const text = fs.existsSync(claudePidFile) ? fs.readFileSync(claudePidFile, 'utf8').trim() : '';
      return text === '' ? undefined : Number(text);
    },
    out: () => stdout,
    model,
    done,
    work,
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await model.close();
      fs.rmSync(work, { recursive: true, force: true });
    },
  };
}

/** The processes of a group that still run (zombies do not): none must be left once tasks run ends. */
export function runningInGroup(pgid: number): number[] {
  const found: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[2] === String(pgid) && fields[0] !== 'Z' && fields[0] !== 'X') found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
