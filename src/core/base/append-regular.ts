import fs from 'node:fs';
import path from 'node:path';

/**
 * Append text with one write(2) to a file opened for append (lines from two processes never
 * interleave), made if missing; never through a symbolic link (it would write wherever the
 * link points) and never blocking on a FIFO: anyone who can write the folder can put either
 * in the file's place. Such a file is an error naming what is there.
 */
export function appendToRegularFile(file: string, text: string): void {
  let fd: number;
  try {
    fd = fs.openSync(
      file,
      fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK,
      0o644,
    );
  } catch (err) {
    // O_NOFOLLOW refuses a symlink with ELOOP; a FIFO with no reader, non-blocking, with ENXIO.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new Error(`${path.basename(file)} is a symbolic link, not a regular file`);
    if (code === 'ENXIO') throw new Error(`${path.basename(file)} is a FIFO, not a regular file`);
    throw err;
  }
  try {
    if (!fs.fstatSync(fd).isFile()) throw new Error(`${path.basename(file)} is not a regular file`);
    fs.writeSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
}
