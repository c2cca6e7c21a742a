/**
 * The context a command runs in, decided once per run: the streams it writes to (stdout
 * for data, stderr for everything else), colour, width, whether a person is reading, and
 * where it works (config folder, home, the person, sessions, which list). Commands
 * report results and errors here; only main.ts turns the recorded code into an exit status.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { TasksError, isTasksError } from '../../core/base/errors.js';
import { chooseList, listIds, type ListChoice } from '../../core/lists/list-choice.js';
import { nearNames } from '../../core/lists/near-names.js';
import { shortIds } from '../../core/lists/short-ids.js';
import { ownersSetWithTasks } from '../../core/history/journal.js';
import { goneOwners, type GoneOwners } from '../../core/sessions/gone-owners.js';
import { onTaskWrite } from '../../core/writes/write-events.js';
import { SessionIndex } from '../../core/sessions/session-index.js';
import type { HookPolicySources } from '../../core/hooks/hook-settings.js';
import { listDirOf, resolveConfigDir } from '../../core/store/paths.js';
import { renderErrorJson, renderErrorText } from '../../render/error.js';
import { decideColor, makeStyle, type Style } from '../../render/style.js';
import { renderChoiceNote } from '../../render/list-choice-note.js';
import { oneLine } from '../../render/text.js';
import { EXIT, exitCodeFor, worse } from './exit-codes.js';
import type { OutputTarget } from './fd-output.js';

/** The options every command shares, defined once on the root program. */
export interface GlobalOptions {
  list?: string;
  session?: string;
  configDir?: string;
  json?: boolean;
  color?: boolean;
}

/**
 * What a command needs of the outside world, decided once per process: streams,
 * environment, colour, width. Commands report results here; only main.ts turns the
 * recorded worst code into the process's exit status.
 */
export class App {
  readonly env: NodeJS.ProcessEnv;
  readonly isTTY: boolean;
  readonly stderrIsTTY: boolean;
  exitCode: number = EXIT.ok;
  private styleCache: Style | undefined;
  private root: Command | undefined;
  private sessionIndex: SessionIndex | undefined;
  private homeCache: string | undefined;
  /** Set by `undo`: the journal txn this run takes back. */
  undoing: string | undefined;
  /** Append this run's journal record now, rather than when it ends (set by main.ts). */
  flushJournal: () => void = () => {};

  constructor(
    private readonly stdout: OutputTarget,
    private readonly stderr: OutputTarget,
    env: NodeJS.ProcessEnv,
  ) {
    this.env = env;
    this.isTTY = Boolean(stdout.isTTY);
    this.stderrIsTTY = Boolean(stderr.isTTY);
  }

  attach(root: Command): void {
    this.root = root;
  }

  globals(): GlobalOptions {
    return (this.root?.opts() ?? {}) as GlobalOptions;
  }

  get json(): boolean {
    return Boolean(this.globals().json);
  }

  get style(): Style {
    this.styleCache ??= makeStyle(decideColor({ flag: this.globals().color, env: this.env, isTTY: this.isTTY }));
    return this.styleCache;
  }

  /**
   * Could any output of this run be coloured? Decided before the command line is parsed
   * (so that chalk is loaded only when it may be used): `--no-color` anywhere says no.
   */
  mayColour(argv: readonly string[]): boolean {
    const flag = argv.includes('--no-color') ? false : undefined;
    return (
      decideColor({ flag, env: this.env, isTTY: this.isTTY }) || decideColor({ flag, env: this.env, isTTY: this.stderrIsTTY })
    );
  }

  /** Colour on stderr follows the same rules, judged on stderr's own TTY. */
  get errStyle(): Style {
    return makeStyle(decideColor({ flag: this.globals().color, env: this.env, isTTY: this.stderrIsTTY }));
  }

  /**
   * Human layout (tables) on a terminal, plain lines otherwise: the terminal alone
   * decides. FORCE_COLOR, NO_COLOR and --no-color decide colour only (CI systems set
   * FORCE_COLOR, and a script reading the lines must get the same lines there).
   */
  get humanLayout(): boolean {
    return this.isTTY;
  }

