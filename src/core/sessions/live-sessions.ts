import fs from 'node:fs';
import path from 'node:path';
import { readBoundedText } from '../base/bounded-read.js';
import { type FileStamp, sameStamp, stampFromTuple, stampOf, stampTuple, trusted } from '../cache/file-stamp.js';
import type { Shard } from '../cache/persistent-cache.js';
import { type ClaudeProcess, readClaudeProcess, readClaudeProcesses, startedAtMs } from './claude-processes.js';

/**
 * Claude Code's live-session files (docs/task-store.md section 10):
 * `<config>/sessions/<pid>.json` exists while a session runs and is removed when it ends.
 * A file whose process is gone, or whose pid now belongs to another process (a different
 * start time in `/proc/<pid>/stat`), is left over from a crash.
 */
export interface LiveSessionFile {
  file: string;
  pid: number;
  sessionId: string;
  cwd?: string | undefined;
  name?: string | undefined;
  /**
   * "busy" while the agent works on a turn; "waiting" while it waits for a person (a
   * permission prompt, a dialog: `waitingFor` says which); anything else is idle.
   */
  status?: string | undefined;
  /** While waiting: what for, in Claude Code's words ("permission prompt", "dialog open", ...). */
  waitingFor?: string | undefined;
  /** When `status` last changed (ms): a new waiting spell has a new one. */
  statusUpdatedAt?: number | undefined;
  /** The process start time in clock ticks since boot, as /proc/<pid>/stat field 22 gives it. */
  procStart?: string | undefined;
  /** `linux:<machine-id>:pid:[<pid namespace>]`: where the pid means something. */
  pidDomain?: string | undefined;
  startedAt?: number | undefined;
  updatedAt?: number | undefined;
}

/** What we can say of a live-session file's process. */
export type ProcessVerdict = 'running' | 'gone' | 'unknown';

/** How to look at processes; the default reads /proc. Tests and other systems pass their own. */
export interface ProcessProbe {
  /** Field 22 of /proc/<pid>/stat, or undefined when there is no such process. */
  startTime(pid: number): string | undefined;
  /** When the process that started at these ticks started (ms): at this moment or up to a second after it. */
  startedAt?(ticks: string): number | undefined;
  /** This machine's and pid namespace's `pidDomain`, when it can be known. */
  domain(): string | undefined;
  /** That process, if it is a Claude Code process of this user (its environment, command line). */
  claudeProcess?(pid: number): ClaudeProcess | undefined;
  /** Every Claude Code process of this user. */
  claudeProcesses?(): ClaudeProcess[];
}

const MAX_SESSION_FILE_BYTES = 64 * 1024;

/** This machine's and pid namespace's domain, read once a process (it cannot change under us). */
let ownDomain: { value: string | undefined } | undefined;

export const procProbe: ProcessProbe = {
  startTime(pid) {
    // Most pids asked about are of processes long gone: a look is cheaper than a failed read.
    if (!fs.existsSync(`/proc/${pid}`)) return undefined;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
      // The command name (field 2) is in parentheses and may hold spaces or ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // A zombie (its parent has not reaped it yet, as a CI runner or a wrapper that is
      // itself stuck may not) is a process that has ended: its session is not alive.
      if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
      return fields[19];
    } catch {
      return undefined;
    }
  },
  domain() {
    ownDomain ??= { value: readDomain() };
    return ownDomain.value;
  },
  startedAt: (ticks) => startedAtMs(ticks, '/proc'),
  claudeProcess: (pid) => readClaudeProcess(pid),
  claudeProcesses: () => readClaudeProcesses(),
};

