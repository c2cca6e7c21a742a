/**
 * The kept connection to a host (host-broker.ts): where its socket is, how long it is
 * kept, and the JSON lines its three parts speak. Kept free of heavy imports: every
 * command on a host asks it first.
 *
 * - The local command -> the broker (its Unix socket): one line, `LinkRequest`.
 * - The broker -> the host's `tasks __host-serve` (ssh's stdin): `HostRequest` lines, or
 *   `{"i": n, "cancel": true}` for a command whose caller went away before it started.
 * - The host -> the broker (ssh's stdout): `{"ready": true}` once, then per command
 *   `{"i": n, "t": <its clock>}` as it starts, the relay's `{"i": n, "o"|"e": text}`
 *   (relay.ts), and `{"i": n, "x": <exit status>}` as it ends.
 * - The broker -> the local command: `{"s": 1}` once the command is handed to the host
 *   (from then on it may run there), the host's lines as they come, and the last one:
 *   `{"x": status}`, or `{"f": <fault>}` (`LinkFault`).
 */
import path from 'node:path';
import type { SshTarget } from './host-address.js';

import type { RelayView } from './relay.js';
import { privateDir } from './ssh-command.js';

/** How long a kept connection waits for the next command before it closes (seconds), unless TASKS_HOST_PERSIST says otherwise. */
const DEFAULT_PERSIST_S = 600;

/** What the local command asks of the broker. */
export interface LinkRequest {
  /** The broker's key file's content: proof that the caller can read this user's private folder. */
  key: string;
  /** The build of tasks asking (payload.ts's folder name): a broker of another build does not answer. */
  build: string;
  /** Close the kept connection (`tasks -H box --disconnect`) instead of running a command. */
  stop?: boolean;
  args?: string[];
  env?: Record<string, string | null>;
  view?: RelayView;
}

/** One command for the host's tasks. */
export interface HostRequest {
  i: number;
  args: string[];
  env: Record<string, string | null>;
  view: RelayView;
}

/**
 * Why the broker did not answer: `unavailable` (the host is not reached, or the broker is
 * closing) and `build` (another build of tasks) before the command was handed on: the
 * caller runs it over ssh instead; `lost` after: it may have run there.
 */
export type LinkFault = 'unavailable' | 'build' | 'lost';

/** The seconds a kept connection stays up without a command; 0: none is kept (TASKS_HOST_PERSIST=0 or no). */
export function persistSeconds(env: NodeJS.ProcessEnv): number {
  const raw = env.TASKS_HOST_PERSIST;
  if (raw === undefined || raw.trim() === '') return DEFAULT_PERSIST_S;
  if (/^(no|off|false)$/i.test(raw.trim())) return 0;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 && n <= 7 * 24 * 3600 ? n : DEFAULT_PERSIST_S;
}

/** The broker's files for a host: its socket, its key file, its start lock; undefined when no private folder can hold them. */
export function linkPaths(target: SshTarget, env: NodeJS.ProcessEnv): { socket: string; key: string; lock: string } | undefined {
  const dir = privateDir(env, 'hosts');
  if (dir === undefined) return undefined;
  // One broker per host and ssh command line: the same host reached another way is another connection.
  // A command line of the user's own may name files by relative paths (ssh -F ./ci-ssh-config): in another folder it is another.
  const where = sshCommandFolder(env);
  if (where === null) return undefined;
  const name = fnv1a64(
    `${target.destination}\0${target.port ?? ''}\0${env.TASKS_SSH_COMMAND ?? ''}${where === undefined ? '' : `\0${where}`}`,
  );
  const base = path.join(dir, name);
  return { socket: `${base}.sock`, key: `${base}.key`, lock: `${base}.lock` };
}

/**
 * The folder a custom ssh command line (TASKS_SSH_COMMAND) runs in, the caller's, where its
 * relative paths point; undefined without one (ssh's own runs anywhere); null when the
 * current folder is gone.
 */
export function sshCommandFolder(env: NodeJS.ProcessEnv): string | undefined | null {
  if (env.TASKS_SSH_COMMAND === undefined || env.TASKS_SSH_COMMAND.trim() === '') return undefined;
  try {
    return process.cwd();
  } catch {
    return null;
  }
}

/** A short name for a host's files (FNV-1a, 64 bits, hex): node:crypto would cost every command its load time. */
function fnv1a64(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(text, 'utf8')) {
    h ^= BigInt(byte);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, '0');
}
