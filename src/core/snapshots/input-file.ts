import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { errnoCode, TasksError } from '../base/errors.js';

/**
 * Reading an import's input: asynchronously, so that Ctrl-C and SIGTERM are heard at
 * every moment (a synchronous read of /dev/zero or of a FIFO with no writer could not
 * be interrupted), and up to MAX_IMPORT_BYTES, so that no input can exhaust memory.
 * Every way it can fail is a bad input: exit 2 with one line naming it.
 */

/** Real inputs (snapshots, streams, transcripts, exports) are kilobytes to megabytes. */
export const MAX_IMPORT_BYTES = 64 * 1024 * 1024;
const LIMIT_TEXT = `the ${MAX_IMPORT_BYTES / 1024 / 1024} MB import limit`;

const open = promisify(fs.open);
const fstat = promisify(fs.fstat);
const read = promisify(fs.read);
const close = promisify(fs.close);

/**
 * The text of `file`: a regular file (refused before reading when over the limit), or a
 * FIFO or socket (`<(claude -p ...)`, a named pipe), read as a stream up to the limit.
 * Opened non-blocking: a FIFO with no writer is waited for by the event loop, not by a
 * blocked open(). Devices (/dev/zero, a terminal) are refused: pipe them in instead.
 * A relative `file` is read from `cwd` when given; messages name it as given.
 */
export async function readInputFile(file: string, opts: { cwd?: string | undefined; maxBytes?: number } = {}): Promise<string> {
  const maxBytes = opts.maxBytes ?? MAX_IMPORT_BYTES;
  // `import ""` (an empty variable) would open the working directory: name what was meant.
  if (file.trim() === '') throw new TasksError('usage', 'the input file name is empty: name a file, or - for stdin');
  let fd: number;
  try {
    fd = await open(opts.cwd === undefined ? file : path.resolve(opts.cwd, file), fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (err) {
    throw cannotRead(file, describeErrno(err));
  }
  let handedOver = false;
  try {
    const stat = await fstat(fd);
    if (stat.isDirectory()) throw cannotRead(file, 'it is a folder');
    if (stat.isFIFO() || stat.isSocket()) {
      handedOver = true; // the pipe reader closes it
      return await readPipe(fd, file, maxBytes);
    }
    if (!stat.isFile()) throw cannotRead(file, 'it is a device, not a file; to import a stream, pipe it in: ... | tasks import -');
    if (stat.size > maxBytes) throw cannotRead(file, `it is ${stat.size} bytes, over ${LIMIT_TEXT}`);
    return await readRegular(fd, file, stat.size, maxBytes);
  } finally {
    if (!handedOver) await close(fd).catch(() => undefined);
  }
}

/**
 * Standard input that is not a terminal (a terminal is read as a stream by the caller):
 * a pipe or socket through the event loop, a file by its size, and a device given as
 * input (`< /dev/zero`) in large chunks, each up to the limit. The descriptor stays open.
 */
export async function readInputDescriptor(fd: number, name: string, maxBytes: number = MAX_IMPORT_BYTES): Promise<string> {
  const stat = await fstat(fd).catch((err: unknown) => {
    throw cannotRead(name, describeErrno(err));
  });
  if (stat.isFIFO() || stat.isSocket()) return readPipe(fd, name, maxBytes);
  if (stat.isFile()) {
    if (stat.size > maxBytes) throw cannotRead(name, `it is ${stat.size} bytes, over ${LIMIT_TEXT}`);
    return readRegular(fd, name, stat.size, maxBytes);
  }
  return readRegular(fd, name, maxBytes, maxBytes);
}

/** A pipe, read through libuv's poller (a non-blocking descriptor): waiting blocks nothing. */
async function readPipe(fd: number, name: string, maxBytes: number): Promise<string> {
  const { pipeReader } = await import('./pipe-reader.js');
  const pipe = pipeReader(fd);
  try {
    return await readBoundedStream(pipe, name, maxBytes);
  } finally {
    pipe.destroy();
  }
}

/**
 * A file of `size` bytes by fstat (it may grow meanwhile), or a device (size: the limit):
 * at most maxBytes + 1 bytes are read, in as few reads as the buffer allows.
 */
async function readRegular(fd: number, file: string, size: number, maxBytes: number): Promise<string> {
  const buffer = Buffer.allocUnsafe(Math.min(maxBytes + 1, size + 4096));
  let length = 0;
  for (;;) {
    let n: number;
    try {
      ({ bytesRead: n } = await read(fd, buffer, length, buffer.length - length, null));
    } catch (err) {
      throw cannotRead(file, describeErrno(err));
    }
    length += n;
    if (n === 0 || length === buffer.length) break;
  }
  if (length > maxBytes)
    throw new TasksError('usage', `${file} is over ${LIMIT_TEXT} (stopped reading there)`, { details: { file, limit: maxBytes } });
  return buffer.toString('utf8', 0, length);
}

/**
 * A stream's text (stdin, a pipe), stopping as soon as it passes maxBytes: an endless
 * input (`cat /dev/urandom |`) costs at most the limit in memory before exit 2.
 */
export async function readBoundedStream(
  stream: AsyncIterable<Buffer | string>,
  name: string,
  maxBytes: number = MAX_IMPORT_BYTES,
): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      total += bytes.length;
      if (total > maxBytes) {
        throw new TasksError('usage', `${name} is over ${LIMIT_TEXT} (stopped reading there)`, {
          hint: 'import the part that matters, e.g. the last snapshot',
          details: { file: name, limit: maxBytes },
        });
      }
      chunks.push(bytes);
    }
  } catch (err) {
    if (err instanceof TasksError) throw err;
    throw cannotRead(name, describeErrno(err));
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

function describeErrno(err: unknown): string {
  const code = errnoCode(err);
  return code === 'ENOENT'
    ? 'no such file'
    : code === 'EISDIR'
      ? 'it is a folder'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : code === 'ENXIO'
          ? 'it is a socket or device, not a file'
          : (err as Error).message;
}

function cannotRead(file: string, why: string): TasksError {
  return new TasksError('usage', `cannot read ${file}: ${why}`, { details: { file } });
}
