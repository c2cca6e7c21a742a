import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { tasksStateDir } from '../core/base/state-dir.js';
import { newToken } from './board-security.js';

/**
 * What keeps the board's URL the same across restarts, for the same user, config folder
 * and listening address: its token and its port, kept in a file of the user's state
 * folder (`$XDG_STATE_HOME/tasks/`, else `~/.local/state/tasks/`) that only the user can
 * read (0600, in a 0700 folder). A file that others could read, or that is not the
 * user's own, is never trusted: a new token replaces it. `--new-token` rotates the token
 * (a URL that leaked stops working). Without a state folder (no home), the token is new
 * at each start, as before.
 */
export interface BoardIdentity {
  token: string;
  /** The port the board had last time, to be taken again when free. */
  port: number | undefined;
  /** Where it is kept (undefined: nowhere to keep it). */
  file: string | undefined;
}

interface Where {
  xdgStateHome: string | undefined;
  home: string | undefined;
  configDir: string;
  /** The address listened on: a board on another address is another board. */
  host: string;
  uid: number | undefined;
}

const TOKEN = /^[A-Za-z0-9_-]{32,128}$/;

export function identityPath(w: Where): string | undefined {
  const root = tasksStateDir(w);
  if (root === undefined) return undefined;
  const digest = createHash('sha256')
    .update(`${path.resolve(w.configDir)}\n${w.host}`)
    .digest('hex')
    .slice(0, 16);
  return path.join(root, `board-${digest}.json`);
}

/** The kept token and port, when the file is the user's alone and well formed. */
function readKept(file: string, uid: number | undefined): { token: string; port: number | undefined } | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  } catch {
    return undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || (st.mode & 0o077) !== 0 || (uid !== undefined && st.uid !== uid) || st.size > 4096) return undefined;
    const doc = JSON.parse(fs.readFileSync(fd, 'utf8')) as { token?: unknown; port?: unknown };
    if (typeof doc.token !== 'string' || !TOKEN.test(doc.token)) return undefined;
    const port = typeof doc.port === 'number' && Number.isInteger(doc.port) && doc.port > 0 && doc.port < 65536 ? doc.port : undefined;
    return { token: doc.token, port };
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** The board's token and last port: the kept ones, or a new token (kept once the board listens: keepIdentity). */
export function loadIdentity(w: Where, rotate: boolean): BoardIdentity {
  const file = identityPath(w);
  const kept = file === undefined ? undefined : readKept(file, w.uid);
  return { token: (rotate ? undefined : kept?.token) ?? newToken(), port: kept?.port, file };
}

/** Keep the token and port for the next start: written whole (a temporary file renamed), 0600. */
export function keepIdentity(identity: BoardIdentity, port: number): void {
  const file = identity.file;
  if (file === undefined) return;
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.rmSync(tmp, { force: true });
  const fd = fs.openSync(tmp, 'wx', 0o600);
  try {
    fs.writeFileSync(fd, `${JSON.stringify({ token: identity.token, port })}\n`);
    fs.fchmodSync(fd, 0o600);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}
