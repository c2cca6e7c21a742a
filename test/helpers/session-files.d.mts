// Types of session-files.mjs, which stays plain JavaScript: the benchmark (bench/) runs it
// with Node alone.

/** Claude Code's project folder name for a working directory. */
export function projectFolder(cwd: string): string;

export interface TranscriptOptions {
  sessionId: string;
  cwd: string;
  prompt?: string;
  branch?: string;
  lastPrompt?: string;
  /** ms since the epoch. */
  start?: number;
  /** ms since the epoch; the file's mtime. */
  end?: number;
  /** Pad the middle to about this many bytes. */
  padTo?: number;
  /** false: without the real run's TodoWrite calls. */
  todos?: boolean;
  source?: 'todowrite' | 'tasks';
  /** The project folder (default: named after `cwd`), as `$CLAUDE_CODE_PROJECT_DIR_NAME` names it. */
  projectFolder?: string;
}

/** Write `<config>/projects/<project folder>/<sessionId>.jsonl` from the real transcript's lines; its path. */
export function writeTranscript(config: string, opts: TranscriptOptions): string;

/** Field 22 of /proc/<pid>/stat: the process start time that Claude Code records. */
export function procStart(pid: number): string;

export interface LiveSessionOptions {
  pid: number;
  sessionId: string;
  cwd: string;
  status?: string;
  name?: string;
  start?: number;
  procStartTicks?: string | number;
  /** With status "waiting": what for ("permission prompt"). */
  waitingFor?: string;
  /** When the status last changed (ms; default: start). */
  statusAt?: number;
}

/** Write `<config>/sessions/<pid>.json` as a running session does; its path. */
export function writeLiveSession(config: string, opts: LiveSessionOptions): string;

export interface TaskToolCall {
  name: string;
  input: unknown;
  result?: unknown;
  /** ms since the epoch. */
  at: number;
  /** The tool result's text (default `ok`): a hook's refusal is told here. */
  content?: string;
  /** Still running: no result written yet (the transcript ends in it). */
  pending?: boolean;
}

/** A transcript of a session that used the Task tools; its path. */
export function writeTaskTranscript(
  config: string,
  opts: { sessionId: string; cwd: string; prompt?: string; calls: TaskToolCall[]; running?: boolean },
): string;

/** The transcript a session begun by `/clear` opens with; `firstSession`: the process's first session, named on its turns' entries. */
export function writeClearedTranscript(
  config: string,
  /** `folder`: the project folder (default: named after `cwd`). */
  opts: { sessionId: string; cwd: string; at: number; firstSession?: string | undefined; folder?: string | undefined },
): string;
