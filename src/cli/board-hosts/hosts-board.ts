/**
 * `tasks board -H a -H b` (and `--hosts`, `$TASKS_HOST`): the hosts a board shows, each
 * checked as `-H` checks it (exit 2 for a bad one), and how each host's board is reached
 * over the user's own ssh (ssh-feed.ts). The board itself (src/board, started by
 * commands/board.ts) merges them; this folder knows ssh, that one knows boards.
 */
import { TasksError } from '../../core/base/errors.js';
import { parseHost, type SshTarget } from '../remote/host-address.js';
import type { HostArgv } from '../remote/host-argv.js';
import { payloadFolder } from '../remote/payload.js';
import { hostsOfFile, uniqueHosts } from '../remote/remote-run.js';
import type { HostFeed } from '../runtime/context.js';
import type { IO } from '../runtime/io.js';
import { answerDeadlineMs, sshFeed } from './ssh-feed.js';

/** A listening address given as `board --host` (its old name for --listen): not a host to show. */
const LISTEN_ADDRESS = /^(localhost|0\.0\.0\.0|::|::1|\d{1,3}(\.\d{1,3}){3})$/;

export async function boardHostFeeds(h: HostArgv, io: IO, env: NodeJS.ProcessEnv): Promise<HostFeed[]> {
  if (h.boardHost) {
    const address = h.hosts.find((x) => LISTEN_ADDRESS.test(x));
    if (address !== undefined)
      throw new TasksError('usage', 'board: --host is now --listen <address> (-H, --host names the host a command runs on)', {
        hint: `tasks board --listen ${address}`,
      });
  }
  const targets: SshTarget[] = uniqueHosts([
    ...h.hosts.map((host) => parseHost(host, h.from)),
    ...(h.hostsFile === undefined ? [] : hostsOfFile(h.hostsFile, env)),
  ]);
  const folder = await payloadFolder();
  return targets.map((t) => ({ label: t.label, connect: sshFeed(t, folder, io, env), deadlineMs: answerDeadlineMs(env) }));
}
