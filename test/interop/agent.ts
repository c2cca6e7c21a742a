import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject, onTestFinished } from 'vitest';
import { type MockModel, type MockModelOptions, type ReceivedResult, startMockModel, type Turn, type UsageTurn } from './mock-model.js';
import { type AgentStream, parseStream } from './stream.js';

/**
 * Run the real Claude Code once, headless, against a scripted model on loopback, with its
 * task tools pointed at `<configDir>/tasks/<listId>/`. Asynchronous on purpose: the mock
 * model answers from this process, so nothing here may block the event loop (use
 * runAsync, never spawnSync, for `tasks` while an agent runs).
 */

/** The tools the scripts use; granted by --allowedTools (as root, --dangerously-skip-permissions is refused). */
const TOOLS = 'TaskCreate TaskUpdate TaskList TaskGet TodoWrite';

export interface AgentOptions {
  configDir: string;
  /** CLAUDE_CODE_TASK_LIST_ID; undefined: the session's own list (its UUID). */
  listId: string | undefined;
  /** The prompt the session opens with (its transcript keeps it). */
  prompt?: string;
  turns: ReadonlyArray<Turn | UsageTurn>;
  beforeTurn?: MockModelOptions['beforeTurn'];
  /** The model the messages name, the closing reply's usage, a subagent's reply (mock-model.ts). */
  model?: MockModelOptions['model'];
  closingUsage?: MockModelOptions['closingUsage'];
  subagent?: MockModelOptions['subagent'];
  /** Called with the stand-in once it listens (to wait on its subagent's answer). */
  onModel?: (model: MockModel) => void;
  /** Default 120 s: generous, the machine is shared. */
  timeoutMs?: number;
  /** The agent's working folder, whose .claude/settings*.json it reads (default: a fresh home). */
  cwd?: string;
  /** More environment, e.g. to turn on agent teams. */
  env?: NodeJS.ProcessEnv;
  /** `--allowedTools` (default: the task tools, which also turns them on: docs/task-store.md section 12). */
  allowedTools?: string;
  /** More arguments before `-p`, e.g. `--resume <id> --fork-session`, `--settings <json>` or a teammate's `--team-name`. */
  args?: readonly string[];
  /**
   * The path the binary is started by (default: the binary under test), e.g. a link named
   * as an installer names it (`.../claude/versions/<version>`, `bin/claude.exe`): a
   * process's command line keeps the path it was started by.
   */
  bin?: string;
  /** Run as another local user (a "host" of `tasks -H` tests): its ids; its home is made theirs. */
  user?: { uid: number; gid: number };
  /**
   * SIGKILL the agent when it asks for this turn (0-based), 2 s later, as a crash or a
   * machine switched off ends it: its request is never answered, and the run is judged
   * only by that.
   */
  killAtTurn?: number;
  /** How long after turn `killAtTurn` is asked for the agent is killed (default 2000 ms: its transcript written). */
  killDelayMs?: number;
}

export interface AgentRun {
  stream: AgentStream;
  stdout: string;
  stderr: string;
  /** The tool results as the mock model received them. */
  received: ReceivedResult[];
}

/** The binary under test, found or installed once by the global setup. */
export function claudeBin(): string {
  return inject('claudeBin');
}

/** Its version: the pin, unless TASKS_INTEROP_CLAUDE_VERSION chose another. */
export function claudeVersion(): string {
  return inject('claudeVersion');
}

/**
 * Only what Claude Code needs, nothing of the developer's own environment (no real
 * credentials, settings or list id leak in). Non-essential traffic is off, and any request
 * that still tries to leave meets a proxy on a closed loopback port, so everything stays
 * on 127.0.0.1: the mock is reached directly through NO_PROXY.
 */
export function agentEnv(configDir: string, home: string, listId: string | undefined, modelUrl: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    TMPDIR: os.tmpdir(),
    LANG: 'C.UTF-8',
    CLAUDE_CONFIG_DIR: configDir,
    CLAUDE_CODE_TASK_LIST_ID: listId,
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: 'sk-mock-loopback-only',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    HTTP_PROXY: 'http://127.0.0.1:9',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1,localhost',
  };
  if (listId === undefined) delete env.CLAUDE_CODE_TASK_LIST_ID;
  return env;
}

