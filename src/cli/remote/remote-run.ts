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
import { loadColour } from '../../render/style.js';
import type { IO } from '../runtime/io.js';
import { parseHost, type SshTarget } from './host-address.js';
import { BROKER_COMMAND, disconnectWords, type HostArgv } from './host-argv.js';
import { disconnect } from './host-broker-client.js';
import { runOnHost } from './host-run.js';
import { hostsFilePath, readHostsFile } from './hosts-file.js';
import { payloadFolder } from './payload.js';
import type { SshOutcome } from './ssh-process.js';

/**
 * One run of a command line that names a host (`node tasks ...` and what host-argv.ts
 * found in it): the exit code, the host's or 8; every failure is one line, as a run here
 * reports it. The process runs this from its own small bundle (main.ts), so that a
 * command on a host does not wait for this machine to load the whole CLI first.
 */
export async function runRemote(argv: readonly string[], h: HostArgv, io: IO, env: NodeJS.ProcessEnv): Promise<number> {
  // Colour is for what is said here (errors, a warning, the several-hosts table): loaded while ssh starts, not before.
  const colour = io.mayColour(argv) ? loadColour() : Promise.resolve();
  try {
    io.useFlags(() => ({ json: h.args.includes('--json'), color: h.args.includes('--no-color') ? false : undefined }));
    if (h.refused !== undefined) throw new TasksError('usage', h.refused);
    await runOnHosts(h, io, env, colour);
  } catch (err) {
    await colour;
    io.fail(err);
    if (env.TASKS_DEBUG && err instanceof Error) io.writeErr(`${err.stack}\n`);
  }
  return io.exitCode;
}

/** Run the command line `hosts` names on its host (or, for `lists`, on each of them). */
async function runOnHosts(h: HostArgv, io: IO, env: NodeJS.ProcessEnv, colour: Promise<void>): Promise<void> {
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
  const disconnecting = disconnectWords(h.args);
  if (h.command === BROKER_COMMAND || disconnecting !== undefined) {
    if (h.hosts.length !== 1 || (disconnecting ?? h.args).length !== 1)
      throw new TasksError('usage', '--disconnect: name one host and nothing else (tasks -H box --disconnect)');
    const target = parseHost(h.hosts[0] as string, h.from);
    if (h.command === BROKER_COMMAND) await (await import('./host-broker.js')).runBroker(target, env);
    else await disconnect(target, io, env);
    return;
  }
  // A usage error known here is said here, as a run here says it, before ssh is started.
  const { usageErrorOf, usageSpec } = await import('./usage-check.js');
  const refused = usageErrorOf(h.args, await usageSpec());
  if (refused !== undefined) throw refused;
  const targets = uniqueHosts([
    ...h.hosts.map((host) => parseHost(host, h.from)),
    ...(h.hostsFile === undefined ? [] : hostsOfFile(h.hostsFile, env)),
  ]);
  if (targets.length > 1 && h.command !== 'lists') {
    throw new TasksError(
      'usage',
      `several hosts (-H ${targets.map((t) => t.label).join(' -H ')}) are for tasks lists; name one host for ${h.command ?? 'a command'}`,
    );
  }
  const folder = await payloadFolder();
  // Hosts named several times, or from a file, answer as several (HOST first), whatever their number: a script reads one form.
  if (h.command === 'lists' && (targets.length > 1 || h.hosts.length > 1 || h.hostsFile !== undefined)) {
    const { runListsOnHosts } = await import('./hosts-lists.js');
    await colour;
    return runListsOnHosts(targets, h.args, folder, io, env);
  }
  const target = targets[0] as SshTarget;
  const names = h.command !== undefined && NAMES_LISTS.has(h.command) && h.args.includes('--json');
  const relay = h.command === undefined ? undefined : RELAYED.get(h.command);
  const run = await runOnHost(target, h.args, folder, io, env, { keepStdout: names, relay, command: h.command });
  if (names) io.write(withHost(run.stdout, target.label));
  await colour;
  if (h.command === 'doctor') sayClockSkew(run, target, io);
}

/**
 * The commands whose answer the host makes for the local streams, as a run here would
 * make it (relay.ts): the reads, and the changes that never ask a question nor draw a
 * live view (`claim` only asks whether a person is at the terminal). The others (`delete`,
 * which may ask; `watch`, `run`, `notify`) get a terminal there when there is one here,
 * or the local width and colour choice when piped.
 */
const RELAYED: ReadonlyMap<string, 'read' | 'change'> = new Map([
  ...(['list', 'ls', 'get', 'lists', 'log', 'doctor', 'graph', 'cost', 'export'] as const).map((c) => [c, 'read'] as const),
  ...(
    ['create', 'update', 'start', 'done', 'claim', 'release', 'block', 'unblock', 'undo', 'redo', 'carry', 'restore', 'check'] as const
  ).map((c) => [c, 'change'] as const),
]);

/** How far a host's clock may be off this machine's before doctor says so. */
const CLOCK_SKEW_MS = 5000;

/**
 * doctor on a host: is its clock off this machine's? Its clock when it said ready lies
 * between ssh's start and the ready line's arrival here, if the clocks agree; outside that
 * by more than a few seconds, they do not. It matters to a list shared through a network
 * filesystem: a lock counts as stale by its age, read against each machine's own clock.
 */
function sayClockSkew(run: SshOutcome, target: SshTarget, io: IO): void {
  const c = run.clock;
  if (c === undefined) return;
  const ahead = c.host > c.received + CLOCK_SKEW_MS ? c.host - c.received : c.host < c.sent - CLOCK_SKEW_MS ? c.host - c.sent : 0;
  if (ahead === 0) return;
  const s = Math.round(Math.abs(ahead) / 1000);
  io.warn(
    `host ${target.label}: its clock is ${s}s ${ahead > 0 ? 'ahead of' : 'behind'} this machine's; keep the machines' clocks in step (NTP) where they share a list: a lock counts as stale by its age`,
    'host_clock_skew',
    { host: target.label, aheadMs: Math.round(ahead) },
  );
}

export function hostsOfFile(file: string | true, env: NodeJS.ProcessEnv): SshTarget[] {
  if (file === '') throw new TasksError('usage', '--hosts=: no file named', { hint: 'use --hosts alone for ~/.config/tasks/hosts' });
  const where = file === true ? hostsFilePath(env) : file;
  if (where === undefined)
    throw new TasksError('usage', '--hosts: no home folder to find the hosts file in', { hint: 'use --hosts=<file>' });
  return readHostsFile(where);
}

/** A host named twice (on the command line and in the file) is asked once. */
export function uniqueHosts(targets: readonly SshTarget[]): SshTarget[] {
  const seen = new Set<string>();
  return targets.filter((t) => !seen.has(t.label) && Boolean(seen.add(t.label)));
}

/**
 * The commands whose `--json` is one document (not a stream) that names lists or
 * sessions: over -H, it names the host too. `lists` and `log` are rows, each naming its
 * list; the others one object.
 */
const NAMES_LISTS: ReadonlySet<string> = new Set(['lists', 'log', 'doctor', 'cost', 'graph', 'import', 'restore']);

/** `--json` that names lists or sessions: the host too, the first field of the document or of each row. */
export function withHost(json: string, host: string): string {
  if (json.trim() === '') return json;
  const named = (v: unknown): unknown => (v !== null && typeof v === 'object' && !Array.isArray(v) ? { host, ...v } : v);
  try {
    const doc = JSON.parse(json) as unknown;
    return `${renderJson(Array.isArray(doc) ? doc.map(named) : named(doc))}\n`;
  } catch {
    return json;
  }
}
