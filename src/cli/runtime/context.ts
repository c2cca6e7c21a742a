/**
 * The runtime of a command: the context it works in and the IO it reports through.
 * The context (this file) is where a run works, decided once per run from its inputs
 * (the environment, the working directory, the global options): the config folder,
 * home, the person, the sessions, which list, which hooks may run, and the run's
 * journal flags. It reads no process state of its own: main.ts hands it the process's,
 * a test its own. What the run reads and writes is its IO (io.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { TasksError } from '../../core/base/errors.js';
import { managedSettingsDir, type SettingsPlaces } from '../../core/binding/settings-files.js';
import { cacheRoot, ownerCacheDir } from '../../core/cache/cache-location.js';
import { untrustedCacheReason } from '../../core/cache/cache-trust.js';
import { PersistentCache } from '../../core/cache/persistent-cache.js';
import { goneHeldInProgress, goneHeldTasks, goneOwnersOfList } from '../../core/history/list-owners.js';
import type { HookPolicySources } from '../../core/hooks/hook-settings.js';
import type { ListChoice } from '../../core/lists/list-choice.js';
import type { GoneHeld, GoneOwners } from '../../core/sessions/gone-owners.js';
import { namedProjectFolder } from '../../core/sessions/project-folders.js';
import { SessionIndex } from '../../core/sessions/session-index.js';
import { refuseEmptyConfigDir } from '../../core/store/config-dir-check.js';
import { listDirOf, resolveConfigDir } from '../../core/store/paths.js';
import type { Task } from '../../core/store/schema.js';
import { listWords } from '../../render/new-list.js';
import type { IO } from './io.js';
import { type ChoiceNeeds, chooseForRun, shortOf } from './list-choice-run.js';
import { runClock } from './run-clock.js';

/** The options every command shares, defined once on the root program. */
export interface GlobalOptions {
  list?: string;
  session?: string;
  configDir?: string;
  json?: boolean;
  color?: boolean;
}

/** Where a run starts: its environment and working directory (undefined: it was deleted). */
export interface RunPlace {
  env: NodeJS.ProcessEnv;
  cwd: string | undefined;
  /** Which system's paths (managed settings); the process's by default. */
  platform?: NodeJS.Platform;
  /** The user's uid (where local settings live depends on who owns a repository); the process's by default. */
  uid?: number | undefined;
  /** The command line (`node tasks ...`, as process.argv is): the commands a refusal offers repeat it. */
  argv?: readonly string[] | undefined;
}

/**
 * The person running tasks, by login name: $USER, else $LOGNAME, else the account's
 * name; undefined when none can be told. The one lookup, for `@me` and for the journal.
 */
export function loginName(env: NodeJS.ProcessEnv): string | undefined {
  const fromEnv = env.USER || env.LOGNAME;
  if (fromEnv) return fromEnv;
  try {
    return os.userInfo().username;
  } catch {
    return undefined;
  }
}

/** The working directory of the process, or undefined when it was deleted under us. */
export function processCwd(): string | undefined {
  try {
    return process.cwd();
  } catch {
    return undefined;
  }
}

/** What a run's journal record needs from its command (journal-recording.ts). */
export interface RunJournal {
  /** An undo that finishes an interrupted one records under that one's txn. */
  txn?: string | undefined;
  /** An undo or redo: the txns it takes back or applies again; a command that changes several lists: them all. */
  marks: { undoes?: string[]; redoes?: string[]; lists?: string[] };
  /** Append the `end` line of this undo or redo to the list's journal. */
  end: (listDir: string) => void;
  /** The txn this run's record uses. */
  txnInUse?: () => string;
}

/** Names this build of the CLI bundle (scripts/build-cli.mjs); undeclared when unbundled. */
declare const TASKS_BUILD: string | undefined;

/** A line channel to a host's board (`tasks board-feed` there), as src/board's feed client takes it. */
export interface HostFeedChannel {
  send(line: string): void;
  onLine(cb: (line: string) => void): void;
  onClose(cb: (cause: string) => void): void;
  close(): void;
}

/**
 * A host of `tasks board -H`: its name as the user gave it, and how to connect (rejects
 * with the cause in one line); `globalArgs` (`-l web`, `--config-dir d`) are given to the
 * board there as its own command line's.
 */
export interface HostFeed {
  label: string;
  connect(globalArgs: readonly string[]): Promise<HostFeedChannel>;
  /** How long the host has to answer each request once connected (ms). */
  deadlineMs: number;
}

