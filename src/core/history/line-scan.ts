import fs from 'node:fs';

/**
 * Reading line files (the journal, transcripts) in bounded steps: from their end, from a
 * point in time found by bisection, or forward in pieces that yield between reads so a
 * signal can stop the reader. Nothing here reads a whole file into memory, and no line
 * longer than MAX_SCAN_LINE is decoded: such a line is no record of ours or of a Task tool.
 */
export const MAX_SCAN_LINE = 16 * 1024 * 1024;
const CHUNK = 1024 * 1024;
const BACK_CHUNK = 64 * 1024;
/** How far a probe of the bisection reads looking for a timed line. */
const PROBE_BYTES = 1024 * 1024;

/** Read `length` bytes at `position` (fewer at the end of the file). */
function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const n = fs.readSync(fd, buffer, filled, length - filled, position + filled);
    if (n <= 0) break;
    filled += n;
  }
  return buffer.subarray(0, filled);
}

/**
 * Visit the lines that end at or before byte `end` of `fd`, last first, each with the
 * offset where it starts, until `visit` returns true or `maxBytes` have been read. Lines
 * longer than MAX_SCAN_LINE are skipped. Returns whether the start of the file was reached.
 */
export function forEachLineBackward(
  fd: number,
  end: number,
  visit: (line: Buffer, offset: number) => boolean | undefined,
  maxBytes: number = Number.POSITIVE_INFINITY,
): boolean {
  let position = end;
  let tail: Buffer[] = []; // the start of the line being read backward is not known yet
  let tailLength = 0;
  let read = 0;
  let skipping = false;
  // Most lines wanted are near the end: a small read first, larger ones after.
  for (let size = 4096; position > 0; size = BACK_CHUNK) {
    if (read >= maxBytes) return false;
    const length = Math.min(size, position);
    position -= length;
    read += length;
    const chunk = readAt(fd, position, length);
    let lineEnd = chunk.length;
    for (let nl = chunk.lastIndexOf(10, lineEnd - 1); nl !== -1; nl = lineEnd > 0 ? chunk.lastIndexOf(10, lineEnd - 1) : -1) {
      const piece = chunk.subarray(nl + 1, lineEnd);
      const line = tail.length === 0 ? piece : Buffer.concat([piece, ...tail]);
      if (!skipping && line.length > 0 && visit(line, position + nl + 1)) return true;
      tail = [];
      tailLength = 0;
      skipping = false;
      lineEnd = nl;
    }
    if (!skipping) {
      tail.unshift(chunk.subarray(0, lineEnd));
      tailLength += lineEnd;
      if (tailLength > MAX_SCAN_LINE) {
        skipping = true;
        tail = [];
        tailLength = 0;
      }
    }
  }
  if (!skipping && tailLength > 0) visit(Buffer.concat(tail), 0);
  return true;
}

/**
 * An offset at or after which every line's time (by `timeOf`, undefined for lines that
 * tell none) is after `t`, found by bisection over byte offsets: for files appended in
 * time order, as the journal and transcripts are. Where a probe finds no timed line near
 * it (a long line, a hole), the answer is taken to be later: the offset returned may be
 * later than the first line after `t`, never earlier, so reading backward from it misses
 * nothing (readers skip what is after `t`).
 */
export function offsetAfter(fd: number, size: number, t: number, timeOf: (line: Buffer) => number | undefined): number {
  let low = 0; // lines starting before `low` are at or before t (or tell no time)
  let high = size; // a line starting at `high` is after t (or the end)
  while (high - low > BACK_CHUNK) {
    const mid = Math.floor((low + high) / 2);
    const found = firstTimedLineFrom(fd, mid, high, timeOf);
    if (found !== undefined && found.time > t) high = found.offset;
    else low = found === undefined ? mid : found.next;
  }
  return high;
}

/** The first whole line starting after `from` (or at 0) with a time, before `limit`, within PROBE_BYTES. */
function firstTimedLineFrom(
  fd: number,
  from: number,
  limit: number,
  timeOf: (line: Buffer) => number | undefined,
): { offset: number; next: number; time: number } | undefined {
  let offset = from;
  if (from > 0) {
    // Skip to the start of the next line.
    const start = nextLineStart(fd, from - 1, limit);
    if (start === undefined) return undefined;
    offset = start;
  }
  const budget = from + PROBE_BYTES;
  while (offset < limit && offset < budget) {
    const end = nextLineStart(fd, offset, limit);
    if (end === undefined) return undefined;
    if (end - offset <= PROBE_BYTES) {
      const line = readAt(fd, offset, end - offset);
      const time = timeOf(line[line.length - 1] === 10 ? line.subarray(0, -1) : line);
      if (time !== undefined) return { offset, next: end, time };
    }
    offset = end;
  }
  return undefined;
}