function readDomain(): string | undefined {
  try {
    const machine = fs.readFileSync('/etc/machine-id', 'utf8').trim();
    return `linux:${machine}:${fs.readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    return undefined;
  }
}

/** Is this live-session file's process still the session that wrote it? */
export function judgeProcess(live: LiveSessionFile, probe: ProcessProbe): ProcessVerdict {
  const here = probe.domain();
  // A pid from another machine or container cannot be looked up here.
  if (live.pidDomain !== undefined && here !== undefined && live.pidDomain !== here) return 'unknown';
  const start = probe.startTime(live.pid);
  if (start === undefined) return 'gone';
  if (live.procStart !== undefined && live.procStart !== start) return 'gone';
  // A file without `procStart` (written by hand, or by a Claude Code before it): a process
  // that is not Claude Code and began well after the session it names had started is
  // another one that was given the same pid. Both signs are asked for: a start time is
  // worked out from the boot time, which a clock stepped since (a VM resumed) moves, and
  // a session must never be taken for over while its agent runs.
  if (live.procStart === undefined && live.startedAt !== undefined) {
    const began = probe.startedAt?.(start);
    if (
      began !== undefined &&
      began > live.startedAt + REUSED_PID_SLACK_MS &&
      probe.claudeProcess !== undefined &&
      probe.claudeProcess(live.pid) === undefined
    )
      return 'gone';
  }
  return 'running';
}

/** How much later than its session's `startedAt` a process may seem to start and still be the session's. */
const REUSED_PID_SLACK_MS = 60_000;

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
/** Claude Code names every session by a UUID (docs/task-store.md section 10): any other id is damage, and would pass for the owner of a list so named. */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A folder as a path: no path holds a NUL byte (every fs call given one throws), so one that does is damage, as good as none. */
const folder = (v: unknown): string | undefined => {
  const s = str(v);
  return s?.includes('\0') ? undefined : s;
};
/** The largest time (ms) a Date can hold: beyond it every date of it, and every reader's toISOString, throws. */
const MAX_TIME_MS = 8.64e15;
/** A time (ms since the epoch) a Date can hold; any other is damage, as good as none. */
const time = (v: unknown): number | undefined => {
  const n = num(v);
  return n !== undefined && Math.abs(n) <= MAX_TIME_MS ? n : undefined;
};

/**
 * The live-session files as they are now, in one string (each one's name, inode, size and
 * change time): a session that starts, ends, or goes from busy to idle changes it. A
 * readdir and a stat a file: cheap enough to ask, at each change of a list, whether a
 * session index read earlier still knows every live session.
 */
export function liveFilesStamp(configDir: string): string {
  const dir = path.join(configDir, 'sessions');
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return '';
  }
  const parts: string[] = [];
  for (const name of names.sort()) {
    if (!/^[1-9][0-9]{0,9}\.json$/.test(name)) continue;
    try {
      const st = fs.statSync(path.join(dir, name));
      parts.push(`${name}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`);
    } catch {
      parts.push(`${name}:gone`);
    }
  }
  return parts.join('|');
}

/**
 * Every readable live-session file; damaged, foreign or unreadable ones are skipped. With
 * `kept` (the persistent cache's shard of them), a file whose stamp has not changed since
 * it was read, and had settled then, is not read again: those of crashed sessions stay
 * behind for good, one for every few dozen sessions of a year, and never change.
 */
export function readLiveSessionFiles(configDir: string, kept?: Shard, now: number = Date.now()): LiveSessionFile[] {
  const dir = path.join(configDir, 'sessions');
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const found: LiveSessionFile[] = [];
  const present = new Set<string>();
  for (const name of names) {
    if (!/^[1-9][0-9]{0,9}\.json$/.test(name)) continue;
    const file = path.join(dir, name);
    present.add(name);
    let stat: fs.Stats | undefined;
    if (kept !== undefined) {
      try {
        stat = fs.statSync(file);
      } catch {
        continue; // gone meanwhile, or a loop of links: unreadable
      }
      const was = keptLive(kept.get(name));
      if (was !== undefined && sameStamp(was.s, stampOf(stat)) && trusted(was.s, was.at)) {
        if (was.v !== null) found.push({ file, ...was.v });
        continue;
      }
    }
    const at = now;
    const live = readLiveSessionFile(file);
    if (live !== undefined) found.push(live);
    if (kept !== undefined && stat !== undefined && trusted(stampOf(stat), at)) {
      const { file: _, ...v } = live ?? { file };
      kept.set(name, { s: stampTuple(stampOf(stat)), at, v: live === undefined ? null : v });
    }
  }
  kept?.retain(present);
  return found;
}

/** The session the live-session file of process `pid` names now (a `/clear` changes it), undefined when it has none. */
export function liveSessionOfPid(configDir: string, pid: number): string | undefined {
  return readLiveSessionFile(path.join(configDir, 'sessions', `${pid}.json`))?.sessionId;
}

/** One live-session file, undefined when it is damaged, foreign or unreadable. */
function readLiveSessionFile(file: string): LiveSessionFile | undefined {
  let value: unknown;
  try {
    value = JSON.parse(readBoundedText(file, MAX_SESSION_FILE_BYTES));
  } catch {
    return undefined;
  }
  return liveFields(file, value);
}

function liveFields(file: string, value: unknown): LiveSessionFile | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const pid = num(v.pid);
  const sessionId = str(v.sessionId);
  if (pid === undefined || !Number.isInteger(pid) || pid <= 0 || sessionId === undefined || !SESSION_ID.test(sessionId)) return undefined;
  return {
    file,
    pid,
    sessionId,
    cwd: folder(v.cwd),
    name: str(v.name),
    status: str(v.status),
    waitingFor: str(v.waitingFor),
    statusUpdatedAt: time(v.statusUpdatedAt),
    procStart: typeof v.procStart === 'number' ? String(v.procStart) : str(v.procStart),
    pidDomain: str(v.pidDomain),
    startedAt: time(v.startedAt),
    updatedAt: time(v.updatedAt),
  };
}

/** A kept live-session file: its stamp, when it was read, what it said (null: nothing usable). Checked like the file itself. */
function keptLive(value: unknown): { s: FileStamp; at: number; v: Omit<LiveSessionFile, 'file'> | null } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { s, at, v } = value as Record<string, unknown>;
  const stamp = stampFromTuple(s);
  if (stamp === undefined || typeof at !== 'number') return undefined;
  if (v === null) return { s: stamp, at, v: null };
  const live = liveFields('', v);
  if (live === undefined) return undefined;
  const { file: _, ...fields } = live;
  return { s: stamp, at, v: fields };
}

/** A live-session file's status as this tool speaks of it: busy, waiting for a person, or idle. */
export function activityOf(live: Pick<LiveSessionFile, 'status'>): 'busy' | 'waiting' | 'idle' {
  return live.status === 'busy' ? 'busy' : live.status === 'waiting' ? 'waiting' : 'idle';
}

/**
 * Is this session running now, and busy on a turn (or waiting for a person in one)? Reads only the live-session files
 * (no transcripts): cheap enough to ask every second while following a session.
 * undefined: no live-session file of it has a running process.
 */
export function sessionActivity(
  configDir: string,
  sessionId: string,
  probe: ProcessProbe = procProbe,
): 'busy' | 'waiting' | 'idle' | undefined {
  const running = readLiveSessionFiles(configDir).filter((l) => l.sessionId === sessionId && judgeProcess(l, probe) === 'running');
  if (running.length === 0) return undefined;
  // A dialog of Claude Code's own (`/config`) is shown between turns too: at its prompt, idle.
  const all = running.map((l) => (activityOf(l) === 'waiting' && l.waitingFor === 'dialog open' ? 'idle' : activityOf(l)));
  return all.includes('busy') ? 'busy' : all.includes('waiting') ? 'waiting' : 'idle';
}