export class Context {
  readonly env: NodeJS.ProcessEnv;
  /**
   * Where the command runs. Undefined when that directory was deleted: then there is no
   * project (no session of "this directory", no project settings or hooks, no --here).
   */
  readonly cwd: string | undefined;
  private readonly platform: NodeJS.Platform;
  private readonly uid: number | undefined;
  /** The command line after the program's name. */
  readonly args: readonly string[];
  /** `tasks board -H a -H b`: how each host's board is reached (set by run.ts from board-hosts/); undefined: this machine's. */
  hostFeeds: HostFeed[] | undefined;
  private root: Pick<Command, 'opts'> | undefined;
  private configDirOf: { flag: string | undefined; env: string | undefined; dir: string } | undefined;
  private sessionIndex: SessionIndex | undefined;
  private homeCache: string | undefined;
  /** The persistent cache, made once a run: every session index of the run shares it. */
  private cache: PersistentCache | undefined;
  private cacheMade = false;
  /** This run's journal record (journal-recording.ts): set by the run before its command starts. */
  journal: RunJournal = { marks: {}, end: () => {} };
  /**
   * Stop recording this run's writes as one change (set by the run): for a command that
   * records each of its changes itself, as the board records each action as one.
   */
  stopJournal: () => void = () => {};
  /** What this run subscribed to, undone when it ends (dispose). */
  private readonly subscriptions: Array<() => void> = [];
  /** Short ids against each list asked for (shortOf): the note of a project's choice and the hints after it share one listing of the lists. */
  private readonly shorts = new Map<string, (x: string) => string>();
  private clock: (() => number) | undefined;

  constructor(
    readonly io: IO,
    place: RunPlace,
  ) {
    this.env = place.env;
    this.cwd = place.cwd;
    this.platform = place.platform ?? process.platform;
    this.uid = 'uid' in place ? place.uid : process.getuid?.();
    this.args = (place.argv ?? []).slice(2);
  }

  /**
   * The root program, whose options are the global ones (or, for a plain read that builds
   * no program, read-path/, those options as it parsed them); --json and --no-color go to the IO.
   */
  attach(root: Pick<Command, 'opts'>): void {
    this.root = root;
    this.io.useFlags(() => this.globals());
  }

  /** The run ended: stop listening for what it no longer needs to hear; keep what the session index worked out. */
  dispose(): void {
    for (const off of this.subscriptions.splice(0)) off();
    try {
      this.sessionIndex?.saveCache();
    } catch {
      // A cache that cannot be kept only costs the next run time.
    }
  }

  /** What time it is for this run, in ms since the epoch: the real time, or `$TASKS_NOW` (run-clock.ts). */
  now(): number {
    this.clock ??= runClock(this.env);
    return this.clock();
  }

  globals(): GlobalOptions {
    return (this.root?.opts() ?? {}) as GlobalOptions;
  }

  get configDir(): string {
    const flag = this.globals().configDir;
    const env = this.env.CLAUDE_CONFIG_DIR;
    // Asked for a dozen times a run: resolved again only when what it is made of has changed (--config-dir once parsed).
    const known = this.configDirOf;
    if (known !== undefined && known.flag === flag && known.env === env) return known.dir;
    refuseEmptyConfigDir(flag, env);
    const dir = resolveConfigDir({ flag, env, home: this.rawHome, cwd: this.cwd });
    this.configDirOf = { flag, env, dir };
    return dir;
  }

  /** $HOME as given, else the account's home. */
  private get rawHome(): string {
    return this.env.HOME || os.homedir();
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
    return {
      globalConfigFile: named ? path.join(this.configDir, '.claude.json') : path.join(this.rawHome, '.claude.json'),
      managedDir: managedSettingsDir(this.platform, this.env.TASKS_MANAGED_SETTINGS_DIR),
      sandboxed: Boolean(this.env.CLAUDE_CODE_SANDBOXED),
    };
  }

  /**
   * The home directory as Claude Code records paths: resolved (a symlinked $HOME points
   * where sessions' working directories really are).
   */
  get home(): string {
    if (this.homeCache !== undefined) return this.homeCache;
    const home = this.rawHome;
    try {
      // One realpath(3) call where Node's own walk would lstat each part of the path (Windows: Node's walk, which knows its drives).
      this.homeCache = this.platform === 'win32' ? fs.realpathSync(home) : fs.realpathSync.native(home);
    } catch {
      this.homeCache = home;
    }
    return this.homeCache;
  }

  /** The person running tasks, by login name (loginName): an owner that is never "gone", and `@me`. */
  get person(): string | undefined {
    return loginName(this.env);
  }

  /**
   * Owners in this list whose session is over, or undefined when none can be said to be,
   * as a plain read judges them (a named list's sessions not found by reading their
   * transcripts whole: goneOwned does, for the commands that act on the list).
   */
  goneOwners(listId: string): GoneOwners | undefined {
    return goneOwnersOfList(this.sessions, listDirOf(this.configDir, listId), listId, () => this.person);
  }

  /**
   * Of `tasks`, those `release --gone` would give back, by id (history/list-owners.ts: a
   * named list's sessions found by their transcripts, read whole): what `check` reports.
   */
  goneOwned(listId: string, tasks: readonly Task[]): ReadonlyMap<string, GoneHeld> {
    const { held } = goneHeldTasks(this.sessions, listDirOf(this.configDir, listId), listId, () => this.person, tasks);
    return new Map(held.map((h) => [h.task.id, h]));
  }

  /** The tasks in progress of `tasks` whose agent is gone (history/list-owners.ts): sessions are read only when one is in progress. */
  goneHeld(listId: string, tasks: readonly Task[]): ReadonlyMap<string, GoneHeld> {
    return goneHeldInProgress(this.sessions, listDirOf(this.configDir, listId), listId, () => this.person, tasks);
  }

