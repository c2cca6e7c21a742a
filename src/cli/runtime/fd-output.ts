import fs from 'node:fs';
import { pipeHasReader } from './pipe-has-reader.js';

/** What a run's IO writes to: a stream, or a file descriptor written directly. */
export interface OutputTarget {
  readonly isTTY?: boolean;
  readonly columns?: number;
  /** The stream itself, where there is one (readline asks its questions on it). */
  readonly asStream?: NodeJS.WritableStream;
  write(text: string): unknown;
  /**
   * For output that may wait long between writes (a watch): notice a reader that goes
   * away meanwhile, not only at the next write. Returns the function that stops looking.
   */
  followReader?(): () => void;
}

/** Standard input as a run sees it. */
export interface InputSource {
  /** A terminal: a person types there. */
  readonly isTTY: boolean;
  /** A descriptor to read straight from, when there is one (the process's 0). */
  readonly fd?: number | undefined;
  /** The input as a stream; made on first use (process.stdin costs start-up time). */
  stream(): NodeJS.ReadableStream;
}

/** How often a waiting stream looks for its pipe's reader. */
const READER_CHECK_MS = 500;

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Write all of `text` to a file descriptor, synchronously. A pipe that is full for a
 * moment (EAGAIN: the reader is slow and the pipe non-blocking) is waited for; false when
 * the reader has gone (EPIPE), true when everything was written.
 */
export function writeAllSync(fd: number, text: string): boolean {
  const bytes = Buffer.from(text, 'utf8');
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += fs.writeSync(fd, bytes, offset);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') return false;
      if (code !== 'EAGAIN') throw err;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
  return true;
}

/**
 * Whether a descriptor is a terminal, without loading node:tty (which loads net and the
 * streams) unless it may be one: pipes, files and sockets never are, nor is /dev/null
 * (where a benchmark or a cron job sends output). Only another character device is asked.
 */
async function isTerminal(fd: number): Promise<boolean> {
  let stat: fs.Stats;
  try {
    stat = fs.fstatSync(fd);
  } catch {
    return false; // closed
  }
  if (!stat.isCharacterDevice()) return false;
  if (stat.rdev === devNullRdev()) return false;
  const tty = (await import('node:tty')).default;
  return tty.isatty(fd);
}

let devNull: number | null | undefined;
/** The device number of /dev/null, looked up once for stdout and stderr (null: none here). */
function devNullRdev(): number | null {
  if (devNull === undefined) {
    try {
      devNull = fs.statSync('/dev/null').rdev;
    } catch {
      devNull = null;
    }
  }
  return devNull;
}

/**
 * stdout for a run whose output goes to a pipe or a file (scripts, CI, `| jq`): written
 * straight to descriptor 1, so that Node never builds process.stdout and loads the stream
 * machinery for it (about 4 ms of every such run). A terminal gets process.stdout itself:
 * the live views need its size and resize events. `onClosed` runs when the reader has
 * gone (`tasks list | head -1`).
 */
export async function standardOutput(onClosed: () => void): Promise<OutputTarget> {
  if (await isTerminal(1)) return process.stdout;
  return {
    isTTY: false,
    write: (text: string) => {
      if (!writeAllSync(1, text)) onClosed();
    },
    followReader: () => {
      const timer = setInterval(() => {
        if (pipeHasReader(1) === false) onClosed();
      }, READER_CHECK_MS);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}

/**
 * stderr: like stdout, straight to descriptor 2 unless it is a terminal (a summary or a
 * warning would otherwise load the streams for one line). Nothing written to stderr
 * may stop a command: a closed or failing stderr just loses the message.
 */
export async function standardError(): Promise<OutputTarget> {
  if (await isTerminal(2)) {
    return {
      isTTY: true,
      get columns() {
        return process.stderr.columns;
      },
      get asStream() {
        return process.stderr;
      },
      write: (text: string) => process.stderr.write(text),
    };
  }
  return {
    isTTY: false,
    write: (text: string) => {
      try {
        writeAllSync(2, text);
      } catch {
        // nowhere left to say it
      }
    },
  };
}

/** The process's stdin: process.stdin is made only when something reads it or asks what it is. */
export function standardInput(): InputSource {
  return {
    get isTTY() {
      return Boolean(process.stdin.isTTY);
    },
    fd: 0,
    stream: () => process.stdin,
  };
}
