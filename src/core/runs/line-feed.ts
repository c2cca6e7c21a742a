import fs from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { errnoCode, TasksError } from '../base/errors.js';

/**
 * Lines of JSON Lines input as they arrive: from a readable stream (stdin, a FIFO) until
 * it ends, or from a regular file that is still being written, followed like `tail -f`
 * (read to its end, then again each time it grows). A line longer than the limit is
 * skipped with a warning instead of growing without bound.
 */
export interface LineFeedHandlers {
  /** One line, without its newline; `line` counts from 1. */
  onLine(text: string, line: number): void;
  /** The input ended (a stream's end; a followed file never ends). */
  onEnd(): void;
  onError(err: unknown): void;
  onWarning(message: string): void;
  /** A followed file has been read to its current end. */
  onCaughtUp?(): void;
}

export interface LineFeed {
  /** A file followed like `tail -f`: what it holds at the start is read before the first state. */
  readonly followsFile: boolean;
  /** Begin reading; a followed file's present content is read at once, synchronously. */
  start(): void;
  close(): void;
}

export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** Splits chunks into lines (UTF-8 safe across chunk boundaries). */
class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';
  private skipping = false;
  private count = 0;

  constructor(private readonly handlers: LineFeedHandlers) {}

  push(chunk: Buffer): void {
    const text = this.partial + this.decoder.write(chunk);
    const parts = text.split('\n');
    this.partial = parts.pop() ?? '';
    for (const part of parts) this.emit(part);
    if (this.partial.length > MAX_LINE_BYTES) {
      if (!this.skipping) this.handlers.onWarning(`line ${this.count + 1} is longer than ${MAX_LINE_BYTES / 1024 / 1024} MB: skipped`);
      this.skipping = true;
      this.partial = '';
    }
  }

  finish(): void {
    const rest = this.partial + this.decoder.end();
    this.partial = '';
    if (rest !== '') this.emit(rest);
  }

  private emit(text: string): void {
    this.count++;
    if (this.skipping) {
      // The tail of a line already reported as too long.
      this.skipping = false;
      return;
    }
    this.handlers.onLine(text.endsWith('\r') ? text.slice(0, -1) : text, this.count);
  }
}

/** A readable stream: stdin, a FIFO. */
export class StreamLineFeed implements LineFeed {
  readonly followsFile = false;
  private readonly splitter: LineSplitter;
  private closed = false;
  private readonly onData = (chunk: Buffer | string) => {
    if (!this.closed) this.splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  };
  private readonly onStreamEnd = () => {
    if (this.closed) return;
    this.splitter.finish();
    if (!this.closed) this.handlers.onEnd();
  };
  private readonly onStreamError = (err: unknown) => {
    if (!this.closed) this.handlers.onError(err);
  };

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly handlers: LineFeedHandlers,
  ) {
    this.splitter = new LineSplitter(handlers);
  }

  start(): void {
    this.input.on('data', this.onData);
    this.input.on('end', this.onStreamEnd);
    this.input.on('error', this.onStreamError);
    this.input.resume();
  }

  close(): void {
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onStreamEnd);
    this.input.off('error', this.onStreamError);
    this.input.pause();
  }
}

/**
 * A regular file that may still grow: read from where the last read stopped, on a
 * change hint (fs.watch) and every `pollMs` whatever happens (hints can be lost). A file
 * that shrinks was truncated or replaced: it is read again from the start, with a warning.
 */
export class FollowedFileFeed implements LineFeed {
  readonly followsFile = true;
  private readonly splitter: LineSplitter;
  private fd: number | undefined;
  private offset = 0;
  private timer: NodeJS.Timeout | undefined;
  private watcher: fs.FSWatcher | undefined;
  private closed = false;
  private readonly buffer = Buffer.alloc(64 * 1024);

  constructor(
    private readonly file: string,
    private readonly handlers: LineFeedHandlers,
    private readonly pollMs = 250,
  ) {
    this.splitter = new LineSplitter(handlers);
  }

  start(): void {
    try {
      this.fd = fs.openSync(this.file, 'r');
    } catch (err) {
      throw openError(this.file, err);
    }
    try {
      this.watcher = fs.watch(this.file, { persistent: false }, () => this.readMore());
      this.watcher.on('error', () => this.watcher?.close());
    } catch {
      // Polling alone still sees every write, only later.
    }
    this.readMore();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.watcher?.close();
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }

  private readMore(): void {
    if (this.closed || this.fd === undefined) return;
    if (this.timer) clearTimeout(this.timer);
    try {
      const size = fs.fstatSync(this.fd).size;
      if (size < this.offset) {
        this.handlers.onWarning(`${this.file} shrank (truncated or replaced): reading it again from the start`);
        this.offset = 0;
      }
      for (;;) {
        const n = fs.readSync(this.fd, this.buffer, 0, this.buffer.length, this.offset);
        if (n === 0) break;
        this.offset += n;
        this.splitter.push(this.buffer.subarray(0, n));
        if (this.closed) return;
      }
    } catch (err) {
      this.handlers.onError(new TasksError('io', `cannot read ${this.file}: ${(err as Error).message}`));
      return;
    }
    this.handlers.onCaughtUp?.();
    if (!this.closed) this.timer = setTimeout(() => this.readMore(), this.pollMs);
  }
}

function openError(file: string, err: unknown): TasksError {
  const code = errnoCode(err);
  if (code === 'ENOENT') return new TasksError('not_found', `${file} does not exist`);
  if (code === 'EISDIR') return new TasksError('usage', `${file} is a folder, not a stream-json file`);
  return new TasksError('io', `cannot read ${file}: ${(err as Error).message}`);
}

/**
 * A path to follow like `tail -f` (a regular file), or to read as a stream (a FIFO, a
 * device). A relative `file` is taken from `cwd` when given; messages name it as given.
 */
export function openLineFeed(file: string, handlers: LineFeedHandlers, cwd?: string): LineFeed {
  const where = cwd === undefined ? file : path.resolve(cwd, file);
  let st: fs.Stats;
  try {
    st = fs.statSync(where);
  } catch (err) {
    throw openError(file, err);
  }
  if (st.isDirectory()) throw openError(file, Object.assign(new Error('is a directory'), { code: 'EISDIR' }));
  return st.isFile() ? new FollowedFileFeed(where, handlers) : new StreamLineFeed(fs.createReadStream(where), handlers);
}
