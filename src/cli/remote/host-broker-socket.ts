import fs from 'node:fs';
import net from 'node:net';

/** How a broker (host-broker.ts) takes its place: the start lock, a live broker already there, its socket made private. */

/**
 * The start lock: a file naming its process, made whole before it appears (a link of a
 * file already written, which fails if the lock is there: no reader ever sees it empty);
 * one left by a process that died is taken over.
 */
export function takeLock(lock: string): boolean {
  const mine = `${lock}.${process.pid}`;
  try {
    fs.writeFileSync(mine, String(process.pid), { mode: 0o600 });
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        fs.linkSync(mine, lock);
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return false;
      }
      let holder: number;
      try {
        holder = Number(fs.readFileSync(lock, 'utf8'));
      } catch {
        continue; // released meanwhile
      }
      if (!Number.isInteger(holder) || holder <= 0 || alive(holder)) return false;
      fs.rmSync(lock, { force: true });
    }
    return false;
  } catch {
    return false;
  } finally {
    fs.rmSync(mine, { force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Does a broker answer on this socket already? */
export function answers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(socket);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** The socket, made 0600 from the start (no moment when another user could connect). */
export function listenPrivately(socket: string): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    const umask = process.umask(0o177);
    server.once('error', (err) => {
      process.umask(umask);
      reject(err);
    });
    server.listen(socket, () => {
      process.umask(umask);
      resolve(server);
    });
  });
}
