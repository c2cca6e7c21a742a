import { TasksError } from '../../core/base/errors.js';

/** A host as ssh is told it: the destination (`user@host` or an alias of ~/.ssh/config) and a port. */
export interface SshTarget {
  /** The host as the user wrote it: what messages and `--json` name. */
  label: string;
  destination: string;
  port: string | undefined;
}

/** Where a host was named: on the command line (or in a hosts file), or by $TASKS_HOST, which a refusal names. */
export type HostSource = '-H' | 'TASKS_HOST';

/**
 * `ssh://[user@]host[:port]` (an IPv6 address in brackets) or what ssh itself takes: an
 * alias of ~/.ssh/config, `host`, `user@host`. Anything ssh could read as an option, or
 * that holds a space or a control character, is refused here: it never reaches ssh.
 */
export function parseHost(text: string, from: HostSource = '-H'): SshTarget {
  const named = from === '-H' ? `-H ${JSON.stringify(text)}` : `TASKS_HOST=${JSON.stringify(text)}`;
  const bad = (why: string): TasksError =>
    new TasksError('usage', `${named}: ${why}`, {
      hint: 'give ssh://[user@]host[:port] or a Host alias of ~/.ssh/config',
    });
  if (text === '') throw bad('no host named');
  if (/[\s\u0000-\u001f\u007f]/.test(text)) throw bad('a host name holds no spaces or control characters');
  if (!text.startsWith('ssh://')) {
    if (text.startsWith('-')) throw bad('a host name does not start with "-"');
    if (text.includes('://')) throw bad('only ssh:// is understood');
    return { label: text, destination: text, port: undefined };
  }
  const m = /^ssh:\/\/(?:([^@/]+)@)?(\[[0-9a-fA-F:.]+\]|[^:/@[\]]+)(?::(\d{1,5}))?\/?$/.exec(text);
  if (!m) throw bad('not ssh://[user@]host[:port]');
  const [, user, rawHost, port] = m as unknown as [string, string | undefined, string, string | undefined];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) throw bad(`port ${port} is not 1-65535`);
  const host = rawHost.startsWith('[') ? rawHost.slice(1, -1) : rawHost;
  if (host.startsWith('-') || user?.startsWith('-')) throw bad('a host or user name does not start with "-"');
  return { label: text, destination: user === undefined ? host : `${user}@${host}`, port };
}
