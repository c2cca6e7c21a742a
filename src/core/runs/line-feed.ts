import fs from 'node:fs';
import path from 'node:path';
import { errnoCode, TasksError } from '../base/errors.js';
import type { NoteCode } from '../base/notices.js';

/**
 * Lines of JSON Lines input as they arrive: from a readable stream (stdin, a FIFO) until
 * it ends, or from a regular file that is still being written, followed like `tail -f`
 * (read to its end, then again each time it grows), or waited for while it does not
 * exist yet. Everything is read asynchronously, one bounded chunk at a time, yielding to
 * the event loop between chunks, so timers and signals act while a huge input is read.
 * Lines are split on the bytes of each new chunk only (a newline byte never occurs inside
 * a UTF-8 sequence), so the cost is linear in the input whatever the line lengths; a line
 * longer than MAX_LINE_BYTES is skipped with a warning, its bytes never held.
 */
export interface LineFeedHandlers {
  /** One line, without its newline; `line` counts from 1. */
  onLine(text: string, line: number): void;
  /** A chunk has been read and its lines handed over: the input is alive; a moment to publish. */
  onChunk?(): void;
  /** The input ended (a stream's end; a followed file never ends). */
  onEnd(): void;
  onError(err: unknown): void;
  onWarning(message: string): void;
  /** Something worth telling that is not a problem (a file waited for); `code` names it for --json. */
  onNote?(message: string, code?: NoteCode): void;
  /** A followed file has been read to its current end. */
  onCaughtUp?(): void;
}

export interface LineFeed {
  /** A file followed like `tail -f`: what it holds at the start is read before the first state. */
  readonly followsFile: boolean;
  /** Begin reading (asynchronously). */
  start(): void;
  /** Stop delivering lines and stop reading. */
  close(): void;
  /**
   * Read what is left of a stream input to its end, discarding it, so that the writer
   * upstream never meets a closed pipe (SIGPIPE) and a `tee` beside it keeps everything.
   * Resolves at the input's end, or when `signal` aborts. A file has nothing to drain.
   */
  drain(signal?: AbortSignal): Promise<void>;
}

/** The longest line kept: stream-json lines that matter (tool calls, results, the run's end) are far shorter. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** How much a followed file is read at once before yielding. */
const CHUNK_BYTES = 1024 * 1024;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Splits byte chunks into lines. Only the new chunk is searched for newlines; a partial
 * line is kept as the chunks it came in and joined once, when its newline arrives.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;
  private count = 0;

  constructor(
    private readonly handlers: Pick<LineFeedHandlers, 'onLine' | 'onWarning'>,
    private readonly maxBytes = MAX_LINE_BYTES,
  ) {}

  /** `chunk` may be reused by the caller once this returns: what is kept is copied. */
  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) break;
      this.endLine(chunk.subarray(start, nl));
      start = nl + 1;
    }
    if (start < chunk.length) this.keep(chunk.subarray(start));
  }

  /** The input ended: a last line without its newline is still a line. */
  finish(): void {
    if (this.size > 0 || this.skipping) this.endLine(Buffer.alloc(0));
  }

  private keep(piece: Buffer): void {
    if (this.skipping) return;
    if (this.size + piece.length > this.maxBytes) {
      this.tooLong();
      return;
    }
    this.parts.push(Buffer.from(piece));
    this.size += piece.length;
  }

  private tooLong(): void {
    this.handlers.onWarning(`line ${this.count + 1} is longer than ${this.maxBytes / 1024 / 1024} MB: skipped`);
    this.skipping = true;
    this.parts = [];
    this.size = 0;
  }

  private endLine(last: Buffer): void {
    this.count++;
    if (!this.skipping && this.size + last.length > this.maxBytes) this.tooLong();
    if (this.skipping) {
      // The tail of a line already reported as too long.
      this.skipping = false;
      return;
    }
    const bytes = this.parts.length === 0 ? last : Buffer.concat([...this.parts, last]);
    this.parts = [];
    this.size = 0;
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 13 ? bytes.length - 1 : bytes.length;
    this.handlers.onLine(bytes.toString('utf8', 0, end), this.count);
  }
}

