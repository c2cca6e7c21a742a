import { readBoundedText } from './bounded-read.js';

/**
 * The home directory of a user by login name, as a shell expands `~name`: from the
 * password file (`/etc/passwd`: name, password, uid, gid, gecos, home, shell). Undefined
 * when there is no such user or no such file (another system, a directory service the
 * file does not list: then `~name` stays as it was typed).
 */
export function homeOfUser(name: string, passwd = '/etc/passwd'): string | undefined {
  if (!/^[A-Za-z0-9_.][A-Za-z0-9_.-]*\$?$/.test(name)) return undefined;
  let text: string;
  try {
    text = readBoundedText(passwd, 16 * 1024 * 1024);
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    const fields = line.split(':');
    const home = fields[5];
    if (fields[0] === name && fields.length >= 7 && home?.startsWith('/')) return home;
  }
  return undefined;
}
