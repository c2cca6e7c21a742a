import fs from 'node:fs';

/**
 * Does anyone still read the pipe on descriptor `fd`? A writer learns that its reader
 * has gone only when it next writes (EPIPE), and a watch may have nothing to write for
 * hours: `tasks watch --json | head -1` would outlive `head` by that long. Linux says
 * who holds a pipe open, in /proc: a process holding it open for reading, other than
 * for writing, is a reader.
 *
 * true: a reader was found; false: every process that could hold it was looked at and
 * none reads it; undefined: no way to tell (not Linux, not a pipe, or a process in our
 * session that we may not inspect, which could be the reader: `| sudo tee`; or one of our
 * ancestors that we may not inspect: sshd, reading a command's output for `tasks -H`).
 */
export function pipeHasReader(fd: number): boolean | undefined {
  let pipe: string;
  let pids: number[];
  try {
    pipe = fs.readlinkSync(`/proc/self/fd/${fd}`);
    if (!pipe.startsWith('pipe:')) return undefined;
    pids = fs
      .readdirSync('/proc')
      .filter((n) => /^[0-9]+$/.test(n))
      .map(Number);
  } catch {
    return undefined;
  }
  const self = process.pid;
  const session = sessionOf(self);
  const ancestors = ancestorsOf(self);
  // The reader is most often a neighbour in the same pipeline: look there first.
  pids.sort((a, b) => Math.abs(a - self) - Math.abs(b - self));
  let unknown = false;
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      if ((session !== undefined && sessionOf(pid) === session) || ancestors.has(pid)) unknown = true;
      continue;
    }
    for (const n of fds) {
      if (pid === self && Number(n) === fd) continue;
      try {
        if (fs.readlinkSync(`/proc/${pid}/fd/${n}`) === pipe && readsFrom(pid, n)) return true;
      } catch {
        // gone meanwhile
      }
    }
  }
  return unknown ? undefined : false;
}

/** fdinfo's flags are octal; the access mode is their low two bits (0 read, 1 write, 2 both). */
function readsFrom(pid: number, fd: string): boolean {
  const info = fs.readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8');
  const flags = /^flags:\s*([0-7]+)$/m.exec(info)?.[1];
  return flags === undefined || (Number.parseInt(flags, 8) & 3) !== 1;
}

/** Field 6 of /proc/<pid>/stat, after the command name in parentheses. */
function sessionOf(pid: number): number | undefined {
  return statField(pid, 3);
}

/** The processes above `pid`, up to init (field 4 of stat: the parent). */
export function ancestorsOf(pid: number): Set<number> {
  const seen = new Set<number>();
  for (let p = statField(pid, 1); p !== undefined && p > 1 && !seen.has(p); p = statField(p, 1)) seen.add(p);
  return seen;
}

function statField(pid: number, index: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[index]);
  } catch {
    return undefined;
  }
}
