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
  /** Where `hosts` come from: `TASKS_HOST` when no host was typed. */
  from: '-H' | 'TASKS_HOST';
}

/** Global options that take a value (as commandNameIn in commands/index.ts knows them). */
export const WITH_VALUE = new Set(['-l', '--list', '--session', '--config-dir', '-H', '--host']);

/**
 * The commands' own options that take a value, in every command that has them (test/unit/
 * remote-host.test.ts holds this to the program). Commander gives such an option the word
 * after it, whatever it looks like (`update 4 --subject -x`, `--subject --help`), but for
 * a word it reads as one of the program's options first (`--json`, `-l`, `--version`).
 * A host word or a version word is the option's value too: `update 4 --subject -Hotfix`
 * names no host, `--subject -V` asks for no version, and the run here joins the two words
 * for commander (withValuesJoined, command-values.ts).
 */
const COMMAND_WITH_VALUE = new Set([
  ...['--active-form', '--add-blocked-by', '--add-blocks', '--as', '--blocked-by', '--blocks', '--by', '--click', '--description'],
  ...['--fail-if-stalled', '--format', '--from', '--if-owner', '--if-status', '--kill-after', '--limit', '--listen', '--meta'],
  ...['--min-age', '--on', '--output', '--owner', '--port', '--record', '--retries', '--search', '--since', '--sort'],
  ...['--stale-after', '--status', '--stream', '--subject', '--timeout', '--title', '--to', '--txn', '--unset-meta', '--until'],
  ...['--who', '-d', '-f', '-o', '-s', '-t', '-u'],
]);

/** Does `word`, an option of `command`'s own, take the next word as its value? (`--stalled` does in notify; in list and lists its value is optional.) */
export function commandTakesValue(command: string, word: string): boolean {
  return COMMAND_WITH_VALUE.has(word) || (command === 'notify' && word === '--stalled');
}

/** `-H box`, `-Hbox`, `--host box`, `--host=box`: a word that names a host, by itself or with the next. */
export const isHostWord = (word: string): boolean => hostValue(word, undefined) !== undefined;

/**
 * `--version`, `-V`, `-Vx` (`-V -x` to commander): the program's version, which commander
 * reads before a command's options wherever it is, even as the value of one of them
 * (`update 4 --subject -V` printed the version and changed nothing). Such a word after a
 * command's option that takes a value is that value here, as `-h` and `--help` are to
 * commander itself: it is not one of the words programTakes.
 */
export const isVersionWord = (word: string): boolean => word === '--version' || /^-V/.test(word);

/** The program's options, read by commander before a command's own, wherever they are (but for a host or version word after a command's option: see COMMAND_WITH_VALUE). */
export function programTakes(word: string): boolean {
  return PROGRAM_WORDS.has(word) || /^-[lH]./.test(word) || /^--(list|session|config-dir|host|hosts)=/.test(word);
}
const PROGRAM_WORDS = new Set([...WITH_VALUE, '--hosts', '--json', '--no-color']);

/** How many words after `argv[i]` are its value: 1 for an option that takes the next word, else 0. */
function valueWords(argv: readonly string[], i: number, command: string | undefined): number {
  const word = argv[i] as string;
  const next = argv[i + 1];
  if (next === undefined) return 0;
  if (WITH_VALUE.has(word)) return 1;
  // A command's option never takes the `--`: commander's reading of the program's options ends there first.
  if (command === undefined || next === '--' || !commandTakesValue(command, word)) return 0;
  return isHostWord(next) || !programTakes(next) ? 1 : 0;
}

/** The hosts named on `argv` (`node tasks ...`), by a hosts file (`--hosts`) or in the environment; undefined when none. */
export function hostArgv(argv: readonly string[], env: NodeJS.ProcessEnv): HostArgv | undefined {
  const hosts: string[] = [];
  const args: string[] = [];
  let command: string | undefined;
  let boardHost = false;
  let hostsFile: string | true | undefined;
  let refused: string | undefined;
  // A help word before `--` that is no option's value (read here, on the whole line: taking the hosts out would join words).
  let help = false;
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
    // An option's value, whatever it looks like (commander gives it the next word).
    if (valueWords(argv, i, command) === 1) args.push(argv[++i] as string);
    else if (HELP_WORDS.has(word)) help = true;
    else if (command === undefined && !word.startsWith('-')) command = word;
  }
  // Help, the version and the completion script: this build's own text, the same on any
  // host, so they are answered here even with a host named (bin/tasks.js asks the same, or
  // more: a help word that is an option's value is not help, and the whole CLI then finds
  // the host): `export TASKS_HOST=devbox` must not make `tasks --help` wait for that host,
  // fail when it is down, or turn a shell's start (eval "$(tasks completion bash)") into an ssh call.
  if (command === 'help' || command === 'completion' || help) return undefined;
  const from = hosts.length === 0 && hostsFile === undefined && env.TASKS_HOST ? 'TASKS_HOST' : '-H';
  if (from === 'TASKS_HOST') hosts.push(env.TASKS_HOST as string);
  if (hostsFile !== undefined) return { hosts, args, command, boardHost, from, hostsFile, ...(refused === undefined ? {} : { refused }) };
  return hosts.length === 0 ? undefined : { hosts, args, command, boardHost, from };
}

/** The words that ask for help or the version (before `--`: after it they are a command's arguments). */
const HELP_WORDS = new Set(['--help', '-h', '--version', '-V']);

/** Does a command line ask for help or the version (a help word before `--`, not an option's value)? */
export function asksForHelp(args: readonly string[]): boolean {
  let command: string | undefined;
  for (let i = 0; i < args.length && args[i] !== '--'; i++) {
    const word = args[i] as string;
    if (valueWords(args, i, command) === 1) i++;
    else if (HELP_WORDS.has(word)) return true;
    else if (command === undefined && !word.startsWith('-')) command = word;
  }
  return false;
}

/** The global options that only shape what is said (kept with --disconnect). */
const OUTPUT_FLAGS = new Set(['--json', '--no-color']);

/**
 * The words of a command line that asks to close a kept connection (`--disconnect`, after
 * the global options that only shape what is said: `--json --disconnect`), else undefined.
 */
export function disconnectWords(args: readonly string[]): string[] | undefined {
  const words = args.filter((word) => !OUTPUT_FLAGS.has(word));
  return words[0] === '--disconnect' ? words : undefined;
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