  /** Where Claude Code's settings live, for the binding (`tasks use`) and live sessions' lists. */
  get settingsPlaces(): Omit<SettingsPlaces, 'configDir'> {
    return { home: this.home, uid: this.uid, managedDir: this.hookPolicy.managedDir };
  }

  /**
   * One session index per run: every command that needs sessions shares its reads, and
   * keeps what transcripts say in the user's cache folder for the next run (saved when
   * the run ends).
   */
  get sessions(): SessionIndex {
    this.sessionIndex ??= this.newSessionIndex();
    return this.sessionIndex;
  }

  /**
   * A session index of its own, read afresh, sharing this run's persistent cache: for a
   * run that lasts (the board), whose sessions start, end and turn busy or idle meanwhile.
   * Its owner saves what it worked out (saveCache).
   */
  /**
   * What a board of this machine reads and writes with (`tasks board`, and `tasks
   * board-feed` for a board on another machine): the config folder, the person, the
   * hooks of the folder it runs in, fresh session indexes.
   */
  boardPlace() {
    return {
      configDir: this.configDir,
      home: this.home,
      person: this.person,
      hookPolicy: this.hookPolicy,
      projectDir: this.cwd,
      settings: { ...this.settingsPlaces, configDir: this.configDir },
      newSessionIndex: () => this.newSessionIndex(),
      env: this.env,
      pid: process.pid,
    };
  }

  newSessionIndex(): SessionIndex {
    return new SessionIndex(this.configDir, {
      settings: this.settingsPlaces,
      cache: this.persistentCache(),
      now: () => this.now(),
      namedFolder: this.namedProjectFolder,
    });
  }

  /** The project folder `$CLAUDE_CODE_PROJECT_DIR_NAME` names for sessions started in this environment (project-folders.ts). */
  get namedProjectFolder(): string | undefined {
    return namedProjectFolder(this.env);
  }

  /**
   * The persistent cache of this config folder (core/cache): `$XDG_CACHE_HOME/tasks`, else
   * `~/.cache/tasks`. Only the built CLI keeps one: its cache is that build's alone.
   */
  private persistentCache(): PersistentCache | undefined {
    if (typeof TASKS_BUILD === 'undefined') return undefined;
    if (this.cacheMade) return this.cache;
    this.cacheMade = true;
    const root = cacheRoot({ xdgCacheHome: this.env.XDG_CACHE_HOME, home: this.rawHome });
    if (root === undefined) return undefined;
    const configDir = path.resolve(this.configDir);
    const dir = ownerCacheDir(root, configDir);
    // A folder another user could have written is not read: the run keeps what it works out in memory.
    const untrusted = untrustedCacheReason(dir, this.uid);
    if (untrusted !== undefined)
      this.io.warn(
        `not using the cache folder: ${untrusted}; make it yours and private (chmod 700) or remove it, or set XDG_CACHE_HOME to a folder of your own`,
        'cache_untrusted',
        { dir },
      );
    this.cache = new PersistentCache({
      dir: untrusted === undefined ? dir : undefined,
      owner: configDir,
      build: TASKS_BUILD,
      uid: this.uid,
    });
    return this.cache;
  }

  /**
   * Pick the list (core's rules) and tell the run about it (list-choice-run.ts): a note
   * when the project or the lists on disk chose it, paste-able commands when a change
   * cannot choose, a missing list named with what was probably meant, a new list
   * announced when a change makes it.
   */
  list(forWrite: boolean, needs: ChoiceNeeds = {}): ListChoice {
    const globals = this.globals();
    return chooseForRun(
      {
        io: this.io,
        configDir: this.configDir,
        flag: globals.list,
        session: globals.session,
        env: this.env.CLAUDE_CODE_TASK_LIST_ID,
        cwd: this.cwd,
        home: this.home,
        settings: this.settingsPlaces,
        sessions: this.sessions,
        args: this.args,
        subscribe: (stop) => this.subscriptions.push(stop),
        shortIds: (id) => this.shortsOf(id),
      },
      forWrite,
      needs,
    );
  }

  /** A list in a sentence: `list "build-9"`, or `the list of session 7c1e2f30` (render/new-list.ts). */
  listWords(id: string): string {
    return listWords(this.shortId(id), this.sessions.knows(id));
  }

  /** A list as `tasks lists` shows it: a session UUID by its short id, a name as it is. */
  shortId(id: string): string {
    return this.shortsOf(id)(id);
  }

  private shortsOf(id: string): (x: string) => string {
    let short = this.shorts.get(id);
    if (short === undefined) this.shorts.set(id, (short = shortOf(this.configDir, id)));
    return short;
  }

  /**
   * What a hint must add to name the list it was given for: `-l <short id>`, unless the
   * list came from the variable or the binding, which a pasted command finds again.
   */
  listArgs(choice: ListChoice): string[] {
    if (choice.how === 'env' || choice.how === 'binding') return [];
    return ['-l', this.shortId(choice.id)];
  }
}

export function usage(message: string, hint?: string): TasksError {
  return new TasksError('usage', message, hint === undefined ? {} : { hint });
}
