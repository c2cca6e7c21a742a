import { createHash } from 'node:crypto';
import { TasksError } from '../base/errors.js';

/**
 * What `tasks notify` is asked to do, checked before anything runs: the events it tells
 * (`--on`) and where it sends them (`--to`). Pure. A target's URL is kept whole for
 * sending, and shown only through `shownTarget`, which drops what may be a secret: a
 * user and password, the path (an ntfy topic, a Slack or Discord token) and the query.
 */

export const NOTIFY_EVENTS = [
  'list-completed',
  'needs-you',
  'ready-for-person',
  'stalled',
  'agent-died',
  'work-left',
  'hook-refused',
  'blocked-cycle',
  'damage',
] as const;
export type NotifyEventType = (typeof NOTIFY_EVENTS)[number];

export type NotifyTarget =
  | { kind: 'desktop'; id: string; spec: string }
  | { kind: 'ntfy'; id: string; spec: string; url: URL }
  /** `chat`: a Slack or Discord incoming webhook, which wants `{"text": ...}`. */
  | { kind: 'webhook'; id: string; spec: string; url: URL; chat: 'slack' | 'discord' | undefined }
  | { kind: 'exec'; id: string; spec: string; command: string };

const TARGET_FORMS = 'desktop, ntfy:<url>, webhook:<url>, exec:<command>';

/** A stable name for a target in the sent-state file: a digest, so no secret is written there. */
function targetId(spec: string): string {
  return createHash('sha256').update(spec).digest('hex').slice(0, 16);
}

function httpUrl(raw: string, spec: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TasksError('usage', `--to ${shownSpec(spec)}: not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TasksError('usage', `--to ${shownSpec(spec)}: only http and https URLs can be sent to`);
  }
  return url;
}

function chatOf(url: URL): 'slack' | 'discord' | undefined {
  if (url.hostname === 'hooks.slack.com') return 'slack';
  if (/(^|\.)discord(app)?\.com$/.test(url.hostname) && url.pathname.startsWith('/api/webhooks/')) return 'discord';
  return undefined;
}

export function parseTarget(spec: string): NotifyTarget {
  const id = targetId(spec);
  if (spec === 'desktop') return { kind: 'desktop', id, spec };
  const colon = spec.indexOf(':');
  const kind = colon < 0 ? spec : spec.slice(0, colon);
  const rest = colon < 0 ? '' : spec.slice(colon + 1);
  switch (kind) {
    case 'ntfy':
      return { kind: 'ntfy', id, spec, url: httpUrl(rest, spec) };
    case 'webhook': {
      const url = httpUrl(rest, spec);
      return { kind: 'webhook', id, spec, url, chat: chatOf(url) };
    }
    case 'exec':
      if (rest.trim() === '') throw new TasksError('usage', '--to exec: needs a command (exec:<command>)');
      return { kind: 'exec', id, spec, command: rest };
    default:
      throw new TasksError('usage', `--to ${shownSpec(spec)}: unknown target; use ${TARGET_FORMS}`);
  }
}

/** A URL as it may be shown: scheme, host and port; a path or query only as "…". */
export function shownUrl(url: URL): string {
  const more = url.pathname !== '/' || url.search !== '' ? '/…' : '';
  return `${url.protocol}//${url.host}${more}`;
}

/** A target as logs and --json show it: never a URL's credentials, path or query; an exec command whole (it is the user's own). */
export function shownTarget(target: NotifyTarget): string {
  switch (target.kind) {
    case 'desktop':
      return 'desktop';
    case 'ntfy':
    case 'webhook':
      return `${target.kind}:${shownUrl(target.url)}`;
    case 'exec':
      return `exec:${target.command}`;
  }
}

/** A spec that failed to parse, shown without what may be a secret. */
function shownSpec(spec: string): string {
  const at = spec.search(/:\/\//);
  if (at < 0) return spec.length > 40 ? `${spec.slice(0, 40)}…` : spec;
  try {
    const colon = spec.indexOf(':');
    return `${spec.slice(0, colon)}:${shownUrl(new URL(spec.slice(colon + 1)))}`;
  } catch {
    return `${spec.slice(0, at)}://…`;
  }
}

/** `--on list-completed,stalled` (repeatable, comma-separated); none: every event. */
export function parseEvents(values: readonly string[] | undefined): NotifyEventType[] {
  if (values === undefined || values.length === 0) return [...NOTIFY_EVENTS];
  const out = new Set<NotifyEventType>();
  for (const word of values.flatMap((v) => v.split(',')).map((w) => w.trim())) {
    if (word === '') continue;
    if (word === 'all') return [...NOTIFY_EVENTS];
    if (!(NOTIFY_EVENTS as readonly string[]).includes(word)) {
      throw new TasksError('usage', `--on ${word}: unknown event; use ${NOTIFY_EVENTS.join(', ')} (or all)`);
    }
    out.add(word as NotifyEventType);
  }
  if (out.size === 0) throw new TasksError('usage', `--on: name at least one event: ${NOTIFY_EVENTS.join(', ')}`);
  return [...out];
}
