/**
 * A command run on another machine (`-H`, `$TASKS_HOST`): tasks runs itself there, over
 * the user's own ssh, as docker runs itself over `ssh://`. Nothing listens on the host and
 * nothing is synced: the command reads and writes the host's lists under the host's
 * locks, where its agents are. If the host has no copy of this build, it is copied
 * (checksummed) into the host user's cache folder first, once. The command's output comes
 * back as it is made (a `watch` is live), fitted to the local terminal: with a terminal
 * on both ends, ssh gives the host a terminal of the same size (colour, tables, keys,
 * Ctrl-C); otherwise the local width and colour choice go along. The exit status is the
 * host's; a host that cannot be reached or cannot run tasks is exit 8, named in one line.
 */
import { TasksError } from '../../core/base/errors.js';
import { renderJson } from '../../render/json.js';
import type { IO } from '../runtime/io.js';
import { parseHost, type SshTarget } from './host-address.js';
import type { HostArgv } from './host-argv.js';
import { runOnHost } from './host-run.js';
import { payloadFolder } from './payload.js';

/** Run the command line `hosts` names on its host (or, for `lists`, on each of them). */
export async function runOnHosts(h: HostArgv, io: IO, env: NodeJS.ProcessEnv): Promise<void> {
  if (h.boardHost) {
    throw new TasksError('usage', 'board: --host is now --listen <address> (-H, --host names the host a command runs on)', {
      hint: 'tasks board --listen 0.0.0.0',
    });
  }
  if (h.command === 'board') {
    throw new TasksError('usage', 'the board does not run on a host (-H): start it there and reach it through ssh -L', {
      hint: env.TASKS_HOST ? 'TASKS_HOST is set: TASKS_HOST= tasks board runs it here' : undefined,
    });
  }
  const targets = h.hosts.map(parseHost);
  if (targets.length > 1 && h.command !== 'lists') {
    throw new TasksError(
      'usage',
      `several hosts (-H ${h.hosts.join(' -H ')}) are for tasks lists; name one host for ${h.command ?? 'a command'}`,
    );
  }
  const folder = payloadFolder();
  if (targets.length > 1) {
    const { runListsOnHosts } = await import('./hosts-lists.js');
    return runListsOnHosts(targets, h.args, folder, io, env);
  }
  const target = targets[0] as SshTarget;
  const names = h.command === 'lists' && h.args.includes('--json');
  const run = await runOnHost(target, h.args, folder, io, env, { keepStdout: names });
  if (names) io.write(withHost(run.stdout, target.label));
}

/** `--json` that names lists: each names its host too (the first field). */
export function withHost(json: string, host: string): string {
  if (json.trim() === '') return json;
  try {
    const doc = JSON.parse(json) as unknown;
    if (!Array.isArray(doc)) return json;
    return `${renderJson(doc.map((row) => (row !== null && typeof row === 'object' ? { host, ...row } : row)))}\n`;
  } catch {
    return json;
  }
}