/** A readable stream: stdin, a FIFO. */
export class StreamLineFeed implements LineFeed {
  readonly followsFile = false;
  private readonly splitter: LineSplitter;
  private closed = false;
  private ended = false;
  private readonly endWaiters: Array<() => void> = [];
  private readonly onData = (chunk: Buffer | string) => {
    if (this.closed) return;
    this.splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    if (!this.closed) this.handlers.onChunk?.();
  };
  private readonly onStreamEnd = () => {
    this.ended = true;
    for (const w of this.endWaiters.splice(0)) w();
    if (this.closed) return;
    this.splitter.finish();
    if (!this.closed) this.handlers.onEnd();
  };
  private readonly onStreamError = (err: unknown) => {
    // An input that fails is over: nothing more can be drained from it.
    this.ended = true;
    for (const w of this.endWaiters.splice(0)) w();
    if (!this.closed) this.handlers.onError(err);
  };

  /**
   * @param drainable the input is a pipe or socket, whose writer would meet a closed pipe
   * if we stopped reading (a device such as /dev/zero is never drained: it has no end).
   */
  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly handlers: LineFeedHandlers,
    private readonly drainable = true,
    /** Called as the feed stops: lets go of what still waits on the input (a FIFO's open). */
    private readonly release: () => void = () => undefined,
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
    this.release();
    if (!this.ended) this.input.pause();
  }

  drain(signal?: AbortSignal): Promise<void> {
    this.closed = true;
    this.release();
    if (this.ended || signal?.aborted || !this.drainable) {
      this.close();
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = () => {
        signal?.removeEventListener('abort', done);
        this.input.pause();
        resolve();
      };
      this.endWaiters.push(done);
      signal?.addEventListener('abort', done, { once: true });
      // onData discards once closed; the stream flows again until its end.
      this.input.resume();
    });
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
  private handle: fs.promises.FileHandle | undefined;
  private offset = 0;
  private timer: NodeJS.Timeout | undefined;
  private watcher: fs.FSWatcher | undefined;
  private closed = false;
  private wake: (() => void) | undefined;
  private readonly buffer = Buffer.alloc(CHUNK_BYTES);

  constructor(
    private readonly file: string,
    private readonly handlers: LineFeedHandlers,
    private readonly pollMs = 250,
  ) {
    this.splitter = new LineSplitter(handlers);
  }

  start(): void {
    void this.loop();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.watcher?.close();
    this.wake?.();
    const handle = this.handle;
    this.handle = undefined;
    void handle?.close().catch(() => {});
  }

  drain(): Promise<void> {
    this.close();
    return Promise.resolve();
  }

  private async loop(): Promise<void> {
    try {
      this.handle = await fs.promises.open(this.file, 'r');
    } catch (err) {
      if (!this.closed) this.handlers.onError(openError(this.file, err));
      return;
    }
    if (this.closed) {
      void this.handle.close().catch(() => {});
      return;
    }
    try {
      this.watcher = fs.watch(this.file, { persistent: false }, () => this.wake?.());
      this.watcher.on('error', () => this.watcher?.close());
    } catch {
      // Polling alone still sees every write, only later.
    }
    while (!this.closed) {
      const handle = this.handle;
      if (handle === undefined) return;
      let n: number;
      try {
        const size = (await handle.stat()).size;
        if (size < this.offset) {
          this.handlers.onWarning(`${this.file} shrank (truncated or replaced): reading it again from the start`);
          this.offset = 0;
        }
        n = (await handle.read(this.buffer, 0, this.buffer.length, this.offset)).bytesRead;
      } catch (err) {
        if (!this.closed) this.handlers.onError(new TasksError('io', `cannot read ${this.file}: ${(err as Error).message}`));
        return;
      }
      if (this.closed) return;
      if (n > 0) {
        this.offset += n;
        this.splitter.push(this.buffer.subarray(0, n));
        if (this.closed) return;
        this.handlers.onChunk?.();
        await yieldToLoop();
        continue;
      }
      this.handlers.onCaughtUp?.();
      if (this.closed) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        this.timer = setTimeout(resolve, this.pollMs);
      });
      this.wake = undefined;
      if (this.timer) clearTimeout(this.timer);
    }
  }
}

