/**
 * Which hosts a command line names (`-H`, `--host`, else `$TASKS_HOST`), found before
 * the command line is parsed: a command with a host is not run here at all, so nothing of
 * it is loaded. Kept free of imports: every run asks it.
 */

/** The hidden command line words of a kept connection (host-link.ts): the local broker's, and the host's side's. */
export const BROKER_COMMAND = '__host-broker';
export const SERVE_COMMAND = '__host-serve';

/** A command line's hosts and the command line without them (what the host runs). */
export interface HostArgv {
  hosts: string[];
  /** The arguments after `node tasks`, without the host options. */
  args: string[];
  /** The command named, if any (`board`, `list`, ...). */
  command: string | undefined;
  /** `board --host`: the board's old name for `--listen`, given after `board`. */
  boardHost: boolean;
  /** `--hosts` (true: the hosts file where tasks keeps it) or `--hosts=<file>`: every host a file names. */
  hostsFile?: string | true;
  /** Why the command line cannot be run as given (`--hosts=a --hosts=b`): a usage error. */
  refused?: string;
}

/** Global options that take a value (as commandNameIn in commands/index.ts knows them). */
const WITH_VALUE = new Set(['-l', '--list', '--session', '--config-dir', '-H', '--host']);

/** The hosts named on `argv` (`node tasks ...`), by a hosts file (`--hosts`) or in the environment; undefined when none. */
export function hostArgv(argv: readonly string[], env: NodeJS.ProcessEnv): HostArgv | undefined {
  const hosts: string[] = [];
  const args: string[] = [];
  let command: string | undefined;
  let boardHost = false;
  let hostsFile: string | true | undefined;
  let refused: string | undefined;
  for (let i = 2; i < argv.length; i++) {
    const word = argv[i] as string;
    if (word === '--') {
      args.push(...argv.slice(i));
      command ??= argv[i + 1];
      break;
    }
    if (word === '--hosts' || word.startsWith('--hosts=')) {
      const file = word === '--hosts' ? true : word.slice(8);
      // Two hosts files: which one was meant cannot be told (the same one twice is one).
      if (hostsFile !== undefined && hostsFile !== file)
        refused ??= `--hosts given twice (${named(hostsFile)}, then ${named(file)}): give it once`;
      hostsFile = file;
      continue;
    }
    const value = hostValue(word, argv[i + 1]);
    if (value !== undefined) {
      if (command === 'board') boardHost = true;
      hosts.push(value.host);
      i += value.words - 1;
      continue;
    }
    args.push(word);
    if (command === undefined) {
      if (WITH_VALUE.has(word) && i + 1 < argv.length) args.push(argv[++i] as string);
      else if (!word.startsWith('-')) command = word;
    }
  }
  if (answeredHere(command, args)) return undefined;
  if (hosts.length === 0 && hostsFile === undefined && env.TASKS_HOST) hosts.push(env.TASKS_HOST);
  if (hostsFile !== undefined) return { hosts, args, command, boardHost, hostsFile, ...(refused === undefined ? {} : { refused }) };
  return hosts.length === 0 ? undefined : { hosts, args, command, boardHost };
}

/** The words that ask for help or the version (before `--`: after it they are a command's arguments). */
const HELP_WORDS = new Set(['--help', '-h', '--version', '-V']);

/**
 * Help, the version and the completion script: this build's own text, the same on any
 * host, so they are answered here even with a host named (bin/tasks.js asks the same):
 * `export TASKS_HOST=devbox` must not make `tasks --help` wait for that host, fail when
 * it is down, or turn a shell's start (eval "$(tasks completion bash)") into an ssh call.
 */
function answeredHere(command: string | undefined, args: readonly string[]): boolean {
  return command === 'help' || command === 'completion' || asksForHelp(args);
}

/** Does a command line ask for help or the version (a help word before `--`)? */
export function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((word) => HELP_WORDS.has(word));
}

/** A hosts file as given: a path, or `--hosts` alone (the file where tasks keeps its hosts). */
const named = (file: string | true) => (file === true ? "tasks's own hosts file" : file);

/** `-H box`, `-Hbox`, `--host box`, `--host=box`: the host and how many words it took. */
function hostValue(word: string, next: string | undefined): { host: string; words: number } | undefined {
  if (word === '-H' || word === '--host') return { host: next ?? '', words: 2 };
  if (word.startsWith('--host=')) return { host: word.slice(7), words: 1 };
  if (word.startsWith('-H') && word.length > 2 && !word.startsWith('--')) return { host: word.slice(2), words: 1 };
  return undefined;
}
