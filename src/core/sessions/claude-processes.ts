import fs from 'node:fs';
import path from 'node:path';
import { namedProjectFolder } from './project-folders.js';

/**
 * Running Claude Code processes of this user, seen in /proc: the surest sign that a list
 * is still in use, even when a session's live-session file is gone (cleaned up, a copied
 * config folder) or when the list is shared through CLAUDE_CODE_TASK_LIST_ID or
 * `--settings` by sessions whose transcripts say nothing yet. Read only where a command
 * asks whether a list's agents are gone (lists, release --gone, stalled work), or when a
 * session's live-session file is missing, never for a plain read of a named list.
 *
 * A process is Claude Code when the path it was started by (`argv[0]`) or its executable
 * (`/proc/<pid>/exe`) is one of the binary's installed names (docs/task-store.md section
 * 10): `claude` or `claude.exe` (the npm package's bin, its platform package, a link on
 * the PATH), `<...>/claude/versions/<version>` (the native installer; Claude Code also
 * starts its teammates by that path, `process.execPath`), anything inside
 * `@anthropic-ai/claude-code*`; or when its command line runs the npm package's script
 * (`node <...>/@anthropic-ai/claude-code/cli.js`). The binary also runs itself under the
 * names of tools it embeds (`rg`, `apply-seccomp`): those are helpers, not sessions. Its
 * environment says nothing of its own (CLAUDECODE=1 is set for the processes it starts,
 * checked against 2.1.328: it marks a descendant, a shell or `tasks` run by an agent, not
 * Claude Code), so the names decide.
 *
 * Its environment (`/proc/<pid>/environ`, readable for our own processes only) gives the
 * list variable and the config folder it was started with; its command line,
 * `--settings` (settings that override the local ones), a teammate's `--team-name`, and
 * the session it resumes.
 */
export interface ClaudeProcess {
  pid: number;
  /** Field 22 of /proc/<pid>/stat. */
  startTime: string | undefined;
  /** When it started (ms since the epoch), from its start time and the boot time. */
  startedAt?: number | undefined;
  /** Its working directory (settings are read there). */
  cwd: string | undefined;
  /** `$CLAUDE_CODE_TASK_LIST_ID` as it was started (settings may override it). */
  listVariable: string | undefined;
  /** The config folder it uses: `$CLAUDE_CONFIG_DIR`, else `$HOME/.claude`. */
  configDir: string | undefined;
  /** The project folder its `$CLAUDE_CODE_PROJECT_DIR_NAME` names, where that applies (project-folders.ts). */
  projectFolder?: string | undefined;
  /** `--team-name` on its command line: a teammate. */
  teamName: string | undefined;
  /** `--settings <file-or-json>` on its command line, as given. */
  settingsFlag?: string | undefined;
  /** The session its command line names (`--resume <id>`, `--session-id <id>`), unless it forks a new one. */
  sessionArg?: string | undefined;
  /** It goes on with an earlier session (`--resume`, `--continue`): its transcript began before the process. */
  resumes?: boolean | undefined;
  /** Its parent process id (field 4 of /proc/<pid>/stat). */
  parentPid?: number | undefined;
}

/**
 * Every Claude Code process this user runs that /proc shows; none where there is no /proc.
 * `uid`: the user's (default: this process's). Another user's process is passed over by
 * the owner of its /proc folder, one stat, before its command line is read: its
 * environment could not be read anyway (readClaudeProcess), and on a desktop most
 * processes are the system's. Root reads every process's.
 */
export function readClaudeProcesses(procRoot = '/proc', uid = process.getuid?.()): ClaudeProcess[] {
  let names: string[];
  try {
    names = fs.readdirSync(procRoot);
  } catch {
    return [];
  }
  const others = uid !== undefined && uid !== 0;
  return names.flatMap((name) => {
    if (!/^[1-9][0-9]*$/.test(name)) return [];
    if (others && ownerOf(`${procRoot}/${name}`) !== uid) return [];
    const found = readClaudeProcess(Number(name), procRoot);
    return found === undefined ? [] : [found];
  });
}

/** The owner of a process's /proc folder (its effective user while it can be inspected); undefined when gone. */
function ownerOf(dir: string): number | undefined {
  try {
    return fs.statSync(dir, { throwIfNoEntry: false })?.uid;
  } catch {
    return undefined;
  }
}

