import fs from 'node:fs';
import path from 'node:path';

/**
 * Running Claude Code processes of this user, seen in /proc: the surest sign that a list
 * is still in use, even when a session's live-session file is gone (cleaned up, a copied
 * config folder) or when the list is shared through CLAUDE_CODE_TASK_LIST_ID by sessions
 * whose transcripts say nothing yet. Read only where a command asks whether a list's
 * agents are gone (lists, release --gone, stalled work), never for a plain read.
 *
 * A process is Claude Code when its program is named `claude` (the native binary, by the
 * name it was started under) or its command line runs the npm package
 * `@anthropic-ai/claude-code` (its script is the program's first argument). Its environment (`/proc/<pid>/environ`, readable for our
 * own processes only) gives the list variable and the config folder it was started with;
 * its command line, for a teammate of an agent team, `--team-name <team>`.
 */
export interface ClaudeProcess {
  pid: number;
  /** Field 22 of /proc/<pid>/stat. */
  startTime: string | undefined;
  /** Its working directory (settings are read there). */
  cwd: string | undefined;
  /** `$CLAUDE_CODE_TASK_LIST_ID` as it was started (settings may override it). */
  listVariable: string | undefined;
  /** The config folder it uses: `$CLAUDE_CONFIG_DIR`, else `$HOME/.claude`. */
  configDir: string | undefined;
  /** `--team-name` on its command line: a teammate. */
  teamName: string | undefined;
}

/** Every Claude Code process this user runs that /proc shows; none where there is no /proc. */
export function readClaudeProcesses(procRoot = '/proc'): ClaudeProcess[] {
  let names: string[];
  try {
    names = fs.readdirSync(procRoot);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    if (!/^[1-9][0-9]*$/.test(name)) return [];
    const found = readClaudeProcess(Number(name), procRoot);
    return found === undefined ? [] : [found];
  });
}

/** One process, if it is a Claude Code process of this user. */
export function readClaudeProcess(pid: number, procRoot = '/proc'): ClaudeProcess | undefined {
  if (pid === process.pid) return undefined;
  const dir = path.join(procRoot, String(pid));
  const argv = readNulList(path.join(dir, 'cmdline'));
  if (argv === undefined || !isClaude(argv)) return undefined;
  const env = readNulList(path.join(dir, 'environ'));
  if (env === undefined) return undefined; // another user's process, or gone
  const vars = new Map(env.map((kv) => [kv.slice(0, Math.max(0, kv.indexOf('='))), kv.slice(kv.indexOf('=') + 1)]));
  const config = vars.get('CLAUDE_CONFIG_DIR');
  const home = vars.get('HOME');
  const cwd = readLink(path.join(dir, 'cwd'));
  return {
    pid,
    startTime: startTime(path.join(dir, 'stat')),
    cwd,
    listVariable: vars.get('CLAUDE_CODE_TASK_LIST_ID'),
    configDir: config !== undefined ? path.resolve(cwd ?? '/', config) : home !== undefined ? path.join(home, '.claude') : undefined,
    teamName: optionValue(argv, '--team-name'),
  };
}

/**
 * Told by the command line alone (one read a process; a readlink of every process's
 * `exe` would cost as much again, for no process it would add: the native binary's
 * command line starts with its path).
 */
function isClaude(argv: readonly string[]): boolean {
  if (path.basename(argv[0] ?? '') === 'claude') return true;
  // `node <prefix>/@anthropic-ai/claude-code/cli.js`: the script itself, not a command line that mentions it.
  return argv.slice(1, 3).some((a) => /@anthropic-ai\/claude-code[^/]*\/(cli\.[cm]?js|claude)$/.test(a));
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

/** A NUL-separated /proc file (cmdline, environ), bounded; undefined when it cannot be read. */
function readNulList(file: string): string[] | undefined {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      procBuffer ??= Buffer.allocUnsafe(256 * 1024);
      const buffer = procBuffer;
      const n = fs.readSync(fd, buffer, 0, buffer.length, null);
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

function startTime(statFile: string): string | undefined {
  try {
    const stat = fs.readFileSync(statFile, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}
