import fs from 'node:fs';
import path from 'node:path';

/**
 * Reading whole transcripts in bounded steps: transcripts grow to megabytes (gigabytes
 * over a year), so they are read in 1 MB pieces, searched as bytes for what a wanted line
 * must hold, and only the lines that match are decoded.
 */
const CHUNK = 1024 * 1024;
/** A line past this is no Task-tool call or result (they are small): skipped unread. */
const MAX_LINE = 4 * 1024 * 1024;

/**
 * Feed `visit` every line of `file` that holds one of `needles`, in file order. The file
 * is read in 1 MB pieces and searched as bytes; only the lines that match are decoded.
 * A line over MAX_LINE bytes is skipped.
 */
export function forEachMatchingLine(file: string, needles: readonly string[], visit: (line: string) => void): void {
  const patterns = needles.map((n) => Buffer.from(n));
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    if (!fs.fstatSync(fd).isFile()) return;
    let buffer = Buffer.allocUnsafe(CHUNK);
    let kept = 0; // an unfinished line carried over at the start of `buffer`
    for (;;) {
      if (kept === buffer.length) {
        if (buffer.length >= MAX_LINE)
          kept = 0; // too long to be a Task-tool entry: dropped
        else {
          const bigger = Buffer.allocUnsafe(buffer.length * 2);
          buffer.copy(bigger, 0, 0, kept);
          buffer = bigger;
        }
      }
      const n = fs.readSync(fd, buffer, kept, buffer.length - kept, null);
      const end = kept + n;
      if (n <= 0) {
        if (end > 0) visitMatches(buffer.subarray(0, end), patterns, visit); // a last line with no newline
        break;
      }
      const last = buffer.lastIndexOf(10, end - 1);
      if (last < 0) {
        kept = end;
        continue;
      }
      visitMatches(buffer.subarray(0, last + 1), patterns, visit);
      buffer.copy(buffer, 0, last + 1, end);
      kept = end - last - 1;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** The lines of `region` (whole lines) that hold a pattern, decoded, in order, each once. */
function visitMatches(region: Buffer, patterns: readonly Buffer[], visit: (line: string) => void): void {
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
