import { Socket } from 'node:net';

/**
 * A readable stream over an open, non-blocking pipe descriptor (a FIFO, `<(cmd)`), read
 * through libuv's poller so that waiting for a writer blocks nothing. Its own module,
 * loaded on first use: node:net is not worth loading on every start.
 */
export function pipeReader(fd: number): Socket {
  return new Socket({ fd, readable: true, writable: false });
}
