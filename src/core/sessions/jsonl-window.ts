import fs from 'node:fs';

/**
 * Bounded looks into a JSON Lines file that may be megabytes long, still being written,
 * or not a regular file at all: the first complete lines, or the last ones. Nothing here
 * reads a whole file. A FIFO, a device or a directory is refused (opened non-blocking, so
 * a FIFO with no writer cannot hang us); a symlink loop or a missing file is an error
 * for the caller to treat as "no context".
 */

/** Open for a bounded read: a regular file only. Returns the fd and its size. */
export function openRegular(file: string): { fd: number; size: number; mtimeMs: number; stat: fs.Stats } {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const stat = fs.fstatSync(fd);
  if (!stat.isFile()) {
    fs.closeSync(fd);
    throw Object.assign(new Error('not a regular file'), { code: 'EFTYPE' });
  }
  return { fd, size: stat.size, mtimeMs: stat.mtimeMs, stat };
}

/**
 * Feed complete lines from the start of an open regular file of `size` bytes (as its
 * fstat gave it) to `visit` until it returns true (found what it wanted) or `maxBytes`
 * have been read. A line longer than what is left of the budget is never parsed: it is
 * skipped whole when its end is seen. Reads `chunk` bytes at a time, so the common case
 * (what we want is in the first few KB) costs one read.
 */
export function scanHeadOf(fd: number, size: number, visit: (line: string) => boolean, maxBytes = 256 * 1024, chunk = 4096): void {
  const limit = Math.min(size, maxBytes);
  // Grown as needed: what is wanted is usually in the first chunk.
  let buffer = Buffer.allocUnsafe(Math.max(1, Math.min(limit, chunk)));
  let filled = 0;
  let lineStart = 0;
  while (filled < limit) {
    if (filled === buffer.length) {
      const bigger = Buffer.allocUnsafe(Math.min(limit, buffer.length * 2));
      buffer.copy(bigger, 0, 0, filled);
      buffer = bigger;
    }
    const n = fs.readSync(fd, buffer, filled, Math.min(chunk, buffer.length - filled), filled);
    if (n <= 0) break;
    const end = filled + n;
    let nl = buffer.indexOf(10, filled);
    filled = end;
    while (nl !== -1 && nl < end) {
      if (nl > lineStart && visit(buffer.toString('utf8', lineStart, nl))) return;
      lineStart = nl + 1;
      nl = buffer.indexOf(10, lineStart);
    }
  }
  // A last line without its newline, when the file ends within the budget.
  if (filled === size && lineStart < filled) visit(buffer.toString('utf8', lineStart, filled));
}

/**
 * The complete lines within the last `bytes` of an open regular file of `size` bytes (as
 * its fstat gave it), newest last (the first, partial line of the window is dropped
 * unless the window starts at the beginning of the file).
 */
export function tailLinesOf(fd: number, size: number, bytes: number): string[] {
  const start = Math.max(0, size - bytes);
  const buffer = Buffer.allocUnsafe(size - start);
  let filled = 0;
  while (filled < buffer.length) {
    const n = fs.readSync(fd, buffer, filled, buffer.length - filled, start + filled);
    if (n <= 0) break;
    filled += n;
  }
  const lines = buffer.toString('utf8', 0, filled).split('\n');
  if (start > 0) lines.shift();
  return lines.filter((l) => l.length > 0);
}

/** JSON.parse that answers undefined for anything that is not a JSON object. */
export function parseObject(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
