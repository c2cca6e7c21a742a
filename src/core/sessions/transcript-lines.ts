import fs from 'node:fs';
import path from 'node:path';

/**
 * Reading whole transcripts in bounded steps: transcripts grow to megabytes (gigabytes
 * over a year), so they are read in 1 MB pieces, searched as bytes for what a wanted line
 * must hold, and only the lines that match are decoded. A scan can start where an
 * earlier one stopped (after its last complete line): a transcript only grows, so a
 * grown one is read from there on (transcript-store.ts).
 */
const CHUNK = 1024 * 1024;
/** A line past this is no Task-tool call or result (they are small): skipped unread. */
const MAX_LINE = 4 * 1024 * 1024;
/**
 * The 1 MB a scan reads into, one for every scan (they are synchronous, and a scan's
 * visitor starts none): a fresh one a transcript was most of what reading thousands of
 * them allocated.
 */
let chunkBuffer: Buffer | undefined;

/**
 * Feed `visit` every line of `file` that holds one of `needles`, in file order, a last
 * line without its newline included. The file is read in 1 MB pieces and searched as
 * bytes; only the lines that match are decoded. A line over MAX_LINE bytes is skipped.
 */
export function forEachMatchingLine(file: string, needles: readonly string[], visit: (line: string) => void): void {
  const patterns = needles.map((n) => Buffer.from(n));
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    if (!fs.fstatSync(fd).isFile()) return;
    const end = scanLines(fd, 0, Number.POSITIVE_INFINITY, patterns, visit);
    visitLastLine(fd, end, Number.POSITIVE_INFINITY, patterns, visit);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Feed `visit` the complete lines of bytes [from, to) of an open file that hold one of
 * `patterns`, in order; `from` must be the start of a line. Returns the offset just after
 * the last newline read: where a later scan of the same file goes on.
 */
export function scanLines(fd: number, from: number, to: number, patterns: readonly Buffer[], visit: (line: string) => void): number {
  let buffer = to - from >= CHUNK ? (chunkBuffer ??= Buffer.allocUnsafe(CHUNK)) : Buffer.allocUnsafe(Math.max(1, to - from));
  let base = from; // the file offset of buffer[0]
  let kept = 0; // an unfinished line carried over at the start of `buffer`
  let position = from;
  let end = from;
  while (position < to) {
    if (kept === buffer.length) {
      if (buffer.length >= MAX_LINE) {
        // too long to be a Task-tool entry: dropped
        base += kept;
        kept = 0;
      } else {
        const bigger = Buffer.allocUnsafe(Math.min(buffer.length * 2, MAX_LINE));
        buffer.copy(bigger, 0, 0, kept);
        buffer = bigger;
      }
    }
    const n = fs.readSync(fd, buffer, kept, Math.min(buffer.length - kept, to - position), position);
    if (n <= 0) break;
    position += n;
    const filled = kept + n;
    // The carried part holds no newline: the last one, if any, is in what was just read.
    const last = buffer.lastIndexOf(10, filled - 1);
    if (last < 0) {
      kept = filled;
      continue;
    }
    visitMatches(buffer.subarray(0, last + 1), patterns, visit);
    end = base + last + 1;
    buffer.copy(buffer, 0, last + 1, filled);
    base = end;
    kept = filled - last - 1;
  }
  return end;
}

/** Feed `visit` the unfinished last line of bytes [from, to) (no newline after it), if it matches. */
export function visitLastLine(fd: number, from: number, to: number, patterns: readonly Buffer[], visit: (line: string) => void): void {
  const size = Math.min(to, fs.fstatSync(fd).size);
  if (size <= from || size - from > MAX_LINE) return;
  const buffer = Buffer.allocUnsafe(size - from);
  let filled = 0;
  while (filled < buffer.length) {
    const n = fs.readSync(fd, buffer, filled, buffer.length - filled, from + filled);
    if (n <= 0) break;
    filled += n;
  }
  // Up to a newline written since (the line was finished meanwhile): only that line.
  const nl = buffer.subarray(0, filled).indexOf(10);
  visitMatches(buffer.subarray(0, nl === -1 ? filled : nl), patterns, visit);
}

/** The lines of `region` (whole lines) that hold a pattern, decoded, in order, each once. */
function visitMatches(region: Buffer, patterns: readonly Buffer[], visit: (line: string) => void): void {
  if (patterns.length === 1) {
    // One pattern: lines come in order already.
    const p = patterns[0] as Buffer;
    for (let at = region.indexOf(p); at !== -1; ) {
      const start = region.lastIndexOf(10, at) + 1;
      const nl = region.indexOf(10, at);
      const stop = nl === -1 ? region.length : nl;
      visit(region.toString('utf8', start, stop));
      at = nl === -1 ? -1 : region.indexOf(p, stop + 1);
    }
    return;
  }
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

/** A session's transcripts: its own, and its subagents' (`<session>/subagents/*.jsonl`). */
export function sessionTranscripts(transcript: string, sessionId: string): Array<{ file: string; agent?: string | undefined }> {
  const files: Array<{ file: string; agent?: string | undefined }> = [{ file: transcript }];
  const dir = path.join(path.dirname(transcript), sessionId, 'subagents');
  try {
    for (const name of fs.readdirSync(dir)) {
      if (name.endsWith('.jsonl')) files.push({ file: path.join(dir, name), agent: name.replace(/\.jsonl$/, '') });
    }
  } catch {
    // no subagents
  }
  return files;
}
