import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cacheRoot } from '../../core/cache/cache-location.js';
import type { SshTarget } from './host-address.js';

/** How long ssh may take to connect and finish its handshake, unless TASKS_SSH_TIMEOUT says otherwise (seconds). */
const DEFAULT_CONNECT_TIMEOUT_S = 10;
/** How long the shared connection stays open after the last command (seconds). */
const CONTROL_PERSIST_S = 60;
/** A Unix socket's path must fit in sun_path (104 bytes on macOS); %C is 40 characters. */
const MAX_SOCKET_DIR = 104 - 42;

/** The program and arguments that run `remoteCommand` on `target` with the user's own ssh. */
export interface SshCall {
  file: string;
  args: string[];
  connectTimeoutS: number;
}

/**
 * The system's ssh (never one of our own): the user's config, agent, keys and
 * known_hosts, with what a program needs on top. BatchMode: never a question nobody can
 * answer (a password, an unknown host key); a connect timeout (TASKS_SSH_TIMEOUT); keep-alives,
 * so that a dropped connection ends a long `watch`; LogLevel=ERROR, so that ssh's chatter
 * ("Connection to ... closed.") never mixes with the output; and a private ControlMaster
 * (its socket in a folder only this user can enter), so that repeated commands share one
 * connection. `TASKS_SSH_COMMAND` replaces `ssh` and its own options, as GIT_SSH_COMMAND
 * does for git: it is run by sh, and ssh takes the first value it is given for an
 * option, so the user's `-o` options there win over these.
 */
export function sshCall(target: SshTarget, remoteCommand: string, opts: { tty: boolean; env: NodeJS.ProcessEnv }): SshCall {
  const connectTimeoutS = connectTimeout(opts.env);
  const options = [
    '-o',
    'BatchMode=yes',
    '-o',
    `ConnectTimeout=${connectTimeoutS}`,
    '-o',
    'ServerAliveInterval=5',
    '-o',
    'ServerAliveCountMax=2',
    '-o',
    'LogLevel=ERROR',
    ...controlOptions(opts.env),
    opts.tty ? '-tt' : '-T',
    ...(target.port === undefined ? [] : ['-p', target.port]),
    '--',
    target.destination,
    remoteCommand,
  ];
  const custom = opts.env.TASKS_SSH_COMMAND;
  if (custom !== undefined && custom.trim() !== '') {
    return { file: '/bin/sh', args: ['-c', `exec ${custom} "$@"`, 'tasks-ssh', ...options], connectTimeoutS };
  }
  return { file: 'ssh', args: options, connectTimeoutS };
}

/** The connect timeout ssh is given (seconds). */
export function connectTimeout(env: NodeJS.ProcessEnv): number {
  const n = Number(env.TASKS_SSH_TIMEOUT);
  return Number.isInteger(n) && n > 0 && n <= 3600 ? n : DEFAULT_CONNECT_TIMEOUT_S;
}

/**
 * The shared connection's options, or none when no private folder can hold its socket
 * (then each command connects anew: slower, never wrong). The folder: tasks' own in
 * $XDG_RUNTIME_DIR, else `ssh/` in tasks' cache folder; made 0700, and used only when it
 * is ours and nobody else may enter it, so nobody else can ride the connection.
 */
function controlOptions(env: NodeJS.ProcessEnv): string[] {
  const dir = privateDir(env, 'ssh');
  if (dir === undefined) return [];
  return ['-o', 'ControlMaster=auto', '-o', `ControlPath=${dir}/%C`, '-o', `ControlPersist=${CONTROL_PERSIST_S}`];
}

/**
 * A folder of tasks' own that only this user may enter (`ssh`: the shared connections'
 * sockets; `hosts`: the kept connections' sockets, host-broker.ts), or undefined.
 */
export function privateDir(env: NodeJS.ProcessEnv, name: 'ssh' | 'hosts'): string | undefined {
  const runtime = env.XDG_RUNTIME_DIR;
  const root =
    runtime !== undefined && path.isAbsolute(runtime)
      ? path.join(runtime, 'tasks')
      : cacheRoot({ xdgCacheHome: env.XDG_CACHE_HOME, home: env.HOME || os.homedir() });
  if (root === undefined) return undefined;
  const dir = path.join(root, name);
  if (dir.length > MAX_SOCKET_DIR || /[\s%]/.test(dir)) return undefined;
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = fs.statSync(dir);
    const mine = (s: fs.Stats) => typeof process.getuid !== 'function' || s.uid === process.getuid();
    // The folder holding it too: whoever may write there may swap ours for theirs between this check and its use.
    const parent = fs.statSync(root);
    // And the folder above that (the runtime folder): its owner or root, writable by others only with the sticky bit (as /tmp).
    const holder = fs.statSync(path.dirname(root));
    const holderSafe = (mine(holder) || holder.uid === 0) && ((holder.mode & 0o022) === 0 || (holder.mode & 0o1000) !== 0);
    return stat.isDirectory() && mine(stat) && (stat.mode & 0o077) === 0 && mine(parent) && (parent.mode & 0o022) === 0 && holderSafe
      ? dir
      : undefined;
  } catch {
    return undefined;
  }
}
