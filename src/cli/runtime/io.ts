/**
 * What a run reads and writes, decided once per run: stdout for data, stderr for
 * everything else, stdin, colour, width, and whether a person reads (a terminal). Kept
 * apart from the context a command works in (context.ts), as gh keeps its IOStreams
 * apart from its Factory: a test gives a run streams of its own, and a command reports
 * its results and errors here. The worst exit code reported is kept for the caller
 * (main.ts, or an in-process run) to return.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type ErrorCode, isTasksError } from '../../core/base/errors.js';
import type { NoteCode, WarningCode } from '../../core/base/notices.js';
import { renderErrorJson, renderErrorText, renderNoticeJson } from '../../render/error.js';
import { decideColor, makeStyle, type Style } from '../../render/style.js';
import { oneLine } from '../../render/text.js';
import { EXIT, exitCodeFor, worse } from './exit-codes.js';
import type { InputSource, OutputTarget } from './fd-output.js';
import { type Terminal, terminalColumns } from './terminal.js';

/** The streams of one run: the process's own (main.ts) or a test's. */
export interface Streams {
  stdout: OutputTarget;
  stderr: OutputTarget;
  stdin: InputSource;
  /** The terminal a full-screen view draws on; only asked for when stdout is a terminal. */
  terminal?: (() => Terminal) | undefined;
}

/** The global options that decide output: read after the command line is parsed. */
export interface OutputFlags {
  json?: boolean | undefined;
  color?: boolean | undefined;
}

/**
 * How wide a note on stderr may be when no terminal shows it: the note is then read in a
 * log or by a script, and its width is a choice, not a terminal's.
 */
const PIPED_NOTE_WIDTH = 100;

export class IO {
  /**
   * A person reads stdout (it is a terminal): human layout, tables and words; otherwise
   * plain lines a script can read. The terminal alone decides: FORCE_COLOR, NO_COLOR and
   * --no-color decide colour only (CI systems set FORCE_COLOR, and a script reading the
   * lines must get the same lines there).
   */
  readonly humanLayout: boolean;
  /** A person reads stderr: hints, the list choice told in full, questions may be asked. */
  readonly stderrIsTTY: boolean;
  exitCode: number = EXIT.ok;
  private readerGoneHandler: (() => void) | undefined;
  private flags: () => OutputFlags = () => ({});
  private styleCache: Style | undefined;

  constructor(
    private readonly streams: Streams,
    /** For colour (NO_COLOR, FORCE_COLOR), width ($COLUMNS) and what the terminal can do (TERM) only. */
    private readonly env: NodeJS.ProcessEnv,
    /** `host`: the run answers for a command typed on another machine (tasks -H): its errors name this host, as that machine calls it. */
    private readonly origin: { host?: string | undefined } = {},
  ) {
    this.humanLayout = Boolean(streams.stdout.isTTY);
    this.stderrIsTTY = Boolean(streams.stderr.isTTY);
  }

  /** Where --json and --no-color are read from, once the program exists. */
  useFlags(flags: () => OutputFlags): void {
    this.flags = flags;
  }

  get json(): boolean {
    return Boolean(this.flags().json);
  }

  get style(): Style {
    this.styleCache ??= makeStyle(decideColor({ flag: this.flags().color, env: this.env, isTTY: this.humanLayout }));
    return this.styleCache;
  }

  /** Colour on stderr follows the same rules, judged on stderr's own terminal. */
  get errStyle(): Style {
    return makeStyle(decideColor({ flag: this.flags().color, env: this.env, isTTY: this.stderrIsTTY }));
  }

  /**
   * Could any output of this run be coloured? Decided before the command line is parsed
   * (so that chalk is loaded only when it may be used): `--no-color` anywhere says no.
   */
  mayColour(argv: readonly string[]): boolean {
    const flag = argv.includes('--no-color') ? false : undefined;
    return decideColor({ flag, env: this.env, isTTY: this.humanLayout }) || decideColor({ flag, env: this.env, isTTY: this.stderrIsTTY });
  }

  /** The width of stdout's terminal (terminal.ts says how it is found). */
  get columns(): number {
    return terminalColumns(this.streams.stdout.columns, this.env);
  }

  /** The width notes on stderr are fitted to: its terminal's, or a fixed width when piped. */
  get noteColumns(): number {
    return this.stderrIsTTY ? terminalColumns(this.streams.stderr.columns, this.env) : PIPED_NOTE_WIDTH;
  }

  get stdin(): InputSource {
    return this.streams.stdin;
  }

  /** The terminal stdout is, for a full-screen view. */
  terminal(): Terminal {
    const make = this.streams.terminal;
    if (!make) throw new Error('no terminal to draw on');
    return make();
  }

  /**
   * A question can be asked only of a person at a terminal: stdin, stdout and stderr all
   * terminals. Never of a script, and never when the output is piped or saved
   * (`tasks delete 3 | tee log`): a script is running it, or nobody would see the question.
   */
  get canAsk(): boolean {
    return this.stdin.isTTY && this.humanLayout && this.stderrIsTTY;
  }

  /**
   * Can stdout's terminal take a full-screen view (cursor moves, the alternate screen)?
   * Not a dumb one (TERM=dumb, unset or empty: an editor's shell buffer, a serial
   * console) nor one whose TERM has no terminfo entry where the system keeps them.
   */
  get fullScreen(): boolean {
    return this.humanLayout && knownTerminal(this.env);
  }

