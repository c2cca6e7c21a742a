import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { processTree } from '../base/proc-stat.js';
import type { NotifyEvent, NotifyTask } from './notify-events.js';
import { type NotifyTarget, shownUrl } from './notify-plan.js';

/**
 * Sending one event to one target, once: the document a webhook or an `exec:` command
 * gets, ntfy's headers, the desktop's notifier. Each try either works or says why it
 * failed and whether another try may help; retries and queues are the notifier's.
 */

/** The JSON document a webhook and an `exec:` command get (docs/schemas/notify-message.schema.json). */
export interface NotifyMessage {
  event: NotifyEvent['type'];
  list: string;
  shortId: string;
  project: string | null;
  tasks: NotifyTask[];
  session: string | null;
  at: string;
  host: string;
  title: string;
  text: string;
  action: string;
}

export function messageOf(e: NotifyEvent, at: number, host: string): NotifyMessage {
  return {
    event: e.type,
    list: e.list,
    shortId: e.shortId,
    project: e.project ?? null,
    tasks: e.tasks,
    session: e.session ?? null,
    at: new Date(at).toISOString(),
    host,
    title: e.title,
    text: e.text,
    action: e.action,
  };
}

/** How the desktop is told: the platform's notifier, or the terminal (a bell and OSC 9). */
export type DesktopVia = 'notify-send' | 'osascript' | 'terminal';

export interface DeliverEnv {
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
  /** The terminal fallback: write a bell and OSC 9 where the person sees it; false: no terminal. */
  bell(title: string, text: string): boolean;
  /** Longest wait for one HTTP request or command (ms). */
  timeoutMs: number;
  /** The link a notification opens (ntfy's Click), when the person gave one. */
  click?: string | undefined;
}

export type TryResult = { ok: true; via: string } | { ok: false; via: string; error: string; retry: boolean };

/** A program on PATH, as the shell would find it. */
function onPath(name: string, env: DeliverEnv['env']): boolean {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    try {
      fs.accessSync(path.join(dir, name), fs.constants.X_OK);
      return true;
    } catch {
      // not here
    }
  }
  return false;
}

/** Which notifier the desktop target uses here, said once at the start. */
export function desktopVia(d: Pick<DeliverEnv, 'env' | 'platform'>): DesktopVia {
  if (d.platform === 'darwin' && onPath('osascript', d.env)) return 'osascript';
  const bus = d.env.DBUS_SESSION_BUS_ADDRESS !== undefined && d.env.DBUS_SESSION_BUS_ADDRESS !== '';
  if (d.platform !== 'darwin' && d.platform !== 'win32' && bus && onPath('notify-send', d.env)) return 'notify-send';
  return 'terminal';
}

/** How long a program that exited may still hold its stderr open (a child of its own left running) before it is left to it. */
const AFTER_EXIT_MS = 250;

/**
 * Run a program, its stdin given; resolves with its status and the end of its stderr.
 * `exec:`'s shell runs the command as its child: at the timeout the program and every
 * process below it are killed, not the shell alone (whose command would live on, holding
 * the pipe that `--once` waits for). It stays in notify's process group, so that a
 * terminal's Ctrl-C reaches it as it reaches notify. Once it has exited, or been killed,
 * the pipe is let go: a process it started and left behind cannot hold up notify.
 */
