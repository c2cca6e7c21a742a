import fs from 'node:fs';
import path from 'node:path';

/**
 * Read a small text file we do not own the shape of (settings, a team config, an inbox)
 * without the ways a plain readFileSync can hang or exhaust memory: a FIFO (opened
 * non-blocking and refused), a device or a symlink to one such as /dev/zero (refused: not
 * a regular file), a huge file (refused past `maxBytes`). Symlinks to regular files are
 * followed: settings often live in a dotfiles repository. Failures are thrown as errors
 * with an errno-style `code` (ENOENT, EISDIR, EACCES... or EFTYPE, EFBIG), so callers
 * that already sort readFileSync's errors keep working.
 */
export function readBoundedText(file: string, maxBytes: number): string {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isDirectory()) throw Object.assign(new Error(`${path.basename(file)} is a directory`), { code: 'EISDIR' });
    if (!stat.isFile()) throw Object.assign(new Error(`${path.basename(file)} is not a regular file`), { code: 'EFTYPE' });
    if (stat.size > maxBytes) {
      throw Object.assign(new Error(`${path.basename(file)} is ${stat.size} bytes, over the ${maxBytes}-byte limit`), { code: 'EFBIG' });
    }
    const text = readOpenFile(fd, stat.size, maxBytes);
    if (text === undefined) throw Object.assign(new Error(`${path.basename(file)} is over the ${maxBytes}-byte limit`), { code: 'EFBIG' });
    return text;
  } finally {
    fs.closeSync(fd);
  }
}

/** Settings and team configs: far smaller than this. */
export const MAX_CONFIG_BYTES = 8 * 1024 * 1024;
/**
 * The largest settings file Claude Code reads (2,097,152 bytes, checked against 2.1.328
 * and 2.1.332): a larger one it skips whole, as if it were not there.
 */
export const SETTINGS_MAX_BYTES = 2 * 1024 * 1024;
/** An inbox grows with every message; generous, but bounded. */
export const MAX_INBOX_BYTES = 64 * 1024 * 1024;

/**
 * The text of an open regular file of `size` bytes (by fstat), reading at most
 * maxBytes + 1 since the file may grow meanwhile; undefined when it is over maxBytes.
 */
export function readOpenFile(fd: number, size: number, maxBytes: number): string | undefined {
  const buffer = Buffer.allocUnsafe(Math.min(maxBytes + 1, size + 4096));
  let length = 0;
  while (length < buffer.length) {
    const wanted = buffer.length - length;
    const n = fs.readSync(fd, buffer, length, wanted, null);
    length += n;
    if (n < wanted) break; // a short read of a regular file is its end
  }
  return length > maxBytes ? undefined : buffer.toString('utf8', 0, length);
}
