import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { type LineFeed, type LineFeedHandlers, LineSplitter } from './line-feed.js';

/**
 * The stdout of an agent `tasks run` started: every byte copied to the record file (when
 * one is asked for) as it arrives, and its lines handed to the run's watcher as a line
 * feed. It is read to its end whatever the watch does: closing the feed (the watch ended)
 * only stops handing lines on, so the agent never blocks on a full pipe and the record
 * is whole.
 *
 * An output that is not stream-json (`claude -p` without `--output-format stream-json`,
 * or another program) is told once, at its first line that is not a JSON object, with
 * that line; its other such lines are not handed on (each would be a warning of its own).
 */
export interface AgentOutputOptions {
  /** The record file's descriptor, opened by the caller; closed here at the end. */
  recordFd?: number | undefined;
  /** The output's first non-empty line is not a JSON object: said once. */
  onNotStreamJson(firstLine: string): void;
  /** Writing the record failed: said once; the run goes on without it. */
  onRecordError(err: Error): void;
}

/** The longest piece of a line quoted when the output is not stream-json. */
const QUOTE_CHARS = 120;

export class AgentOutput implements LineFeed {
  readonly followsFile = false;
  private handlers: LineFeedHandlers | undefined;
  private splitter: LineSplitter | undefined;
  private closed = false;
  private ended = false;
  private recordFd: number | undefined;
  /** What is known of the output: nothing yet, stream-json, or not. */
  private kind: 'unknown' | 'stream-json' | 'other' = 'unknown';
  private readonly endWaiters: Array<() => void> = [];
  /** Chunks read before the watcher started. */
  private early: Buffer[] = [];
  private started = false;
  private linesFinished = false;

  constructor(
    private readonly stdout: Readable,
    private readonly opts: AgentOutputOptions,
  ) {
    this.recordFd = opts.recordFd;
    stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    stdout.on('end', () => this.onEnd());
    stdout.on('error', () => this.onEnd());
  }

  /** Did any line of the output read as a JSON object (stream-json)? */
  get sawStreamJson(): boolean {
    return this.kind === 'stream-json';
  }

  /** Has the output ended (its writers all closed it)? */
  get done(): boolean {
    return this.ended;
  }

  /** The feed's handlers: lines from now on go to them. */
  attach(handlers: LineFeedHandlers): LineFeed {
    this.handlers = handlers;
    this.splitter = new LineSplitter({ onLine: (text, line) => this.onLine(text, line), onWarning: (m) => handlers.onWarning(m) });
    return this;
  }

  /** Begin handing lines on, with what came before the watcher was ready first. */
  start(): void {
    const splitter = this.splitter;
    if (splitter === undefined || this.started) return;
    this.started = true;
    const early = this.early.splice(0);
    for (const chunk of early) if (!this.closed) splitter.push(chunk);
    if (early.length > 0 && !this.closed) this.handlers?.onChunk?.();
    if (this.ended) this.finishLines();
  }

  close(): void {
    this.closed = true;
  }

  /** Resolves at the output's end, or when `signal` aborts. */
  drain(signal?: AbortSignal): Promise<void> {
    this.closed = true;
    if (this.ended || signal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.endWaiters.push(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** Stop reading (a process outside the agent's group keeps the pipe open), and close the record. */
  abandon(): void {
    this.stdout.destroy();
    this.onEnd();
  }

  private onData(chunk: Buffer): void {
    this.record(chunk);
    if (this.closed) return;
    if (!this.started || this.splitter === undefined) {
      this.early.push(chunk);
      return;
    }
    this.splitter.push(chunk);
    if (!this.closed) this.handlers?.onChunk?.();
  }

  private onLine(text: string, line: number): void {
    if (this.closed) return;
    // Known to be stream-json: every line goes on (one that is not JSON is warned about as the watch does).
    if (this.kind === 'stream-json') {
      this.handlers?.onLine(text, line);
      return;
    }
    const trimmed = text.trim();
    if (trimmed === '') return;
    if (trimmed.startsWith('{') && isJsonObject(trimmed)) {
      this.kind = 'stream-json';
      this.handlers?.onLine(text, line);
    } else if (this.kind === 'unknown') {
      this.kind = 'other';
      this.opts.onNotStreamJson(trimmed.length > QUOTE_CHARS ? `${trimmed.slice(0, QUOTE_CHARS)}…` : trimmed);
    }
  }

  private onEnd(): void {
    if (this.ended) return;
    this.ended = true;
    this.closeRecord();
    for (const w of this.endWaiters.splice(0)) w();
    this.finishLines();
  }

  /** The output ended: its last line (without a newline) is a line; then the feed's end. */
  private finishLines(): void {
    if (this.closed || !this.started || this.splitter === undefined || this.linesFinished) return;
    this.linesFinished = true;
    this.splitter.finish();
    if (!this.closed) this.handlers?.onEnd();
  }

  private record(chunk: Buffer): void {
    const fd = this.recordFd;
    if (fd === undefined) return;
    try {
      let at = 0;
      while (at < chunk.length) at += fs.writeSync(fd, chunk, at, chunk.length - at);
    } catch (err) {
      this.closeRecord();
      this.opts.onRecordError(err as Error);
    }
  }

  private closeRecord(): void {
    const fd = this.recordFd;
    this.recordFd = undefined;
    if (fd === undefined) return;
    try {
      fs.closeSync(fd);
    } catch {
      // closed already: nothing lost, every write was synchronous
    }
  }
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}
