import { spawn } from 'node:child_process';

/**
 * A piped input handed to a reader of its own, which reads it to its end and drops what
 * it reads: a run that ended with its result may leave a process holding its output open
 * for long (a server the agent started in the background), and the watch then exits with
 * its verdict while that process never meets a closed pipe. `cat` into /dev/null, in a
 * session of its own (a terminal's signals do not reach it), else Node itself. Its pid,
 * or undefined when neither could be started (the watch then reads on itself).
 */
export function handOffInput(fd: number): number | undefined {
  for (const [command, args] of [
    ['cat', []],
    [process.execPath, ['-e', 'process.stdin.on("error", () => {}).resume()']],
  ] as const) {
    try {
      const child = spawn(command, args, { stdio: [fd, 'ignore', 'ignore'], detached: true });
      child.on('error', () => {});
      if (child.pid === undefined) continue;
      child.unref();
      return child.pid;
    } catch {
      // Not startable here: the next.
    }
  }
  return undefined;
}
