import { spawn } from 'node:child_process';
import type { IO } from '../runtime/io.js';
import { relayReader } from './relay.js';
import { MARKER } from './remote-scripts.js';
import type { SshCall } from './ssh-command.js';
import { isSshDropLine } from './ssh-faults.js';

/** How one ssh call ended. */
export interface SshOutcome {
  /** The exit status, or undefined when ssh was ended by a signal. */
  status: number | undefined;
  signal: NodeJS.Signals | undefined;
  /** The launcher said it was about to run tasks: what came after was the command's. */
  ready: boolean;
  /** `tasks-remote:` lines, without the prefix. */
  markers: string[];
  /** What ssh (or the shell before tasks ran) said on stderr. */
  sshText: string;
  /** stdout when it was kept (`keepStdout`), else empty. */
  stdout: string;
  /** No answer before the launcher was ready, within the watchdog's time. */
  noAnswer: boolean;
  /** The host's clock when it said ready, and this machine's when ssh started and when ready came (ms). */
  clock?: { host: number; sent: number; received: number } | undefined;
}

export interface SshRunOptions {
  /** `-tt`: the remote command's output, stderr too, comes on ssh's stdout from a terminal there. */
  tty: boolean;
  /** Stdin: 'inherit' (the local terminal or data), 'link' (a pipe never written: its end stops the command), or bytes. */
  stdin: 'inherit' | 'link' | Buffer;
  /** Keep stdout whole for the caller (JSON to add the host to) instead of passing it on. */
  keepStdout: boolean;
  /** Give up when the launcher has not said it is ready in this time (ms). */
  watchdogMs: number;
  /** stdout carries the command's stdout and stderr as JSON lines, in the order they were made (relay.ts). */
  relay?: boolean | undefined;
  /**
   * Once the host runs the command, a signal here waits for the host's last words and exit
   * status instead of ending ssh at once. With the link for stdin (a change, a watch) it
   * ends the link first: the host stops the command as at Ctrl-C there (a change finishes
   * its locked step, a watch says its end). Without (an import reading the local stdin),
   * the host finishes it. A second signal ends the process (main.ts).
   */
  finishOnSignal?: boolean | undefined;
  /** The launcher says ready on stdout too (not under -tt): what comes there before it is the login shell's, not the command's. */
  marked?: boolean | undefined;
  /**
   * A gate (`watch --until`, `run`): a reader here that goes away does not end it, as it does
   * not end one here; it goes on to its verdict, which is its status, its output dropped.
   */
  outlivesReader?: boolean | undefined;
}

/** The signals that stop a command here (main.ts): one taken by a command is left to it, a second ends the process. */
const HELD_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Run one ssh call with the local streams: the remote command's stdout and stderr are
 * passed on as they come (a `watch` is live), except the set-up's: everything before the
 * launcher's `ready` line is kept apart (ssh's errors, the markers), and so are ssh's own
 * lines about a dropped connection after it.
 */
