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
import { goneOwnersOfList } from '../../core/history/list-owners.js';
import type { HookPolicySources } from '../../core/hooks/hook-settings.js';
import { chooseList, type ListChoice, listIds } from '../../core/lists/list-choice.js';
import { nearNames } from '../../core/lists/near-names.js';
import { shortIds } from '../../core/lists/short-ids.js';
import type { GoneOwners } from '../../core/sessions/gone-owners.js';
import { SessionIndex } from '../../core/sessions/session-index.js';
import { listDirOf, resolveConfigDir } from '../../core/store/paths.js';
import { onTaskWrite } from '../../core/writes/write-events.js';
import { renderChoiceNote } from '../../render/list-choice-note.js';
import { oneLine } from '../../render/text.js';
import type { IO } from './io.js';

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
  /** An undo or redo: the txns it takes back or applies again. */
  marks: { undoes?: string[]; redoes?: string[] };
  /** Append the `end` line of this undo or redo to the list's journal. */
  end: (listDir: string) => void;
  /** The txn this run's record uses. */
  txnInUse?: () => string;
}

export class Context {
  readonly env: NodeJS.ProcessEnv;
  /**
   * Where the command runs. Undefined when that directory was deleted: then there is no
   * project (no session of "this directory", no project settings or hooks, no --here).
   */
  readonly cwd: string | undefined;
  private readonly platform: NodeJS.Platform;
  private root: Command | undefined;
  private sessionIndex: SessionIndex | undefined;
  private homeCache: string | undefined;
  /** This run's journal record (journal-recording.ts): set by the run before its command starts. */
  journal: RunJournal = { marks: {}, end: () => {} };
  /**
   * Stop recording this run's writes as one change (set by the run): for a command that
   * records each of its changes itself, as the board records each action as one.
   */
  stopJournal: () => void = () => {};
  /** What this run subscribed to, undone when it ends (dispose). */
  private readonly subscriptions: Array<() => void> = [];

  constructor(
    readonly io: IO,
    place: RunPlace,
  ) {
    this.env = place.env;
    this.cwd = place.cwd;
    this.platform = place.platform ?? process.platform;
  }

  /** The root program, whose options are the global ones; --json and --no-color go to the IO. */
  attach(root: Command): void {
    this.root = root;
    this.io.useFlags(() => this.globals());
  }

  /** The run ended: stop listening for what it no longer needs to hear. */
  dispose(): void {
    for (const off of this.subscriptions.splice(0)) off();
  }

  globals(): GlobalOptions {
    return (this.root?.opts() ?? {}) as GlobalOptions;
  }

  get configDir(): string {
    return resolveConfigDir({ flag: this.globals().configDir, env: this.env.CLAUDE_CONFIG_DIR, home: this.rawHome, cwd: this.cwd });
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
    const defaultManaged = this.platform === 'darwin' ? '/Library/Application Support/ClaudeCode' : '/etc/claude-code';
    return {
      globalConfigFile: named ? path.join(this.configDir, '.claude.json') : path.join(this.rawHome, '.claude.json'),
      managedDir: this.env.TASKS_MANAGED_SETTINGS_DIR || defaultManaged,
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
      this.homeCache = fs.realpathSync(home);
    } catch {
      this.homeCache = home;
    }
    return this.homeCache;
  }

  /** The person running tasks, by login name (loginName): an owner that is never "gone", and `@me`. */
  get person(): string | undefined {
    return loginName(this.env);
  }

  /** Owners in this list whose session is over, or undefined when none can be said to be. */
  goneOwners(listId: string): GoneOwners | undefined {
    return goneOwnersOfList(this.sessions, listDirOf(this.configDir, listId), listId, this.person);
  }

  /** One session index per run: every command that needs sessions shares its reads. */
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
    const quiet = choice.how === 'only' && !this.io.stderrIsTTY;
    if (!quiet) {
      if (choice.how === 'only' && choice.exists) choice.session = this.sessions.sessionsOfList(choice.id)[0];
      const known = shortIds([...new Set([...listIds(this.configDir), choice.id])]);
      const short = (id: string) => known.get(id) ?? id;
      const note = renderChoiceNote(choice, { home: this.home, now: Date.now(), width: this.io.noteColumns, short });
      if (note !== undefined) this.io.note(oneLine(note));
    }
    if (!choice.exists) this.missingList(choice, opts);
    return choice;
  }

  private missingList(choice: ListChoice, opts: { creates?: boolean; newList?: boolean; mayBeMissing?: boolean }): void {
    if (opts.mayBeMissing) return;
    const near = nearNames(choice.id, listIds(this.configDir));
    if (!opts.creates) {
      throw new TasksError(
        'not_found',
        `list folder ${choice.dir} does not exist${near.length > 0 ? `; did you mean ${near.join(' or ')}?` : ''}`,
        {
          hint: near.length > 0 ? undefined : 'tasks lists shows the lists there are',
          details: { list: choice.id, ...(near.length > 0 ? { suggestions: near } : {}) },
        },
      );
    }
    if (near.length > 0 && !opts.newList && choice.how === 'flag') {
      throw new TasksError('usage', `list "${choice.id}" does not exist; did you mean ${near.join(' or ')}? add --new-list to create it`, {
        details: { list: choice.id, suggestions: near },
      });
    }
    // Said when its first task is written (a folder that cannot be made is an error, not
    // a new list); with --json the created tasks say it, and stderr stays for errors alone.
    if (this.io.json) return;
    const stop = onTaskWrite((write) => {
      if (write.listDir !== choice.dir) return;
      stop();
      this.io.note(oneLine(`new list "${choice.id}"`));
    });
    this.subscriptions.push(stop);
  }
}

export function usage(message: string, hint?: string): TasksError {
  return new TasksError('usage', message, hint === undefined ? {} : { hint });
}
