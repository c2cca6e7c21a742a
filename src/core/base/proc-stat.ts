import fs from 'node:fs';
import path from 'node:path';

/** What Linux's `/proc/<pid>/stat` says of a process, as far as tasks asks. */
export interface ProcStat {
  /** One letter: R, S, D, Z (a zombie: ended, not yet reaped), X (dead), ... */
  state: string;
  /** Its parent. */
  ppid: string;
  /** Its process group. */
  pgrp: string;
  /** When it started, in clock ticks since boot: with the pid, names the process (a pid is used again). */
  startTime: string;
}

/**
 * A process's state, group and start time, read once; undefined when it is gone or there
 * is no /proc. Field 2 (the command) is in parentheses and may hold spaces and ')': the
 * fields are counted from the last ')'.
 */
export function procStat(pid: number | string, procRoot = '/proc'): ProcStat | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(path.join(procRoot, String(pid), 'stat'), 'latin1');
  } catch {
    return undefined;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', ppid: fields[1] ?? '', pgrp: fields[2] ?? '', startTime: fields[19] ?? '' };
}

/** A zombie (or dead) process has ended: it only waits for its parent to collect its status. */
export const hasEnded = (s: ProcStat): boolean => s.state === 'Z' || s.state === 'X';

/**
 * A process and every process below it (its children, theirs, ...), from /proc, the
 * process first: a tree to end together. Just the process where /proc cannot be read.
 */
export function processTree(pid: number, procRoot = '/proc'): number[] {
  let names: string[];
  try {
    names = fs.readdirSync(procRoot);
  } catch {
    return [pid];
  }
  const children = new Map<string, string[]>();
  for (const name of names) {
    if (!/^[0-9]+$/.test(name)) continue;
    const parent = procStat(name, procRoot)?.ppid;
    if (parent === undefined) continue;
    const list = children.get(parent) ?? [];
    list.push(name);
    children.set(parent, list);
  }
  const tree: number[] = [];
  const queue = [String(pid)];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    tree.push(Number(next));
    for (const child of children.get(next) ?? []) queue.push(child);
  }
  return tree;
}
