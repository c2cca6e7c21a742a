import fs from 'node:fs';
import path from 'node:path';
import { hasEnded, type ProcStat, procStat } from '../base/proc-stat.js';

/**
 * Who writes a followed stream file: the processes (of this user: /proc shows no one
 * else's descriptors) that hold it open, found by their `/proc/<pid>/fd` links. A run
 * written with `claude -p ... > run.jsonl` or `| tee run.jsonl` has its writer there;
 * when every writer seen is gone (its pid gone, or now another process, told by the
 * start time in `/proc/<pid>/stat`), the run is over though the file never ends. Where
 * there is no /proc, or nobody holds the file, nothing is known.
 */
export interface WriterProcess {
  pid: number;
  startTime: string | undefined;
}

export function processesHolding(file: string, procRoot = '/proc'): WriterProcess[] {
  let target: string;
  try {
    target = fs.realpathSync(file);
  } catch {
    return [];
  }
  return processesWithLink(target, procRoot);
}

/** What a process's descriptor `fd` is (`/proc/<pid>/fd/<fd>`'s link: a path, or `pipe:[<inode>]`); undefined where it cannot be told. */
export function descriptorLink(pid: number, fd: number, procRoot = '/proc'): string | undefined {
  try {
    return fs.readlinkSync(path.join(procRoot, String(pid), 'fd', String(fd)));
  } catch {
    return undefined;
  }
}

/** The processes (but this one) with a descriptor whose link is `target` (a file's real path, or a pipe's `pipe:[<inode>]`). */
export function processesWithLink(target: string, procRoot = '/proc'): WriterProcess[] {
  let names: string[];
  try {
    names = fs.readdirSync(procRoot);
  } catch {
    return [];
  }
  const found: WriterProcess[] = [];
  for (const name of names) {
    if (!/^[1-9][0-9]*$/.test(name) || Number(name) === process.pid) continue;
    const fdDir = path.join(procRoot, name, 'fd');
    let fds: string[];
    try {
      fds = fs.readdirSync(fdDir);
    } catch {
      continue; // another user's, or gone
    }
    for (const fd of fds) {
      let link: string;
      try {
        link = fs.readlinkSync(path.join(fdDir, fd));
      } catch {
        continue;
      }
      if (link === target) {
        found.push({ pid: Number(name), startTime: procStat(name, procRoot)?.startTime });
        break;
      }
    }
  }
  return found;
}

/** Is this process still the one that was seen (same pid, same start time)? */
export function stillRunning(p: WriterProcess, procRoot = '/proc'): boolean {
  const now = procStat(p.pid, procRoot);
  return now !== undefined && sameProcess(p, now);
}

/** Still running: the same process (stillRunning), and not a zombie waiting to be reaped. */
export function stillAtWork(p: WriterProcess, procRoot = '/proc'): boolean {
  const now = procStat(p.pid, procRoot);
  return now !== undefined && sameProcess(p, now) && !hasEnded(now);
}

/** The pid names the process seen before: its start time is the same (or was not known). */
const sameProcess = (p: WriterProcess, now: ProcStat) => p.startTime === undefined || now.startTime === p.startTime;

/**
 * After a run's result, with its session over, are the processes that still hold a piped
 * input open (`link`, `pipe:[<inode>]`) all left behind by the run? Their pids when so:
 * none is a Claude Code process (`isClaude`), and none is one of this process's
 * ancestors (itself included) or a child of one, as a script of the pipeline is (`(claude
 * -p a; claude -p b) | tasks watch --stream -`, or `< <(...)`), which may start another
 * session yet. A process the agent started in the background and left holding its output
 * was handed to init (or a subreaper) when the agent exited. Undefined when anyone may
 * write on, when nobody holds it (its end is coming), or where /proc cannot tell.
 */
export function heldOnlyByLeftovers(link: string, isClaude: (pid: number) => boolean, procRoot = '/proc'): number[] | undefined {
  const holders = processesWithLink(link, procRoot);
  if (holders.length === 0) return undefined;
  // This process counts as one of its own ancestors: a producer fed in by process
  // substitution (`tasks watch --stream - < <(script)`) is its child.
  const ancestors = new Set<string>([String(process.pid)]);
  for (let pid = procStat(process.pid, procRoot)?.ppid; pid !== undefined && Number(pid) > 1 && !ancestors.has(pid); ) {
    ancestors.add(pid);
    pid = procStat(pid, procRoot)?.ppid;
  }
  if (ancestors.size === 1) return undefined;
  const left: number[] = [];
  for (const holder of holders) {
    const stat = procStat(holder.pid, procRoot);
    if (stat === undefined || hasEnded(stat)) continue; // gone meanwhile
    if (isClaude(holder.pid) || ancestors.has(String(holder.pid)) || ancestors.has(stat.ppid)) return undefined;
    left.push(holder.pid);
  }
  return left.length === 0 ? undefined : left;
}
