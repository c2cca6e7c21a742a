/**
 * The step agent (step-agent.mjs) started for a test: a real process that writes its
 * live-session file and its tasks as Claude Code does, a step at a time, each `until`
 * step let go by the test. Shared by the gates that wait for a list's sessions (watch
 * --until all-completed, notify's list-completed).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { baseEnv } from './cli.js';
import { projectFolder } from './session-files.mjs';

const AGENT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'step-agent.mjs');

export interface Agent {
  child: ChildProcess;
  sessionId: string;
  /** Let the agent past its `until` step of this name. */
  go(name: string): void;
  exited: Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The agents a test file starts, killed after each test (`afterEach(agents.killAll)`). */
export function stepAgents() {
  const started: Agent[] = [];
  return {
    killAll: () => {
      for (const a of started.splice(0)) a.child.kill('SIGKILL');
    },
    /**
     * Start the step agent. `asClaude`: under the name `claude` (a link to node), with
     * CLAUDE_CODE_TASK_LIST_ID=ci in its environment, so that /proc shows a Claude Code
     * process on list ci; else a plain node process, on its own session's list.
     */
    start(
      config: string,
      steps: Array<Record<string, unknown>>,
      opts: { asClaude?: boolean; list?: string; sessionId?: string; tools?: string[] } = {},
    ): Agent {
      const sessionId = opts.sessionId ?? randomUUID();
      const cwd = path.join(config, 'work');
      fs.mkdirSync(cwd, { recursive: true });
      const gates = path.join(config, 'gates');
      fs.mkdirSync(gates, { recursive: true });
      const list = path.join(config, 'tasks', opts.list ?? (opts.asClaude ? 'ci' : sessionId));
      const plan = path.join(config, `plan-${sessionId}.json`);
      const resolved = steps.map((s) => (typeof s.until === 'string' ? { until: path.join(gates, s.until) } : s));
      const transcript = path.join(config, 'projects', projectFolder(cwd), `${sessionId}.jsonl`);
      fs.writeFileSync(plan, JSON.stringify({ config, sessionId, cwd, list, transcript, tools: opts.tools, steps: resolved }));
      let command = process.execPath;
      const env = baseEnv(config);
      if (opts.asClaude) {
        command = path.join(config, 'bin', 'claude');
        fs.mkdirSync(path.dirname(command), { recursive: true });
        if (!fs.existsSync(command)) fs.symlinkSync(process.execPath, command);
        env.CLAUDE_CODE_TASK_LIST_ID = opts.list ?? 'ci';
      }
      const child = spawn(command, [AGENT, plan], { cwd, env, stdio: 'ignore' });
      const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      const agent = { child, sessionId, go: (name: string) => fs.writeFileSync(path.join(gates, name), ''), exited };
      started.push(agent);
      return agent;
    },
  };
}

export async function waitForFile(file: string, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!fs.existsSync(file)) {
    if (Date.now() > until) throw new Error(`no ${file}`);
    await sleep(20);
  }
}

/** The process runs the agent's script (past node's start): /proc shows its command line. */
export async function waitForProcess(pid: number, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('step-agent')) return;
    } catch {}
    if (Date.now() > until) throw new Error(`no process ${pid}`);
    await sleep(20);
  }
}
