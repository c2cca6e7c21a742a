/**
 * `tasks run`: an agent's run that tasks owns. The agent's command is started in a
 * process group of its own (agent-process.ts); its stdout is followed as `watch --stream`
 * follows a run (the same watch: the caller builds it on the agent's output, so the
 * judgement is the watch's own: at the run's `result`, every transition, the agent's own
 * list) and copied to the record; and the run ends when the verdict is known:
 *
 * - the run's end (its `result`, or its output ended): the agent ends by itself; it is
 *   waited for (at most EXIT_AFTER_END_MS, then ended), and whatever it left running in
 *   its group is ended;
 * - stalled, the deadline, a signal, or a watch that failed: the agent's group is ended
 *   at once (SIGTERM, SIGKILL after the grace).
 *
 * Either way no process of the group is left running when this resolves.
 */
import { TasksError } from '../base/errors.js';
import type { NoteCode } from '../base/notices.js';
import { withinMs } from '../base/process-group.js';
import type { WatchOutcome, WatchSessionOptions, WatchSink } from '../watch/watch-session.js';
import { WatchSession } from '../watch/watch-session.js';
import { AgentOutput } from './agent-output.js';
import { type AgentExit, AgentProcess, type AgentSpec } from './agent-process.js';
import { LineSplitter } from './line-feed.js';
import { processesWithLink, stillAtWork, stillRunning, type WriterProcess } from './stream-writers.js';

export interface AgentRunOptions {
  agent: AgentSpec;
  /** Between SIGTERM and SIGKILL when the agent is ended. */
  killAfterMs: number;
  /** The record file's descriptor (the agent's stdout, byte for byte); closed at its end. */
  recordFd?: number | undefined;
  /** The watch of the run, built on the agent's output as its input, and where it tells what it sees. */
  watch(output: AgentOutput): { options: Omit<WatchSessionOptions, 'stop'>; sink: WatchSink };
  /** Aborted by a signal to `tasks run` (its reason: the signal's name): the agent's group is ended. */
  stop: AbortSignal;
  /** Told the process as soon as it runs (for a last-resort SIGKILL should this process exit first). */
  onStarted?(agent: AgentProcess): void;
  /** The agent's stderr lines, when its spec reads them (`stderr: 'pipe'`). */
  onStderrLine?(line: string): void;
  /** The agent's stderr as it comes, when its spec reads them and it is passed on whole (instead of onStderrLine). */
  onStderrChunk?(chunk: Buffer): void;
  /** The agent's output is not stream-json: its first line. */
  onNotStreamJson(firstLine: string): void;
  onRecordError(err: Error): void;
  /** Something worth telling that is not the verdict (the agent lingering, leftovers ended). */
  onNote(message: string, code: NoteCode, facts?: Record<string, unknown>): void;
}

export interface AgentRunResult {
  /** How the watch ended; undefined when it failed (`error`). */
  outcome?: WatchOutcome | undefined;
  /** The watch failed (the error to report); the agent was ended. */
  error?: unknown;
  pid: number;
  /** The agent's own exit status. */
  exit: AgentExit | undefined;
  /** Who ended the agent: itself, or tasks run with SIGTERM, or with SIGKILL. */
  endedBy: 'itself' | 'SIGTERM' | 'SIGKILL';
  /** Did the agent's output hold stream-json? */
  streamJson: boolean;
  /** The signal that stopped `tasks run`, when one did. */
  signal?: string | undefined;
}

/** After the run's end, how long the agent has to exit by itself before it is ended. */
export const EXIT_AFTER_END_MS = 30_000;
/** Once the group is gone, how long its output may stay open (a process that left the group holds it). */
const OUTPUT_GRACE_MS = 2_000;