/** The offset just past the next newline at or after `from`, before `limit`; none within PROBE_BYTES: undefined. */
function nextLineStart(fd: number, from: number, limit: number): number | undefined {
  const stop = Math.min(limit, from + PROBE_BYTES);
  // Lines are mostly short: a small read first, larger ones after.
  for (let position = from, size = 4096; position < stop; position += size, size = BACK_CHUNK) {
    const chunk = readAt(fd, position, Math.min(size, stop - position));
    const nl = chunk.indexOf(10);
    if (nl !== -1) return position + nl + 1;
    if (chunk.length === 0) return undefined;
  }
  return undefined;
}

export interface ScanOptions {
  /** Stops the scan between two reads (a Ctrl-C): it then throws the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Read at most this many bytes, from the end of the file (a larger file is read from there). */
  maxBytes?: number;
}

export interface ScanResult {
  /** The file was read from this offset (0: whole). */
  from: number;
  size: number;
}

/**
 * Visit every line of `file` that holds one of `needles`, in file order, reading 1 MB
 * at a time and giving the event loop a turn between reads, so that a signal is handled
 * within one read. The bytes are searched; only matching lines are decoded. Not a
 * regular file (a FIFO, a device): nothing is read.
 */
export async function scanMatchingLines(
  file: string,
  needles: readonly string[],
  visit: (line: string) => void,
  opts: ScanOptions = {},
): Promise<ScanResult> {
  const patterns = needles.map((n) => Buffer.from(n));
  const handle = await fs.promises.open(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { from: 0, size: 0 };
    const size = stat.size;
    const from = Math.max(0, size - (opts.maxBytes ?? Number.POSITIVE_INFINITY));
    let position = from;
    let buffer = Buffer.allocUnsafe(CHUNK);
    let kept = 0; // an unfinished line carried over at the start of `buffer`
    let skipFirst = from > 0; // reading from the middle: the first line is a part of one
    let skipping = false; // inside a line too long to be a record
    while (position < size) {
      opts.signal?.throwIfAborted();
      if (kept === buffer.length) {
        if (buffer.length >= MAX_SCAN_LINE) {
          kept = 0;
          skipping = true;
        } else {
          const bigger = Buffer.allocUnsafe(buffer.length * 2);
          buffer.copy(bigger, 0, 0, kept);
          buffer = bigger;
        }
      }
      const { bytesRead } = await handle.read(buffer, kept, Math.min(buffer.length - kept, size - position), position);
      if (bytesRead <= 0) break;
      position += bytesRead;
      const end = kept + bytesRead;
      const last = buffer.lastIndexOf(10, end - 1);
      if (last < 0) {
        kept = end;
        continue;
      }
      let start = 0;
      if (skipFirst || skipping) {
        start = buffer.indexOf(10) + 1;
        skipFirst = false;
        skipping = false;
      }
      if (start <= last) visitMatches(buffer.subarray(start, last + 1), patterns, visit);
      buffer.copy(buffer, 0, last + 1, end);
      kept = end - last - 1;
    }
    if (kept > 0 && !skipFirst && !skipping) visitMatches(buffer.subarray(0, kept), patterns, visit); // a last line with no newline
    return { from, size };
  } finally {
    await handle.close();
  }
}

/** The lines of `region` (whole lines) that hold a pattern, decoded, in order, each once. */
export function visitMatches(region: Buffer, patterns: readonly Buffer[], visit: (line: string) => void): void {
  const starts = new Set<number>();
  for (const p of patterns) {
    for (let at = region.indexOf(p); at !== -1; at = region.indexOf(p, at + p.length)) {
      starts.add(region.lastIndexOf(10, at) + 1);
    }
  }
  for (const start of [...starts].sort((a, b) => a - b)) {
    const nl = region.indexOf(10, start);
    visit(region.toString('utf8', start, nl === -1 ? region.length : nl));
  }
}

/** Open `file` for reading without following a symlink or blocking on a FIFO; undefined when it is not a regular file or missing. */
export function openRegular(file: string): { fd: number; size: number; mtimeMs: number } | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  const stat = fs.fstatSync(fd);
  if (!stat.isFile()) {
    fs.closeSync(fd);
    return undefined;
  }
  return { fd, size: stat.size, mtimeMs: stat.mtimeMs };
}
