import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './cli.js';

/**
 * ssh stood in for by a script that runs the host's command here, as that host (a home
 * and a config folder of its own under `root`): for `tasks board -H` tests that need no
 * sshd. A host named `<name>-ahead` runs with its clock 3 h ahead of this machine's
 * (clock-ahead.mjs), as a host whose clock is off.
 */
export const HOST_CLOCK_AHEAD_MS = 3 * 3_600_000;

export function fakeSsh(): { root: string; ssh: string; hostList: (host: string, list: string) => string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-fake-ssh-'));
  const ssh = path.join(root, 'fake-ssh');
  const ahead = pathToFileURL(path.join(ROOT, 'test', 'helpers', 'clock-ahead.mjs')).href;
  fs.writeFileSync(
    ssh,
    `#!/bin/sh
# ssh, stood in for: its options skipped, the command run here as host "$dest".
while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; break ;;
    -o|-p) shift 2 ;;
    *) shift ;;
  esac
done
dest="$1"
case "$dest" in *-ahead) NODE_OPTIONS="--import=${ahead}"; TASKS_TEST_CLOCK_AHEAD_MS=${HOST_CLOCK_AHEAD_MS}; export NODE_OPTIONS TASKS_TEST_CLOCK_AHEAD_MS ;; esac
HOME="${root}/$dest"; CLAUDE_CONFIG_DIR="$HOME/.claude"; export HOME CLAUDE_CONFIG_DIR
unset XDG_CACHE_HOME XDG_STATE_HOME XDG_RUNTIME_DIR
exec sh -c "$2"
`,
    { mode: 0o755 },
  );
  return { root, ssh, hostList: (host, list) => path.join(root, host, '.claude', 'tasks', list) };
}
