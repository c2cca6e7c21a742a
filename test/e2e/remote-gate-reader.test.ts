import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, baseEnv, run } from '../helpers/cli.js';

/**
 * A gate on a host (`tasks -H box watch --until ...`, `tasks -H box run ...`) whose reader
 * goes away (`| head -1`) goes on to its verdict, which is its status, as one here does:
 * with `set -o pipefail` (or `&& deploy`) a status 0 there would pass the gate early. ssh is
 * stood in for by a script that runs the host's command here, as that host (a home and a
 * config folder of its own); the real thing is test/slow/remote-host.test.ts.
 */
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-remote-gate-'));
const fakeSsh = path.join(root, 'fake-ssh');
fs.writeFileSync(
  fakeSsh,
  `#!/bin/sh
# ssh, stood in for: its options skipped, the command run here as host "$dest".
while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; break ;;
    -o|-p) shift 2 ;;
    *) shift ;;
  esac
done
HOME="${root}/$1"; CLAUDE_CONFIG_DIR="$HOME/.claude"; export HOME CLAUDE_CONFIG_DIR
unset XDG_CACHE_HOME XDG_STATE_HOME XDG_RUNTIME_DIR
exec sh -c "$2"
`,
  { mode: 0o755 },
);
const local = path.join(root, 'local');
fs.mkdirSync(local, { recursive: true });
const hostConfig = path.join(root, 'box', '.claude');
fs.mkdirSync(path.join(hostConfig, 'tasks'), { recursive: true });
const env = { TASKS_SSH_COMMAND: fakeSsh, TASKS_HOST_PERSIST: '0' };

/** `{ tasks -H box <args>; echo "status=$?" }| head -1` in a shell (the reader is a pipe); the status tasks exited with. */
function gateStatus(args: string[]): Promise<string> {
  const words = args.map((a) => `'${a}'`).join(' ');
  const line = `{ '${process.execPath}' '${BIN}' -H box ${words}; echo "status=$?" > '${root}/status'; } 2>/dev/null | head -1 > /dev/null`;
  const shell = spawn('sh', ['-c', line], { env: baseEnv(local, env), cwd: root });
  return new Promise((resolve) => shell.on('close', () => resolve(fs.readFileSync(path.join(root, 'status'), 'utf8').trim())));
}

describe('a gate on a host whose reader goes away', () => {
  it('watch --until all-completed | head -1: the work still open, its status is the timeout (124), not 0', async () => {
    expect(run(hostConfig, ['-l', 'L', 'create', 'Open work']).code).toBe(0);
    expect(await gateStatus(['-l', 'L', 'watch', '--json', '--until', 'all-completed', '--timeout', '2s'])).toBe('status=124');
  }, 30_000);

  it("run ... | head -1: its status is the run's verdict (the agent's output was not stream-json: 2), not 0", async () => {
    expect(await gateStatus(['run', '--', 'sh', '-c', 'echo x; sleep 1'])).toBe('status=2');
  }, 30_000);
});
