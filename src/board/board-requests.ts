import { TasksError } from '../core/base/errors.js';
import { isSessionId } from '../core/sessions/session-index.js';
import { isTaskId } from '../core/store/ids.js';
import type { ActionRequest, Expectation } from './board-protocol.js';

/**
 * An action as the page sends it (board-protocol.ts), checked field by field before
 * anything is read or written; anything else is a usage error (HTTP 400).
 */
const LIST_ID = /^[A-Za-z0-9_-]{1,255}$/;
const MAX_TEXT = 100_000;

function bad(message: string): TasksError {
  return new TasksError('usage', message);
}

function text(value: unknown, what: string, opts: { optional?: boolean; max?: number } = {}): string | undefined {
  if (value === undefined && opts.optional) return undefined;
  if (typeof value !== 'string') throw bad(`${what} must be text`);
  if (value.length > (opts.max ?? MAX_TEXT)) throw bad(`${what} is too long`);
  return value;
}

function taskId(value: unknown, what = 'id'): string {
  if (typeof value !== 'string' || !isTaskId(value)) throw bad(`${what} must be a task id`);
  return value;
}

function ownerName(value: unknown, what: string): string {
  const name = text(value, what, { max: 200 }) as string;
  if (name.trim() === '') throw bad(`${what} must not be empty`);
  return name;
}

function expectation(value: unknown): Expectation {
  const v = value as Record<string, unknown> | null;
  if (typeof v !== 'object' || v === null) throw bad('expect: the state the card showed is required');
  if (v.status !== 'pending' && v.status !== 'in_progress' && v.status !== 'completed') throw bad('expect.status must be a status');
  if (v.owner !== null && typeof v.owner !== 'string') throw bad('expect.owner must be a name or null');
  return { status: v.status, owner: v.owner === '' ? null : v.owner };
}

function ids(value: unknown, what: string): string[] {
  if (!Array.isArray(value) || value.length > 1000) throw bad(`${what} must be a list of task ids`);
  return [...new Set(value.map((v) => taskId(v, what)))];
}

/** `hooks`: absent or true runs them; false skips them (as --no-hooks). */
function hooksFlag(value: unknown): boolean {
  if (value === undefined || value === true) return true;
  if (value === false) return false;
  throw bad('hooks must be true or false');
}

export function parseRequest(body: unknown): ActionRequest {
  const b = body as Record<string, unknown> | null;
  if (typeof b !== 'object' || b === null || Array.isArray(b)) throw bad('an action is a JSON object');
  const list = b.list;
  if (typeof list !== 'string' || !LIST_ID.test(list)) throw bad('list must be a list id');
  switch (b.action) {
    case 'start':
    case 'claim':
    case 'reopen':
    case 'release':
    case 'delete':
      return { action: b.action, list, id: taskId(b.id), expect: expectation(b.expect) };
    case 'done':
      return { action: 'done', list, id: taskId(b.id), expect: expectation(b.expect), hooks: hooksFlag(b.hooks) };
    case 'reassign':
      return {
        action: 'reassign',
        list,
        id: taskId(b.id),
        expect: expectation(b.expect),
        owner: b.owner === null ? null : ownerName(b.owner, 'owner'),
      };
    case 'block':
    case 'unblock': {
      const by = ids(b.by ?? [], 'by');
      if (b.action === 'block' && by.length === 0) throw bad('by: at least one task id');
      return { action: b.action, list, id: taskId(b.id), expect: expectation(b.expect), by };
    }
    case 'create': {
      const subject = text(b.subject, 'subject', { max: 10_000 }) as string;
      if (subject.trim() === '') throw bad('subject must not be empty');
      const owner = b.owner === undefined || b.owner === '' ? undefined : ownerName(b.owner, 'owner');
      return {
        action: 'create',
        list,
        subject,
        description: text(b.description, 'description', { optional: true }),
        owner,
        blockedBy: b.blockedBy === undefined ? [] : ids(b.blockedBy, 'blockedBy'),
        hooks: hooksFlag(b.hooks),
      };
    }
    case 'undo':
    case 'redo':
      return { action: b.action, list, txn: text(b.txn, 'txn', { max: 200 }) as string };
    case 'release-gone': {
      if (b.force !== undefined && typeof b.force !== 'boolean') throw bad('force must be true or false');
      const shown = ids(b.ids, 'ids');
      if (shown.length === 0) throw bad('ids: at least one task id');
      return { action: 'release-gone', list, ids: shown, force: b.force === true };
    }
    case 'carry': {
      if (typeof b.to !== 'string' || !isSessionId(b.to)) throw bad('to must be a session id');
      if (b.force !== undefined && typeof b.force !== 'boolean') throw bad('force must be true or false');
      return { action: 'carry', list, to: b.to, force: b.force === true };
    }
    case 'restore':
      return { action: 'restore', list, from: restoreFrom(b.from) };
    default:
      throw bad('unknown action');
  }
}

/**
 * `restore --from` as the page may name it: sessions by id or a unique prefix of one, never
 * a transcript file (the command line's other form: a page names no file on disk).
 */
export function restoreFrom(raw: unknown): string[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw) || raw.length > 50) throw bad('from must be a list of at most 50 session ids');
  return raw.map((f) => {
    if (typeof f !== 'string' || !SESSION_PREFIX.test(f)) throw bad('from: each must be a session id or a prefix of one');
    return f.toLowerCase();
  });
}

const SESSION_PREFIX = /^[0-9a-fA-F][0-9a-fA-F-]{0,35}$/;