/**
 * Run one agent to the end of its script. Throws, with its stderr, when the run is not
 * clean: not the pinned version, a non-zero exit, a turn left unserved, a tool call left
 * unanswered, or a request the mock does not serve.
 */
export async function runAgent(options: AgentOptions): Promise<AgentRun> {
  let killed: (() => void) | undefined;
  const model = await startMockModel({
    turns: options.turns,
    beforeTurn: async (i) => {
      if (i === options.killAtTurn) {
        // Claude Code writes its transcript a moment after the fact: what it did is on disk first
        // (killDelayMs 0: killed before it can, as a crash may).
        await new Promise((resolve) => setTimeout(resolve, options.killDelayMs ?? 2000));
        killed?.();
        // Never answered: the agent is gone.
        await new Promise(() => {});
      }
      await options.beforeTurn?.(i);
    },
    model: options.model,
    closingUsage: options.closingUsage,
    subagent: options.subagent,
  });
  options.onModel?.(model);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-agent-home-'));
  if (options.user !== undefined) fs.chownSync(home, options.user.uid, options.user.gid);
  try {
    const child = spawn(
      options.bin ?? claudeBin(),
      [
        ...(options.args ?? []),
        '-p',
        options.prompt ?? 'Follow the plan.',
        '--output-format',
        'stream-json',
        '--verbose',
        '--allowedTools',
        options.allowedTools ?? TOOLS,
      ],
      {
        cwd: options.cwd ?? home,
        env: { ...agentEnv(options.configDir, home, options.listId, model.url), ...options.env },
        stdio: ['ignore', 'pipe', 'pipe'],
        ...(options.user === undefined ? {} : { uid: options.user.uid, gid: options.user.gid }),
      },
    );
    killed = () => child.kill('SIGKILL');
    // A test that fails before it awaits its agent must not leave it running: the model it
    // asks ends with the test file's process, and Claude Code goes on retrying for minutes,
    // an orphan that slows every later test. It ends with the test. (Called outside a
    // test, from a hook, the caller ends it.)
    try {
      onTestFinished(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      });
    } catch {
      // not inside a test
    }
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timeoutMs = options.timeoutMs ?? 120_000;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (c) => resolve(c));
    }).finally(() => clearTimeout(timer));

    const stream = parseStream(stdout);
    if (options.killAtTurn !== undefined) {
      if (timedOut || code !== null || model.turnsServed() !== options.killAtTurn + 1)
        throw new Error(
          `agent run not killed at turn ${options.killAtTurn} (exit ${code}, ${model.turnsServed()} turns asked)\nstderr: ${stderr.trim().slice(-2000)}`,
        );
      return { stream, stdout, stderr, received: model.received };
    }
    const problems: string[] = [];
    if (timedOut) problems.push(`killed after ${timeoutMs} ms`);
    if (code !== 0) problems.push(`exit code ${code}`);
    if (stream.version !== claudeVersion())
      problems.push(`reports Claude Code ${stream.version ?? '(no init event)'}, under test ${claudeVersion()}`);
    if (model.turnsServed() !== options.turns.length) problems.push(`${model.turnsServed()} of ${options.turns.length} turns served`);
    const unanswered = stream.calls.filter((c) => !c.answered).map((c) => c.name);
    if (unanswered.length > 0) problems.push(`calls without a result: ${unanswered.join(', ')}`);
    if (model.strayRequests.length > 0) problems.push(`requests the mock does not serve: ${model.strayRequests.join(', ')}`);
    if (stream.resultSubtype !== 'success') problems.push(`result ${stream.resultSubtype ?? '(none)'}`);
    if (problems.length > 0) {
      throw new Error(
        `agent run failed (${problems.join('; ')})\nstderr: ${stderr.trim().slice(-2000)}\nstdout tail: ${stdout.slice(-1500)}`,
      );
    }
    return { stream, stdout, stderr, received: model.received };
  } finally {
    await model.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}
