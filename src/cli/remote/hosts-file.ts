import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isTasksError, TasksError } from '../../core/base/errors.js';
import { parseHost, type SshTarget } from './host-address.js';

/**
 * The hosts file `--hosts` reads: `$XDG_CONFIG_HOME/tasks/hosts` when that is an absolute
 * path, else `~/.config/tasks/hosts` (where tasks keeps its other settings, prices.json).
 */
export function hostsFilePath(env: NodeJS.ProcessEnv): string | undefined {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg !== undefined && xdg !== '' && path.isAbsolute(xdg)) return path.join(xdg, 'tasks', 'hosts');
  const home = env.HOME || os.homedir();
  return home !== '' && path.isAbsolute(home) ? path.join(home, '.config', 'tasks', 'hosts') : undefined;
}

/**
 * The hosts of a hosts file: one a line, as `-H` takes it (an ssh alias,
 * `ssh://[user@]host[:port]`); blank lines and `#` comments are skipped. A file that
 * cannot be read, names no host, or holds a name `-H` refuses is an error naming the
 * file and the line: a fleet asked about with one host silently left out would be a
 * wrong answer.
 */
export function readHostsFile(file: string): SshTarget[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new TasksError('usage', `--hosts: cannot read ${file} (${code ?? 'unreadable'})`, {
      hint: 'write one host a line there (an ssh alias or ssh://[user@]host[:port]), or name hosts with -H',
    });
  }
  const targets: SshTarget[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') return;
    try {
      targets.push(parseHost(line));
    } catch (err) {
      if (!isTasksError(err)) throw err;
      throw new TasksError('usage', `--hosts: ${file} line ${i + 1}: ${err.message}`, { hint: err.hint });
    }
  });
  if (targets.length === 0) throw new TasksError('usage', `--hosts: ${file} names no host`, { hint: 'write one host a line there' });
  return targets;
}