export function runSsh(call: SshCall, io: IO, opts: SshRunOptions): Promise<SshOutcome> {
  const stdin = opts.stdin === 'inherit' ? 'inherit' : 'pipe';
  const sent = Date.now();
  const child = spawn(call.file, call.args, { stdio: [stdin, 'pipe', 'pipe'] });
  const outcome: SshOutcome = { status: undefined, signal: undefined, ready: false, markers: [], sshText: '', stdout: '', noAnswer: false };
  // ssh may end before it has read what it is given (a host whose installer fails at once
  // closes its stdin): the write's EPIPE is no error of its own, the ssh call's status says why.
  if (opts.stdin !== 'inherit') child.stdin?.on('error', () => {});
  if (Buffer.isBuffer(opts.stdin)) child.stdin?.end(opts.stdin);
  // The process ending (a signal, a reader gone) ends ssh too, and with it the command there.
  const endSsh = (): void => {
    child.kill('SIGTERM');
  };
  process.once('exit', endSsh);
  // A signal to a command the host runs: the host is told (the link's end) and answers how it ended.
  const endLink = (): void => {
    if (opts.stdin === 'link') child.stdin?.end();
  };
  const holdSignals = (on: boolean): void => {
    if (!opts.finishOnSignal) return;
    for (const signal of HELD_SIGNALS) on ? process.on(signal, endLink) : process.off(signal, endLink);
  };
  // A reader here that goes away (`| head -1`) ends this process, and with it ssh, as a run
  // here ends: a watch there may write nothing for hours, so the pipe is watched, not written.
  // A gate goes on instead (`watch --until ... | head -5 && deploy` must not pass early).
  const unfollow = opts.tty ? () => {} : opts.outlivesReader ? io.onReaderGone(() => {}) : io.followReader();
  const watchdog = setTimeout(() => {
    outcome.noAnswer = true;
    child.kill('SIGTERM');
  }, opts.watchdogMs);

  // The channel the launcher's lines come on: stderr, or the terminal's one stream.
  let pending = '';
  const fromRemote = (text: string, passOn: (s: string) => void): void => {
    if (outcome.ready) {
      passOn(text);
      return;
    }
    pending += text;
    let nl = pending.indexOf('\n');
    while (nl >= 0 && !outcome.ready) {
      const line = pending.slice(0, nl).replace(/\r$/, '');
      pending = pending.slice(nl + 1);
      if (line.startsWith(MARKER)) {
        const said = line.slice(MARKER.length);
        if (said === 'ready' || said.startsWith('ready ')) {
          outcome.ready = true;
          holdSignals(true);
          const host = Number(said.slice(6));
          if (said.length > 6 && Number.isFinite(host)) outcome.clock = { host, sent, received: Date.now() };
          clearTimeout(watchdog);
        } else outcome.markers.push(said);
      } else outcome.sshText += `${line}\n`;
      nl = pending.indexOf('\n');
    }
    if (outcome.ready && pending !== '') {
      const rest = pending;
      pending = '';
      passOn(rest);
    }
  };
  const toStdout = (s: string): void => {
    if (opts.keepStdout) outcome.stdout += s;
    else io.write(s);
  };
  // After ready, stderr is the command's, but for ssh's own words when the connection drops.
  let errLine = '';
  const toStderr = (s: string): void => {
    errLine += s;
    const lines = errLine.split('\n');
    errLine = lines.pop() ?? '';
    for (const line of lines) {
      if (isSshDropLine(line)) outcome.sshText += `${line}\n`;
      else io.writeErr(`${line}\n`);
    }
  };
  const { stdout, stderr } = child as unknown as { stdout: NodeJS.ReadableStream; stderr: NodeJS.ReadableStream };
  stdout.setEncoding('utf8');
  stderr.setEncoding('utf8');
  if (opts.tty) {
    stdout.on('data', (s: string) => fromRemote(s, toStdout));
    stderr.on('data', (s: string) => {
      outcome.sshText += s;
    });
  } else if (opts.relay) {
    const relayed = relayReader(toStdout, (s) => io.writeErr(s));
    const fromHost = opts.marked ? afterReadyLine((s) => relayed.push(s)) : (s: string) => relayed.push(s);
    stdout.on('data', fromHost);
    stdout.on('end', () => relayed.end());
    stderr.on('data', (s: string) => fromRemote(s, toStderr));
  } else {
    stdout.on('data', opts.marked ? afterReadyLine(toStdout) : toStdout);
    stderr.on('data', (s: string) => fromRemote(s, toStderr));
  }
  return new Promise((resolve) => {
    child.on('error', (err) => {
      // ssh could not be started at all (not installed, TASKS_SSH_COMMAND's sh missing).
      clearTimeout(watchdog);
      unfollow();
      process.removeListener('exit', endSsh);
      outcome.sshText += `${err.message}\n`;
      outcome.status = 255;
      resolve(outcome);
    });
    child.on('close', (status, signal) => {
      clearTimeout(watchdog);
      unfollow();
      holdSignals(false);
      process.removeListener('exit', endSsh);
      if (errLine !== '') io.writeErr(errLine);
      if (!outcome.ready) outcome.sshText += pending;
      outcome.status = status ?? undefined;
      outcome.signal = signal ?? undefined;
      resolve(outcome);
    });
  });
}

/**
 * stdout from the launcher's ready line on: a login shell may print before the command
 * runs (a greeting in .bashrc or config.fish), and that is not the command's output. The
 * line may follow such text without a line break of its own.
 */
function afterReadyLine(passOn: (s: string) => void): (s: string) => void {
  const ready = `${MARKER}ready`;
  let open = false;
  let held = '';
  return (s) => {
    if (open) return passOn(s);
    held += s;
    for (let nl = held.indexOf('\n'); nl >= 0; nl = held.indexOf('\n')) {
      const line = held.slice(0, nl).replace(/\r$/, '');
      held = held.slice(nl + 1);
      if (line.endsWith(ready)) {
        open = true;
        if (held !== '') passOn(held);
        held = '';
        return;
      }
    }
  };
}
