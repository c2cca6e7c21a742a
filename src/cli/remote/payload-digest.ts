import { createHash } from 'node:crypto';

/** SHA-256 in hex, in a module of its own: node:crypto is loaded only to copy tasks to a host (about 5 ms of every command on a host otherwise). */
export function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