export async function runAgent(opts: AgentRunOptions): Promise<AgentRunResult> {
  if (opts.stop.aborted) throw new TasksError('interrupted', 'stopped before the agent was started');
  const agent = AgentProcess.start(opts.agent);
  opts.onStarted?.(agent);
  const flushStderr = agent.stderr === null ? undefined : followStderr(agent, opts);
  const output = new AgentOutput(agent.stdout, {
    recordFd: opts.recordFd,
    onNotStreamJson: opts.onNotStreamJson,
    onRecordError: opts.onRecordError,
  });
  // One end of the group, whoever asks first. A signal that comes while it is under way
  // (not the one that stopped the watch) hurries it: SIGKILL at once.
  let ending: Promise<'already' | 'term' | 'kill'> | undefined;
  const endGroup = () => {
    ending ??= agent.end(opts.killAfterMs, opts.stop.aborted ? undefined : opts.stop);
    return ending;
  };
  // The agent's own exit: whatever it left running in its group is ended (which also ends its output).
  void agent.exited.then(async () => {
    if (ending !== undefined) return; // its end was asked for: these are its own last moments
    const how = await endGroup();
    if (how !== 'already') opts.onNote('ended what the agent left running in its process group', 'leftovers_ended', { pid: agent.pid });
  });

  let outcome: WatchOutcome | undefined;
  let error: unknown;
  try {
    const { options, sink } = opts.watch(output);
    outcome = await new WatchSession({ ...options, stop: opts.stop }, sink).run();
  } catch (err) {
    error = err;
  }
  const reason = outcome?.reason;
  const ours = error !== undefined || reason === 'stalled' || reason === 'timeout' || reason === 'stopped';
  if (!ours && agent.exitStatus === undefined) {
    // The run ended (its result, or its output): the agent exits by itself, or is ended after a while.
    const exited = await withinMs(Promise.race([agent.exited.then(() => true), aborted(opts.stop)]), EXIT_AFTER_END_MS, false);
    if (exited === false) {
      opts.onNote(`the agent had not exited ${EXIT_AFTER_END_MS / 1000}s after its run ended: ending it`, 'agent_lingered', {
        pid: agent.pid,
      });
    }
  }
  const exitedFirst = agent.exitStatus !== undefined;
  const how = await endGroup();
  // The group is gone; its output ends now, unless a process that left the group holds it.
  await withinMs(output.drain(), OUTPUT_GRACE_MS, undefined);
  if (!output.done) {
    // One outside the group that still holds the agent's output is the agent's all the same
    // (`timeout` in a script puts its command in a group of its own): ended too.
    const ended = await endOutputHolders(agent, output, opts.killAfterMs);
    if (ended.length > 0) {
      opts.onNote(
        `ended ${ended.length === 1 ? 'a process' : `${ended.length} processes`} outside the agent's process group that kept its output open (pid ${ended.join(', ')})`,
        'outside_group_ended',
        { pids: ended },
      );
    }
  }
  if (!output.done) {
    output.abandon();
    opts.onNote("a process outside the agent's process group kept its output open: no longer read", 'output_abandoned');
  }
  // Its stderr's last bytes, read before what the run says at its end (once the group is gone, it ends too).
  if (agent.stderr !== null && !agent.stderr.readableEnded && !agent.stderr.destroyed) {
    await withinMs(streamEnd(agent.stderr), OUTPUT_GRACE_MS, undefined);
    // Still open: held by a process that left the group (a server started with setsid). It is
    // no longer read, or tasks run would wait for that process to end before exiting.
    if (!agent.stderr.readableEnded) agent.stderr.destroy();
  }
  flushStderr?.();
  const exit = agent.exitStatus ?? (await withinMs(agent.exited, OUTPUT_GRACE_MS, undefined));
  const signal = opts.stop.reason;
  return {
    outcome,
    error,
    pid: agent.pid,
    exit,
    endedBy: exitedFirst || how === 'already' ? 'itself' : how === 'term' ? 'SIGTERM' : 'SIGKILL',
    streamJson: output.sawStreamJson,
    signal: opts.stop.aborted && typeof signal === 'string' ? signal : undefined,
  };
}

/**
 * The processes outside the agent's group that hold its stdout open: SIGTERM, and SIGKILL
 * to those still there after `graceMs`. Their pids, once the output has ended or the
 * grace passed; none where /proc cannot tell.
 */
async function endOutputHolders(agent: AgentProcess, output: AgentOutput, graceMs: number): Promise<number[]> {
  const link = agent.stdoutLink;
  // Only the pipe made for this agent (libuv makes a socket pair): never a file or device others may hold too.
  if (link === undefined || !/^(pipe|socket):\[\d+\]$/.test(link)) return [];
  const signalled: WriterProcess[] = [];
  const signal = (sig: NodeJS.Signals, p: WriterProcess): boolean => {
    try {
      if (!stillRunning(p)) return false;
      process.kill(p.pid, sig);
      return true;
    } catch {
      return false; // gone meanwhile, or not ours to signal
    }
  };
  const holders = processesWithLink(link);
  for (const p of holders) if (signal('SIGTERM', p)) signalled.push(p);
  await withinMs(output.drain(), graceMs, undefined);
  if (!output.done) {
    // Those that took no notice, and any that holds it since (a child it left).
    for (const p of [...holders, ...processesWithLink(link)]) if (signal('SIGKILL', p) && !signalled.includes(p)) signalled.push(p);
    await withinMs(output.drain(), OUTPUT_GRACE_MS, undefined);
  }
  // Those signalled that are gone now: the ones it ended.
  return signalled.filter((p) => !stillAtWork(p)).map((p) => p.pid);
}

/** The longest line of the agent's stderr handed on (as a note, or held for the live view); a longer one is said to be skipped. */
const STDERR_LINE_BYTES = 1024 * 1024;

/** The agent's stderr, line by line, to `onStderrLine`; returns what flushes its last line. */
function followStderr(agent: AgentProcess, opts: AgentRunOptions): () => void {
  agent.stderr?.on('error', () => {});
  const onChunk = opts.onStderrChunk;
  if (onChunk !== undefined) {
    agent.stderr?.on('data', (chunk: Buffer) => onChunk(chunk));
    return () => {};
  }
  const splitter = new LineSplitter(
    {
      onLine: (text) => opts.onStderrLine?.(text),
      onWarning: (message) => opts.onNote(`the agent's stderr: ${message}`, 'agent_stderr_skipped'),
    },
    STDERR_LINE_BYTES,
  );
  agent.stderr?.on('data', (chunk: Buffer) => splitter.push(chunk));
  let flushed = false;
  return () => {
    if (flushed) return;
    flushed = true;
    splitter.finish();
  };
}

/** Resolves when `stream` has been read to its end (or failed). */
function streamEnd(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', () => resolve());
  });
}

/** Resolves (to undefined) when `signal` aborts. */
function aborted(signal: AbortSignal): Promise<undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true }));
}