/** One process, if it is a Claude Code process of this user. */
export function readClaudeProcess(pid: number, procRoot = '/proc'): ClaudeProcess | undefined {
  if (pid === process.pid) return undefined;
  // Joined by hand: a scan asks this of every process, and path.join's normalizing was a fifth of it.
  const dir = `${procRoot}/${pid}`;
  // What isClaude looks at first (the first three arguments), before the whole command line is decoded.
  const head = readNulList(`${dir}/cmdline`, 3);
  if (head === undefined || head.length === 0) return undefined;
  if (!isClaude(head, () => readLink(`${dir}/exe`))) return undefined;
  const argv = readNulList(`${dir}/cmdline`);
  if (argv === undefined || argv.length === 0) return undefined;
  const env = readNulList(`${dir}/environ`);
  if (env === undefined) return undefined; // another user's process, or gone
  const vars = new Map(env.map((kv) => [kv.slice(0, Math.max(0, kv.indexOf('='))), kv.slice(kv.indexOf('=') + 1)]));
  const config = vars.get('CLAUDE_CONFIG_DIR');
  const home = vars.get('HOME');
  const cwd = readLink(path.join(dir, 'cwd'));
  const stat = statFields(path.join(dir, 'stat'));
  const start = stat?.[19];
  const forks = argv.includes('--fork-session');
  const sessionArg = forks ? undefined : (optionValue(argv, '--session-id') ?? optionValue(argv, '--resume') ?? optionValue(argv, '-r'));
  return {
    pid,
    startTime: start,
    startedAt: startedAtMs(start, procRoot),
    cwd,
    listVariable: vars.get('CLAUDE_CODE_TASK_LIST_ID'),
    configDir:
      config !== undefined && config !== ''
        ? path.resolve(cwd ?? '/', config)
        : home !== undefined
          ? path.join(home, '.claude')
          : undefined,
    projectFolder: namedProjectFolder({
      CLAUDE_CONFIG_DIR: config,
      CLAUDE_CODE_PROJECT_DIR_NAME: vars.get('CLAUDE_CODE_PROJECT_DIR_NAME'),
    }),
    teamName: optionValue(argv, '--team-name'),
    settingsFlag: optionValue(argv, '--settings'),
    sessionArg: sessionArg !== undefined && /^[0-9a-f-]{36}$/i.test(sessionArg) ? sessionArg.toLowerCase() : undefined,
    resumes: argv.some((a) => a === '--resume' || a === '-r' || a === '--continue' || a === '-c' || a.startsWith('--resume=')),
    parentPid: stat?.[1] !== undefined && /^\d+$/.test(stat[1]) ? Number(stat[1]) : undefined,
  };
}

/** Names the binary runs itself under for tools it embeds: helpers of a session, not sessions. */
const HELPER_NAMES = new Set(['rg', 'apply-seccomp']);

/**
 * Told by the command line, and by the executable when the command line does not say
 * (one readlink, only then).
 */
export function isClaude(argv: readonly string[], exe: () => string | undefined): boolean {
  const argv0 = argv[0] ?? '';
  if (isClaudePath(argv0)) return true;
  // `node <prefix>/@anthropic-ai/claude-code/cli.js`: the script itself, not a command line that mentions it.
  if (argv.slice(1, 3).some((a) => /@anthropic-ai\/claude-code[^/]*\/(cli\.[cm]?js|claude)$/.test(a))) return true;
  if (HELPER_NAMES.has(path.basename(argv0))) return false;
  const target = exe()?.replace(/ \(deleted\)$/, '');
  return target !== undefined && isClaudePath(target);
}

/**
 * A path Claude Code's binary is installed or started by: `claude`, `claude.exe`
 * (`claude bg-pty-host` and the like: Claude Code's own background processes),
 * `.../claude/versions/<version>`, or within an `@anthropic-ai/claude-code*` package.
 */
export function isClaudePath(p: string): boolean {
  const base = path.basename(p);
  if (base === 'claude' || base === 'claude.exe' || base.startsWith('claude ')) return true;
  if (/(^|\/)claude\/versions\/[^/]+$/.test(p)) return true;
  return /\/@anthropic-ai\/claude-code[^/]*\//.test(p);
}

function optionValue(argv: readonly string[], option: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === option) return argv[i + 1];
    if (arg.startsWith(`${option}=`)) return arg.slice(option.length + 1);
  }
  return undefined;
}

/** One buffer for every /proc read: a fresh 256 KB one per file (two a process) was most of a scan's time, in the collector. */
let procBuffer: Buffer | undefined;

/**
 * A NUL-separated /proc file (cmdline, environ), bounded; undefined when it cannot be read.
 * `first`: only the text up to that many separators is decoded (most command lines a scan
 * meets are not Claude Code's, and some are long).
 */
function readNulList(file: string, first?: number): string[] | undefined {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      procBuffer ??= Buffer.allocUnsafe(256 * 1024);
      const buffer = procBuffer;
      let n = fs.readSync(fd, buffer, 0, buffer.length, null);
      if (first !== undefined) {
        let end = -1;
        for (let i = 0; i < first; i++) {
          const next = buffer.indexOf(0, end + 1);
          if (next < 0 || next >= n) break;
          end = next;
        }
        if (end >= 0 && end < n) n = end;
      }
      return buffer
        .toString('utf8', 0, n)
        .split('\0')
        .filter((s) => s !== '');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

function readLink(p: string): string | undefined {
  try {
    return fs.readlinkSync(p);
  } catch {
    return undefined;
  }
}

/** The fields of /proc/<pid>/stat after the command name (field 3 first), which may hold spaces or ')'. */
function statFields(statFile: string): string[] | undefined {
  try {
    const stat = fs.readFileSync(statFile, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Clock ticks a second in /proc's times (USER_HZ: 100 on every Linux Claude Code runs on). */
const TICKS_PER_SECOND = 100;
/** Each /proc root's boot time: a fact of the machine, the same for every run, read once. */
const boots = new Map<string, number | undefined>();

/**
 * When a process started, in ms since the epoch: the boot time (`btime` of /proc/stat) plus
 * its start in ticks. Both are cut down (whole seconds, ticks), so the process started at
 * this moment or up to a second after it, never before.
 */
export function startedAtMs(start: string | undefined, procRoot: string): number | undefined {
  if (start === undefined || !/^\d+$/.test(start)) return undefined;
  if (!boots.has(procRoot)) boots.set(procRoot, bootTime(procRoot));
  const boot = boots.get(procRoot);
  return boot === undefined ? undefined : boot + (Number(start) * 1000) / TICKS_PER_SECOND;
}

function bootTime(procRoot: string): number | undefined {
  try {
    const btime = /^btime (\d+)$/m.exec(fs.readFileSync(path.join(procRoot, 'stat'), 'latin1'))?.[1];
    return btime === undefined ? undefined : Number(btime) * 1000;
  } catch {
    return undefined;
  }
}
