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