/**
 * A path that does not exist yet, waited for as a list is: once it appears it is
 * followed (a regular file) or read (a FIFO), as if it had been there from the start.
 */
class AwaitedFileFeed implements LineFeed {
  readonly followsFile = true;
  private inner: LineFeed | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly file: string,
    private readonly shown: string,
    private readonly handlers: LineFeedHandlers,
    private readonly pollMs = 250,
  ) {}

  start(): void {
    this.handlers.onNote?.(`waiting for ${this.shown} to appear`, 'waiting_for_stream');
    this.look();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.inner?.close();
  }

  drain(signal?: AbortSignal): Promise<void> {
    if (this.inner) return this.inner.drain(signal);
    this.close();
    return Promise.resolve();
  }

  private look(): void {
    if (this.closed) return;
    const st = fs.statSync(this.file, { throwIfNoEntry: false });
    if (st === undefined) {
      this.timer = setTimeout(() => this.look(), this.pollMs);
      return;
    }
    try {
      this.inner = feedFor(this.file, this.shown, st, this.handlers);
    } catch (err) {
      this.handlers.onError(err);
      return;
    }
    this.inner.start();
  }
}

function openError(file: string, err: unknown): TasksError {
  const code = errnoCode(err);
  if (code === 'ENOENT') return new TasksError('not_found', `${file} does not exist`);
  if (code === 'EISDIR') return new TasksError('usage', `${file} is a folder, not a stream-json file`);
  return new TasksError('io', `cannot read ${file}: ${(err as Error).message}`);
}

function feedFor(where: string, shown: string, st: fs.Stats, handlers: LineFeedHandlers): LineFeed {
  if (st.isDirectory()) throw openError(shown, Object.assign(new Error('is a directory'), { code: 'EISDIR' }));
  if (st.isFile()) return new FollowedFileFeed(where, handlers);
  const stream = fs.createReadStream(where);
  return new StreamLineFeed(stream, handlers, st.isFIFO() || st.isSocket(), () => releaseWaitingOpen(where, stream));
}

/**
 * A FIFO's read stream opens in the background, and that open waits for a writer: a
 * watch that ends before any writer came (its --timeout, Ctrl-C) would wait with it, for
 * ever. Opening it for writing here (which does not block while a reader waits) and
 * closing it lets that open finish on an input that ends at once: nothing was written,
 * so nothing is left to drain.
 */
function releaseWaitingOpen(file: string, stream: fs.ReadStream): void {
  if (!stream.pending) return;
  try {
    fs.closeSync(fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
  } catch {
    // No reader waits (ENXIO): the open finished meanwhile, and reads as any other.
  }
}

/** Standard input as a feed; drained at the end only when it is a pipe or socket (fstat of `fd`). */
export function stdinLineFeed(input: NodeJS.ReadableStream, fd: number | undefined, handlers: LineFeedHandlers): LineFeed {
  let drainable = true;
  if (fd !== undefined) {
    try {
      const st = fs.fstatSync(fd);
      drainable = st.isFIFO() || st.isSocket();
    } catch {
      // Closed or unknown: read it as a pipe.
    }
  }
  return new StreamLineFeed(input, handlers, drainable);
}

/**
 * A path to follow like `tail -f` (a regular file), to read as a stream (a FIFO, a
 * device), or to wait for while it does not exist. A relative `file` is taken from `cwd`
 * when given; messages name it as given.
 */
export function openLineFeed(file: string, handlers: LineFeedHandlers, cwd?: string): LineFeed {
  const where = cwd === undefined ? file : path.resolve(cwd, file);
  let st: fs.Stats;
  try {
    st = fs.statSync(where);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return new AwaitedFileFeed(where, file, handlers);
    throw openError(file, err);
  }
  return feedFor(where, file, st, handlers);
}