  /** `process.stdout.columns` can be 0 in a pseudo-terminal: fall back to $COLUMNS, then 80. */
  get columns(): number {
    const fromStream = this.stdout.columns ?? 0;
    if (fromStream > 0) return fromStream;
    const fromEnv = Number.parseInt(this.env.COLUMNS ?? '', 10);
    return fromEnv > 0 ? fromEnv : 80;
  }

  get configDir(): string {
    return resolveConfigDir({ flag: this.globals().configDir, env: this.env.CLAUDE_CONFIG_DIR, home: this.env.HOME || os.homedir() });
  }

  /**
   * Where Claude Code keeps what decides which hooks may run. Its global config (folder
   * trust) is `.claude.json` in the config folder when one is named (`--config-dir`,
   * `$CLAUDE_CONFIG_DIR`), else `~/.claude.json`. Managed settings live in
   * /etc/claude-code (macOS: /Library/Application Support/ClaudeCode);
   * `$TASKS_MANAGED_SETTINGS_DIR` points elsewhere (tests, unusual installs).
   */
  get hookPolicy(): HookPolicySources {
    const named = this.globals().configDir !== undefined || this.env.CLAUDE_CONFIG_DIR !== undefined;
    const home = this.env.HOME || os.homedir();
    const defaultManaged = process.platform === 'darwin' ? '/Library/Application Support/ClaudeCode' : '/etc/claude-code';
    return {
      globalConfigFile: named ? path.join(this.configDir, '.claude.json') : path.join(home, '.claude.json'),
      managedDir: this.env.TASKS_MANAGED_SETTINGS_DIR || defaultManaged,
      sandboxed: Boolean(this.env.CLAUDE_CODE_SANDBOXED),
    };
  }

  /** Where the command runs; undefined when that directory was deleted (no project then). */
  get cwd(): string | undefined {
    return currentDir();
  }

  /**
   * The home directory as Claude Code records paths: resolved (a symlinked $HOME points
   * where sessions' working directories really are).
   */
  get home(): string {
    if (this.homeCache !== undefined) return this.homeCache;
    const home = this.env.HOME || os.homedir();
    try {
      this.homeCache = fs.realpathSync(home);
    } catch {
      this.homeCache = home;
    }
    return this.homeCache;
  }

  /** The person running tasks, by login name: an owner that is never "gone". */
  get person(): string | undefined {
    const fromEnv = this.env.USER || this.env.LOGNAME;
    if (fromEnv) return fromEnv;
    try {
      return os.userInfo().username;
    } catch {
      return undefined;
    }
  }

  /** Owners in this list whose session is over, or undefined when none can be said to be. */
  goneOwners(listId: string): GoneOwners | undefined {
    const people = () => {
      const named = ownersSetWithTasks(listDirOf(this.configDir, listId));
      if (this.person !== undefined) named.add(this.person);
      return named;
    };
    return goneOwners(this.sessions, listId, people);
  }

  /** One session index per process: every command that needs sessions shares its reads. */
  get sessions(): SessionIndex {
    this.sessionIndex ??= new SessionIndex(this.configDir);
    return this.sessionIndex;
  }

  /**
   * Pick the list (core's rules); say on stderr which and why when it was not named. A
   * list that does not exist is not found (exit 3, with the names it is close to),
   * unless the command `creates` lists (create, import: a new list is announced, and a
   * name one typo away from an existing list is refused without --new-list) or
   * `mayBeMissing` (watch waits for it).
   */
  list(forWrite: boolean, opts: { creates?: boolean; newList?: boolean; mayBeMissing?: boolean } = {}): ListChoice {
    const globals = this.globals();
    const choice = chooseList(this.configDir, {
      flag: globals.list,
      exact: opts.newList,
      session: globals.session,
      env: this.env.CLAUDE_CODE_TASK_LIST_ID,
      forWrite,
      cwd: this.cwd,
      home: this.home,
      index: this.sessions,
    });
    // The only list there is needs no explaining to a script; a person is told whose it is.
    const quiet = choice.how === 'only' && !this.stderrIsTTY;
    if (!quiet) {
      if (choice.how === 'only' && choice.exists) choice.session = this.sessions.sessionsOfList(choice.id)[0];
      const known = shortIds([...new Set([...listIds(this.configDir), choice.id])]);
      const short = (id: string) => known.get(id) ?? id;
      const note = renderChoiceNote(choice, { home: this.home, now: Date.now(), width: this.stderrIsTTY ? this.stderrColumns : 100, short });
      if (note !== undefined) this.note(oneLine(note));
    }
    if (!choice.exists) this.missingList(choice, opts);
    return choice;
  }

