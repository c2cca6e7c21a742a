/**
 * A session resumed (`claude --resume <id>`) is at work again from the moment its process
 * runs, before Claude Code writes its live-session file (about 0.4 s): a gate on its own
 * list that is all completed waits for it (it may add tasks), as for any agent starting.
 * Through the built binary, a process standing for Claude Code's (argv[0] `claude`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonLines, run, tempConfig } from '../helpers/cli.js';
import { listWith, taskOf } from '../helpers/notify.js';
import { writeTranscript } from '../helpers/session-files.mjs';

const SESSION = '7a7a7a7a-1111-4111-8111-7a7a7a7a7a7a';
const agents: ChildProcess[] = [];
afterEach(() => {
  for (const a of agents.splice(0)) a.kill('SIGKILL');
});

function endedSession() {
  const config = tempConfig();
  const cwd = path.join(config, 'home', 'proj');
  fs.mkdirSync(cwd, { recursive: true });
  writeTranscript(config, { sessionId: SESSION, cwd, start: Date.now() - 20 * 60_000, end: Date.now() - 10 * 60_000 });
  listWith(config, SESSION, [taskOf('1', { status: 'completed' })]);
  return { config, cwd };
}

function claude(config: string, cwd: string, args: string[]): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)', '--', ...args], {
    argv0: 'claude',
    cwd,
    stdio: 'ignore',
    env: { ...process.env, CLAUDE_CONFIG_DIR: config, CLAUDE_CODE_TASK_LIST_ID: '' },
  });
  agents.push(child);
  return child;
}

describe('a session resumed before its live-session file', () => {
  it('holds watch --until all-completed on its own list as starting; a fork of it does not', () => {
    const { config, cwd } = endedSession();
    expect(run(config, ['-l', SESSION, 'watch', '--until', 'all-completed', '--timeout', '5s']).code).toBe(0);
    const resumed = claude(config, cwd, ['--resume', SESSION, '-p', 'go on']);
    const held = run(config, ['-l', SESSION, 'watch', '--until', 'all-completed', '--timeout', '2s', '--json']);
    expect(held.code, held.stderr).toBe(124);
    expect(jsonLines(held.stdout).find((e) => e.event === 'waiting')).toMatchObject({
      sessions: [{ session: SESSION, pid: resumed.pid, state: 'starting' }],
    });
    resumed.kill('SIGKILL');
    // A fork starts a session (and a list) of its own: this list is not its.
    claude(config, cwd, ['--resume', SESSION, '--fork-session', '-p', 'go on']);
    expect(run(config, ['-l', SESSION, 'watch', '--until', 'all-completed', '--timeout', '5s']).code).toBe(0);
  });
});
