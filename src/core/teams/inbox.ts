import fs from 'node:fs';
import path from 'node:path';
import { MAX_INBOX_BYTES, readBoundedText } from '../base/bounded-read.js';
import { errnoCode, TasksError } from '../base/errors.js';
import { makeDirs } from '../base/make-dirs.js';
import { assertStillHeld, withInboxLock } from '../locks/locks.js';
import { sanitizeListId } from '../store/paths.js';
import { writeFileAtomic } from '../store/task-file.js';
import { teamsRoot } from './team-config.js';

/**
 * Agents' inboxes (docs/task-store.md section 8):
 * `<config>/teams/<sanitize(team)>/inboxes/<sanitize(agent)>.json`, a JSON array of
 * messages. Written as Claude Code 2.1.328 writes them: create the file as `[]` (flag
 * `wx`), take the inbox lock, re-read, append, write (temp + rename), release.
 */

/** A message exactly as Claude Code 2.1.328 appends it (key order included). */
export interface InboxMessage {
  from: string;
  text: string;
  timestamp: string;
  color?: string;
  summary?: string;
  msgV: 1;
  msg_id: string;
  type: 'message';
  read: false;
}

export function inboxPath(configDir: string, teamName: string, agentName: string): string {
  return path.join(teamsRoot(configDir), sanitizeListId(teamName), 'inboxes', `${sanitizeListId(agentName)}.json`);
}

/** Pure but for the id: the envelope the agents' own writer puts around a message. */
export function inboxMessage(from: string, text: string, timestamp: string, msgId: string = newMessageId()): InboxMessage {
  return { from, text, timestamp, msgV: 1, msg_id: msgId, type: 'message', read: false };
}

/**
 * Append one message under the inbox lock. Entries we do not understand are kept as
 * they are (Claude Code drops entries that fail its schema; we never drop anything).
 * An inbox that is not a JSON array is left alone and reported, never overwritten.
 */
export async function appendToInbox(file: string, message: InboxMessage): Promise<void> {
  try {
    makeDirs(path.dirname(file));
    fs.writeFileSync(file, '[]', { flag: 'wx' });
  } catch (err) {
    if (errnoCode(err) !== 'EEXIST') {
      throw new TasksError('io', `cannot create inbox ${file}: ${(err as Error).message}`, { cause: err });
    }
  }
  await withInboxLock(file, (stillHeld) => {
    const messages = readInbox(file);
    messages.push(message);
    assertStillHeld(stillHeld, `inbox ${path.basename(file)}`);
    writeFileAtomic(file, JSON.stringify(messages, null, 2));
  });
}

/** Read an inbox's entries; throws `corrupt` for a file that is not a JSON array. */
function readInbox(file: string): unknown[] {
  let text: string;
  try {
    text = readBoundedText(file, MAX_INBOX_BYTES);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return [];
    throw new TasksError('io', `cannot read inbox ${file}: ${(err as Error).message}`, { cause: err });
  }
  if (text.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new TasksError('corrupt', `inbox ${file} is not valid JSON (${(err as Error).message}); not writing over it`);
  }
  if (!Array.isArray(parsed)) throw new TasksError('corrupt', `inbox ${file} is not a JSON array; not writing over it`);
  return parsed;
}

/** Web Crypto's global loads node:crypto on first use, not whenever this module loads. */
function newMessageId(): string {
  return globalThis.crypto.randomUUID();
}
