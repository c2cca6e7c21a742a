import fs from 'node:fs';
import { hasEnded, procStat } from './proc-stat.js';

/**
 * Process groups: a child started in a group of its own (`detached`, so its pid is the
 * group's id) can be ended together with everything it started, grandchildren included.
 * Linux never hands out a pid that is still some live process's group id, so signalling
 * `-pgid` reaches that group or nothing. (A grandchild that starts a session of its own,
 * as a daemon does, has left the group: nothing here reaches it.)
 */

/** Send `signal` to every process of the group; false when none is left (or it is not ours to signal). */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Is a process of the group still running? A zombie does not count: it has ended, and
 * only waits for its parent (or init, for an orphan) to collect its status. Where /proc
 * cannot be read, any process of the group counts, zombies too. `except`: a member not
 * to count (a guard that stays to the end on purpose).
 */
export function groupRunning(pgid: number, except?: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  const members = runningMembers(pgid, except);
  return members === undefined || members > 0;
}

/** How many processes of the group (but `except`) are not zombies, from /proc; undefined where it cannot be read. */
function runningMembers(pgid: number, except: number | undefined): number | undefined {
  let names: string[];
  try {
    names = fs.readdirSync('/proc');
  } catch {
    return undefined;
  }
  let count = 0;
  for (const name of names) {
    if (!/^[0-9]+$/.test(name) || name === String(except)) continue;
    // Gone meanwhile: not counted.
    const stat = procStat(name);
    if (stat !== undefined && stat.pgrp === String(pgid) && !hasEnded(stat)) count++;
  }
  return count;
}

/**
 * `promise`, or `fallback` once `ms` have passed, whichever comes first; the timer is
 * cleared as soon as the promise settles, so it never keeps the process alive by itself.
 */
export function withinMs<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