function runProgram(
  file: string,
  args: readonly string[],
  d: DeliverEnv,
  stdin: string,
): Promise<{ code: number | null; signal: string | null; stderr: string; error?: string }> {
  return new Promise((resolve) => {
    let stderr = '';
    let settled = false;
    const done = (r: { code: number | null; signal: string | null; error?: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.stderr.destroy();
      child.unref();
      resolve({ ...r, stderr: stderr.trim().split('\n').slice(-1)[0] ?? '' });
    };
    const child = spawn(file, args, { env: d.env as NodeJS.ProcessEnv, stdio: ['pipe', 'ignore', 'pipe'] });
    const timer = setTimeout(() => {
      killTree(child.pid, () => child.kill('SIGKILL'));
      done({ code: null, signal: 'SIGKILL', error: `no answer within ${d.timeoutMs / 1000}s` });
    }, d.timeoutMs);
    child.stderr.on('data', (c: Buffer) => {
      if (stderr.length < 4096) stderr += c.toString();
    });
    child.on('error', (err) => done({ code: null, signal: null, error: err.message }));
    // Its status once its stderr is read to the end; or, a moment after it exits, as it is.
    child.on('exit', (code, signal) => setTimeout(() => done({ code, signal }), AFTER_EXIT_MS).unref());
    child.on('close', (code, signal) => done({ code, signal }));
    child.stdin.on('error', () => {}); // a command that does not read its stdin
    child.stdin.end(stdin);
  });
}

/** SIGKILL to the program and every process below it (where /proc says), else to the program alone. */
function killTree(pid: number | undefined, alone: () => void): void {
  if (pid === undefined || process.platform !== 'linux') {
    alone();
    return;
  }
  // Children first found, then killed top down: a parent killed first cannot start another.
  for (const member of processTree(pid)) {
    try {
      process.kill(member, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

function programFailed(what: string, r: Awaited<ReturnType<typeof runProgram>>): string {
  if (r.error !== undefined) return `${what}: ${r.error}`;
  const how = r.signal !== null ? `killed by ${r.signal}` : `exit ${r.code}`;
  return `${what} failed (${how})${r.stderr === '' ? '' : `: ${r.stderr.slice(0, 200)}`}`;
}

async function toDesktop(e: NotifyEvent, d: DeliverEnv): Promise<TryResult> {
  const via = desktopVia(d);
  if (via === 'notify-send') {
    const urgency = e.priority >= 5 ? 'critical' : 'normal';
    const r = await runProgram('notify-send', ['--app-name=tasks', `--urgency=${urgency}`, '--', e.title, `${e.text}\n${e.action}`], d, '');
    if (r.code === 0) return { ok: true, via };
    // No daemon answering, say: the terminal still tells the person.
    if (d.bell(e.title, e.text)) return { ok: true, via: 'terminal' };
    return { ok: false, via, error: programFailed('notify-send', r), retry: true };
  }
  if (via === 'osascript') {
    // The texts are passed as arguments, never spliced into the script.
    const script = 'on run argv\ndisplay notification (item 2 of argv) with title (item 1 of argv)\nend run';
    const r = await runProgram('osascript', ['-e', script, e.title, e.text], d, '');
    if (r.code === 0) return { ok: true, via };
    if (d.bell(e.title, e.text)) return { ok: true, via: 'terminal' };
    return { ok: false, via, error: programFailed('osascript', r), retry: true };
  }
  if (d.bell(e.title, e.text)) return { ok: true, via: 'terminal' };
  return {
    ok: false,
    via,
    error: 'no desktop notifier (notify-send with a D-Bus session, osascript) and no terminal to ring',
    retry: false,
  };
}

/** HTTP header values must be Latin-1; ntfy reads RFC 2047 encoded words for the rest. */
function headerText(text: string): string {
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, ' ');
  return /^[\u0020-\u007e]*$/.test(clean) ? clean : `=?UTF-8?B?${Buffer.from(clean, 'utf8').toString('base64')}?=`;
}

const NTFY_TAGS: Record<NotifyEvent['type'], string> = {
  'list-completed': 'white_check_mark',
  'needs-you': 'bell',
  'ready-for-person': 'raising_hand',
  stalled: 'hourglass',
  'agent-died': 'skull',
  'work-left': 'construction',
  'hook-refused': 'no_entry',
  'blocked-cycle': 'no_entry',
  damage: 'warning',
};

/** Anything of a URL that may be a secret, taken out of an error's words. */
function withoutSecrets(text: string, url: URL): string {
  const secrets = [url.href, `${url.pathname}${url.search}`, url.search, url.password, url.username]
    .filter((s) => s.length > 1)
    .sort((a, b) => b.length - a.length);
  let out = text;
  for (const secret of secrets) out = out.split(secret).join('…');
  return out;
}

async function post(target: URL, headers: Record<string, string>, body: string, d: DeliverEnv, via: string): Promise<TryResult> {
  const where = shownUrl(target);
  // fetch refuses a URL with credentials: they become the Basic authorization they stand for.
  const url = new URL(target.href);
  const sent = { ...headers };
  if (url.username !== '' || url.password !== '') {
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    sent.Authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  try {
    // A redirect is not followed (the body and its authorization would go where the URL given
    // does not say) and, like a 4xx, not tried again: it answers the same every time.
    const res = await fetch(url, { method: 'POST', headers: sent, body, signal: AbortSignal.timeout(d.timeoutMs), redirect: 'manual' });
    await res.arrayBuffer().catch(() => undefined);
    if (res.ok) return { ok: true, via };
    if (res.status >= 300 && res.status < 400)
      return { ok: false, via, error: `${where} answered HTTP ${res.status} (a redirect, not followed)`, retry: false };
    // 4xx other than 408 and 429: the request itself is wrong; trying again will not help.
    const retry = res.status >= 500 || res.status === 408 || res.status === 429;
    return { ok: false, via, error: `${where} answered HTTP ${res.status}`, retry };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const why = e.name === 'TimeoutError' ? `no answer within ${d.timeoutMs / 1000}s` : (e.cause?.code ?? e.cause?.message ?? e.message);
    return { ok: false, via, error: `${where}: ${withoutSecrets(withoutSecrets(why, target), url)}`, retry: true };
  }
}

export function tryDeliver(target: NotifyTarget, e: NotifyEvent, message: NotifyMessage, d: DeliverEnv): Promise<TryResult> {
  switch (target.kind) {
    case 'desktop':
      return toDesktop(e, d);
    case 'ntfy': {
      const headers: Record<string, string> = {
        Title: headerText(e.title),
        Priority: String(e.priority),
        Tags: NTFY_TAGS[e.type],
        'Content-Type': 'text/plain; charset=utf-8',
      };
      if (d.click !== undefined) headers.Click = d.click;
      return post(target.url, headers, `${e.text}\n${e.action}`, d, 'ntfy');
    }
    case 'webhook': {
      const body =
        target.chat === undefined
          ? message
          : target.chat === 'slack'
            ? { text: `*${e.title}*\n${e.text}\n\`${e.action}\`` }
            : { content: `**${e.title}**\n${e.text}\n\`${e.action}\`` };
      return post(target.url, { 'Content-Type': 'application/json' }, JSON.stringify(body), d, target.chat ?? 'webhook');
    }
    case 'exec':
      return runProgram('/bin/sh', ['-c', target.command], d, `${JSON.stringify(message)}\n`).then((r) =>
        r.code === 0 ? { ok: true, via: 'exec' } : { ok: false, via: 'exec', error: programFailed(target.command, r), retry: true },
      );
  }
}
