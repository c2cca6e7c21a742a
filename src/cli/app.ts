import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { TasksError, isTasksError } from '../core/base/errors.js';
import type { HookPolicySources } from '../core/hooks/hook-settings.js';
import { chooseList, type ListChoice } from '../core/lists/list-summary.js';
import { resolveConfigDir } from '../core/store/paths.js';
import { renderErrorJson, renderErrorText } from '../render/error.js';
import { decideColor, makeStyle, type Style } from '../render/style.js';
import { oneLine } from '../render/text.js';
import { EXIT, exitCodeFor, worse } from './exit-codes.js';
import type { OutputTarget } from './fd-output.js';

/** The options every command shares, defined once on the root program. */
export interface GlobalOptions {
  list?: string;
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
   * Human layout (tables, details) on a terminal, or when colour is forced into a pipe
   * (FORCE_COLOR: someone wants what a terminal shows); otherwise plain lines.
   */
  get humanLayout(): boolean {
    return this.isTTY || this.style.color;
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

  /** Pick the list; with several and no choice made, a read says on stderr which it took. */
  list(forWrite: boolean): ListChoice {
    const choice = chooseList(this.configDir, {
      flag: this.globals().list,
      env: this.env.CLAUDE_CODE_TASK_LIST_ID,
      forWrite,
    });
    if (choice.how === 'most-recent') {
      const others = choice.candidates.filter((c) => c !== choice.id);
      this.note(oneLine(`using list "${choice.id}", the most recently changed (others: ${others.join(', ')}); choose with --list`));
    }
    return choice;
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