  /** Ask a person a yes/no question: on stderr, answered on stdin (confirm.ts, loaded only to ask). */
  async confirm(question: string): Promise<boolean> {
    const { confirm } = await import('./confirm.js');
    return confirm(question, this.stdin.stream(), this.streams.stderr);
  }

  /** A stream that may wait long between writes ends as soon as its reader goes (fd-output.ts). */
  followReader(): () => void {
    return this.streams.stdout.followReader?.() ?? (() => {});
  }

  /**
   * A command that must outlive its reader (a watch that reads its input to the end) takes
   * stdout's reader going away itself; returns the function that gives it back.
   */
  onReaderGone(fn: () => void): () => void {
    this.readerGoneHandler = fn;
    return () => {
      if (this.readerGoneHandler === fn) this.readerGoneHandler = undefined;
    };
  }

  /** stdout's reader went away: true when the run goes on (a command took it), false when the process should end. */
  readerWentAway(): boolean {
    const handler = this.readerGoneHandler;
    if (!handler) return false;
    handler();
    return true;
  }

  /** Data, on stdout. */
  out(text: string): void {
    this.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** Text on stdout as it is (commander's help and version). */
  write(text: string): void {
    this.streams.stdout.write(text);
  }

  /** Text on stderr as it is. */
  writeErr(text: string): void {
    this.streams.stderr.write(text);
  }

  /**
   * Messages and progress, on stderr; with --json, one object `{"note": {code, message,
   * ...facts}}` per note, so that stderr holds JSON lines only. Every note has a code of
   * its own, listed in core/base/notices.ts (docs/reference/codes.md): a script tells them apart by it.
   */
  note(text: string, code: NoteCode, facts?: Record<string, unknown>): void {
    if (this.json) {
      this.writeErr(`${renderNoticeJson('note', code, stripNotePrefix(text), facts)}\n`);
      return;
    }
    this.writeErr(`${text}\n`);
  }

  /**
   * Warnings often quote file names and parse errors: shown without control characters;
   * with --json, `{"warning": {code, message, ...facts}}`.
   */
  warn(text: string, code: WarningCode, facts?: Record<string, unknown>): void {
    if (this.json) {
      this.writeErr(`${renderNoticeJson('warning', code, oneLine(text), facts)}\n`);
      return;
    }
    this.writeErr(`${this.errStyle.yellow('warning:')} ${oneLine(text)}\n`);
  }

  /** Print an error (JSON with --json) and record its exit code; the batch goes on. */
  fail(err: unknown): void {
    const view = withHost(toErrorView(err), this.origin.host);
    this.exitCode = worse(this.exitCode, view.exit);
    this.writeErr(`${this.json ? renderErrorJson(view) : renderErrorText(view, this.errStyle, this.stderrIsTTY)}\n`);
  }

  /** Record a non-zero outcome that was already reported (a refused claim, say). */
  setExit(code: number): void {
    this.exitCode = worse(this.exitCode, code);
  }

  /**
   * The status is a fact, not the worst of the errors reported: `tasks run` exits with the
   * agent's own status, or 128 + the number of the signal that stopped it (129 for SIGHUP,
   * below the 130 its error alone would set).
   */
  exitWith(code: number): void {
    this.exitCode = code;
  }
}

/** A note's own "note: " prefix is the JSON key's job. */
function stripNotePrefix(text: string): string {
  return text.startsWith('note: ') ? text.slice(6) : text;
}

const TERMINFO_DIRS = ['/etc/terminfo', '/lib/terminfo', '/usr/share/terminfo', '/usr/lib/terminfo'];

/** TERM names a terminal that can move its cursor: not dumb, and known to terminfo where terminfo is installed. */
export function knownTerminal(env: NodeJS.ProcessEnv): boolean {
  const term = env.TERM;
  if (term === undefined || term === '' || term === 'dumb') return false;
  const dirs = [env.TERMINFO, env.HOME && path.join(env.HOME, '.terminfo'), ...TERMINFO_DIRS].filter((d): d is string => Boolean(d));
  const installed = dirs.filter((d) => fs.existsSync(d));
  // No terminfo database here (a slim container): trust the name.
  if (installed.length === 0) return true;
  const first = term[0] as string;
  const names = [first, first.charCodeAt(0).toString(16)];
  return installed.some((d) => names.some((n) => fs.existsSync(path.join(d, n, term))));
}

/** An error on a host, as the machine the command was typed on shows it: the host first. */
function withHost(view: ErrorView, host: string | undefined): ErrorView {
  if (host === undefined) return view;
  return { ...view, message: `host ${host}: ${view.message}`, details: { host, ...view.details } };
}

interface ErrorView {
  code: ErrorCode;
  message: string;
  hint: string | undefined;
  details: Record<string, unknown> | undefined;
  exit: number;
}

function toErrorView(err: unknown): ErrorView {
  if (isTasksError(err)) {
    return { code: err.code, message: err.message, hint: err.hint, details: err.details, exit: exitCodeFor(err.code) };
  }
  const message = err instanceof Error ? err.message : String(err);
  return {
    code: 'internal' satisfies ErrorCode,
    message: `unexpected: ${message}`,
    hint: undefined,
    details: undefined,
    exit: EXIT.failure,
  };
}
