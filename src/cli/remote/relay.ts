import fs from 'node:fs';
import { lineSplitter } from '../../core/base/line-splitter.js';
import type { InputSource, OutputTarget } from '../runtime/fd-output.js';

/**
 * A read command on a host (`list`, `get`, `lists`, `log`, `doctor`, `graph`, `cost`)
 * answers for the local terminal, not for the pipe ssh gives it: the local side tells the
 * host what its stdout and stderr are (a terminal or not, their widths; its colour
 * choice, TERM and time zone go in the environment), the host's tasks makes its streams
 * look so, and its render code gives the bytes a run here would give on the same lists.
 * Those bytes come back as JSON lines on the one channel ssh keeps in order
 * (`{"o": text}` for stdout, `{"e": text}` for stderr), and the local side writes each
 * where it belongs, in the order they were made. No terminal is opened on the host
 * (`ssh -T`): stderr stays stderr, and a line ends in `\n` as it does here.
 */

/** The environment variable that carries the local streams' description to the host's tasks. */
export const RELAY_ENV = 'TASKS_RELAY';

/** One local stream as a run here would see it. */
export interface StreamView {
  tty: boolean;
  columns: number;
}

/** What the host's tasks needs to answer as a run here would: the host's name (errors name it), and for a relayed read the local streams. */
export interface RelayView {
  /** The host's name as the user gave it. */
  host: string;
  out?: StreamView | undefined;
  err?: StreamView | undefined;
  /** Is the local stdin a terminal (a person typing: `claim` without --as claims for them)? Nothing is read from it. */
  in?: { tty: boolean } | undefined;
}

/** The host's side: the description the local side sent, if any, taken out of the environment (a hook or agent the command starts must not see it). */
export function takeRelayView(env: NodeJS.ProcessEnv): RelayView | undefined {
  const raw = env[RELAY_ENV];
  if (raw === undefined) return undefined;
  delete env[RELAY_ENV];
  try {
    const v = JSON.parse(raw) as RelayView;
    return typeof v.host === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The host's side: stdout and stderr as the local ones look, both written as JSON lines to
 * the real stdout; undefined when the command is not relayed (it has its own streams there).
 */
export function relayStreams(
  view: RelayView | undefined,
  channel: OutputTarget,
  /** The command's number when several share the channel (host-serve.ts): each line carries it as `i`. */
  id?: number,
): { stdout: OutputTarget; stderr: OutputTarget } | undefined {
  if (view?.out === undefined || view.err === undefined) return undefined;
  const target = (key: 'o' | 'e', v: StreamView): OutputTarget => ({
    isTTY: v.tty,
    columns: v.columns,
    write: (text: string) => {
      if (text !== '') channel.write(`${JSON.stringify(id === undefined ? { [key]: text } : { i: id, [key]: text })}\n`);
    },
    ...(key === 'o' && channel.followReader ? { followReader: channel.followReader } : {}),
  });
  return { stdout: target('o', view.out), stderr: target('e', view.err) };
}

/** The host's side: stdin as the local one looks (a terminal or not), read as the host's own (the launcher's link). */
export function relayInput(view: RelayView | undefined, base: InputSource): InputSource | undefined {
  const local = view?.in;
  if (local === undefined) return undefined;
  return { isTTY: local.tty, fd: base.fd, stream: () => base.stream() };
}

/**
 * The local side: reads the host's JSON lines as they come and hands each text to where
 * it belongs. A line that is not the relay's (it cannot be, but a host's Node may print
 * before tasks runs) goes to stdout as it is.
 */
export function relayReader(toStdout: (s: string) => void, toStderr: (s: string) => void): { push(chunk: string): void; end(): void } {
  const line = (l: string): void => {
    if (l === '') return;
    try {
      const msg = JSON.parse(l) as { o?: unknown; e?: unknown };
      if (typeof msg.o === 'string') {
        toStdout(msg.o);
        return;
      }
      if (typeof msg.e === 'string') {
        toStderr(msg.e);
        return;
      }
    } catch {
      // not the relay's
    }
    toStdout(`${l}\n`);
  };
  const lines = lineSplitter(line);
  return {
    push: (chunk) => lines.push(chunk),
    end() {
      const rest = lines.rest();
      if (rest !== '') line(rest);
    },
  };
}

/**
 * The environment the host's answer depends on besides the streams, exactly as it is here
 * (null: unset there too): colour (NO_COLOR, FORCE_COLOR, a dumb TERM), an agent's shell, and the time zone
 * times are shown in (the local one, even when TZ is not set here).
 */
export function relayEnv(env: NodeJS.ProcessEnv): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  // CLAUDECODE: run by an agent's shell, a claim never counts as a person's.
  for (const name of ['NO_COLOR', 'FORCE_COLOR', 'TERM', 'CLAUDECODE'] as const) out[name] = env[name] ?? null;
  out.TZ = env.TZ ?? localZone();
  return out;
}

/**
 * This machine's time zone by name, as the system sets it: /etc/localtime links to its
 * zone file (Linux, macOS). Asking Intl instead starts ICU, a third of a command's time here.
 */
function localZone(): string {
  try {
    const link = fs.readlinkSync('/etc/localtime');
    const at = link.indexOf('zoneinfo/');
    if (at >= 0) return link.slice(at + 9);
  } catch {
    // not a link: Intl knows
  }
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}