  private missingList(choice: ListChoice, opts: { creates?: boolean; newList?: boolean; mayBeMissing?: boolean }): void {
    if (opts.mayBeMissing) return;
    const near = nearNames(choice.id, listIds(this.configDir));
    if (!opts.creates) {
      throw new TasksError('not_found', `list folder ${choice.dir} does not exist${near.length > 0 ? `; did you mean ${near.join(' or ')}?` : ''}`, {
        hint: near.length > 0 ? undefined : 'tasks lists shows the lists there are',
        details: { list: choice.id, ...(near.length > 0 ? { suggestions: near } : {}) },
      });
    }
    if (near.length > 0 && !opts.newList && choice.how === 'flag') {
      throw new TasksError('usage', `list "${choice.id}" does not exist; did you mean ${near.join(' or ')}? add --new-list to create it`, {
        details: { list: choice.id, suggestions: near },
      });
    }
    // Said when its first task is written (a folder that cannot be made is an error, not
    // a new list); with --json the created tasks say it, and stderr stays for errors alone.
    if (this.json) return;
    const stop = onTaskWrite((write) => {
      if (write.listDir !== choice.dir) return;
      stop();
      this.note(oneLine(`new list "${choice.id}"`));
    });
  }

  private get stderrColumns(): number {
    const fromEnv = Number.parseInt(this.env.COLUMNS ?? '', 10);
    return fromEnv > 0 ? fromEnv : 100;
  }

  /** A stream that may wait long between writes ends as soon as its reader goes (fd-output.ts). */
  followReader(): () => void {
    return this.stdout.followReader?.() ?? (() => {});
  }

  /** Data, on stdout. */
  out(text: string): void {
    this.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** Text on stdout as it is (commander's help and version). */
  write(text: string): void {
    this.stdout.write(text);
  }

  /** Text on stderr as it is. */
  writeErr(text: string): void {
    this.stderr.write(text);
  }

  /** Messages, warnings and progress, on stderr. */
  note(text: string): void {
    this.writeErr(`${text}\n`);
  }

  /** Warnings often quote file names and parse errors: shown without control characters. */
  warn(text: string): void {
    this.note(`${this.errStyle.yellow('warning:')} ${oneLine(text)}`);
  }

  /** Print an error (JSON with --json) and record its exit code; the batch goes on. */
  fail(err: unknown): void {
    const view = toErrorView(err);
    this.exitCode = worse(this.exitCode, view.exit);
    this.writeErr(`${this.json ? renderErrorJson(view) : renderErrorText(view, this.errStyle, this.stderrIsTTY)}\n`);
  }

  /** Record a non-zero outcome that was already reported (a refused claim, say). */
  setExit(code: number): void {
    this.exitCode = worse(this.exitCode, code);
  }
}

/** The working directory, or undefined when it was deleted under us. */
function currentDir(): string | undefined {
  try {
    return process.cwd();
  } catch {
    return undefined;
  }
}

function toErrorView(err: unknown) {
  if (isTasksError(err)) {
    return { code: err.code, message: err.message, hint: err.hint, details: err.details, exit: exitCodeFor(err.code) };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { code: 'internal', message: `unexpected: ${message}`, hint: undefined, details: undefined, exit: EXIT.failure };
}

export function usage(message: string, hint?: string): TasksError {
  return new TasksError('usage', message, hint === undefined ? {} : { hint });
}
