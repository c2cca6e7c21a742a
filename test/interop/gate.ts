import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, ROOT } from '../helpers/cli.js';
import { agentEnv, claudeBin } from './agent.js';
import { startMockModel, type Turn } from './mock-model.js';

/**
 * A CI job's step, run as a CI runner runs it: the CI guide's recipe (docs/guide/ci.md), as written, in bash,
 * with `claude` (the real Claude Code under test, against the loopback model) and `tasks`
 * (the built bin/tasks.js) on PATH, in a fresh work folder, with the job's environment.
 * Asynchronous: the mock model answers from this process.
 */
export interface GateRun {
  /** The step's exit status (what `set -o pipefail` makes of the pipeline). */
  code: number;
  stdout: string;
  stderr: string;
  /** What `tee run.jsonl` (or `--record run.jsonl`) wrote. */
  copy: string;
  /** When the step started (ms since the epoch), and how long it took. */
  startedAt: number;
  elapsedMs: number;
  turnsServed: number;
}

export interface GateOptions {
  config: string;
  script: string;
  turns: readonly Turn[];
  /** Pause before every turn after the first: an agent that thinks between its steps. */
  turnDelayMs?: number;
  /** Awaited before turn `index` is served (after the delay). */
  beforeTurn?: (index: number, agent: { pid(): number | undefined }) => Promise<void> | void;
  /** The job's environment, for `tasks` and `claude` alike (CLAUDE_CODE_TASK_LIST_ID for the job). */
  jobEnv?: Record<string, string>;
  /** Only the agent's environment (`CLAUDE_CODE_TASK_LIST_ID=x claude -p ...`). */
  agentOnlyEnv?: Record<string, string>;
}

/** The tools the scripts use; granted by --allowedTools (as root, --dangerously-skip-permissions is refused). */
const TOOLS = 'TaskCreate TaskUpdate TaskList TaskGet TodoWrite';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The fenced `sh` block of the CI guide (docs/guide/ci.md) that holds `needle`. */
export function guideBlock(needle: string): string {
  const guide = fs.readFileSync(path.join(ROOT, 'docs', 'guide', 'ci.md'), 'utf8');
  const blocks = [...guide.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  const found = blocks.filter((b) => b.includes(needle));
  if (found.length !== 1) throw new Error(`docs/guide/ci.md: ${found.length} sh blocks hold ${JSON.stringify(needle)}`);
  return found[0] as string;
}

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export async function runGate(opts: GateOptions): Promise<GateRun> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-gate-job-'));
  const bin = path.join(work, '.bin');
  fs.mkdirSync(bin);
  const pidFile = path.join(work, '.claude.pid');
  const agentOnly = Object.entries(opts.agentOnlyEnv ?? {})
    .map(([k, v]) => `${k}=${quote(v)}`)
    .join(' ');
  fs.writeFileSync(
    path.join(bin, 'claude'),
    `#!/bin/sh\necho $$ > ${quote(pidFile)}\nexec env ${agentOnly} ${quote(claudeBin())} "$@" --allowedTools ${quote(TOOLS)}\n`,
    { mode: 0o755 },
  );
  fs.writeFileSync(path.join(bin, 'tasks'), `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(BIN)} "$@"\n`, { mode: 0o755 });
  const agent = {
    pid: () => {
      const text = fs.existsSync(pidFile) ? fs.readFileSync(pidFile, 'utf8').trim() : '';
      return text === '' ? undefined : Number(text);
    },
  };
  const model = await startMockModel({
    turns: opts.turns,
    beforeTurn: async (index) => {
      if (index > 0 && opts.turnDelayMs) await sleep(opts.turnDelayMs);
      await opts.beforeTurn?.(index, agent);
    },
  });
  try {
    const home = path.join(work, '.home');
    fs.mkdirSync(home);
    const env = {
      ...agentEnv(opts.config, home, undefined, model.url),
      PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      ...opts.jobEnv,
    };
    const started = Date.now();
    const child = spawn('bash', ['-c', opts.script], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1))).finally(() => clearTimeout(timer));
    const elapsedMs = Date.now() - started;
    const copyFile = path.join(work, 'run.jsonl');
    const copy = fs.existsSync(copyFile) ? fs.readFileSync(copyFile, 'utf8') : '';
    return { code, stdout, stderr, copy, startedAt: started, elapsedMs, turnsServed: model.turnsServed() };
  } finally {
    await model.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}
