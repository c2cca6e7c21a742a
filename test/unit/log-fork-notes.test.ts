/**
 * What `tasks log` says of a fork's copies of its parent's entries: on the fork's own list,
 * they count in the parent's list; on a list the fork shares with its parent (a named
 * list), the parent's own entries are read here too, so they count here, once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTimeline } from '../../src/core/history/timeline.js';
import type { SessionInfo } from '../../src/core/sessions/session-index.js';
import { renderLogNotes } from '../../src/render/log-lines.js';
import { FIXTURES } from '../helpers/cli.js';

const PARENT = 'b662d4b4-5673-4d15-a9d3-6dd961fcbf2e';
const FORK = 'acebfa33-89bc-4c46-ae49-f0564e9fb3fa';
const transcript = (id: string) => path.join(FIXTURES, 'fork', 'projects', '-tmp-hx-work', `${id}.jsonl`);
const session = (id: string) => ({ sessionId: id, state: 'ended', transcript: transcript(id) }) as SessionInfo;

async function notes(listId: string, sessions: SessionInfo[]) {
  const listDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-fork-notes-'));
  const timeline = await readTimeline(listDir, { listId, sessions, movesOf: () => undefined });
  return { timeline, notes: renderLogNotes(timeline, undefined) };
}

describe("log's note on a fork's copies", () => {
  it("the fork's own list: the copies count in the parent's list", async () => {
    const { timeline, notes: said } = await notes(FORK, [session(FORK)]);
    expect(timeline).toMatchObject({ copied: 3, copiedHere: 0 });
    expect(said).toContain("3 changes in entries a forked session copied from its parent: counted in the parent's list, not here");
  });

  it("a list the fork shares with its parent: the copies are counted here once, as the parent's", async () => {
    const { timeline, notes: said } = await notes('shared', [session(PARENT), session(FORK)]);
    expect(timeline).toMatchObject({ copied: 3, copiedHere: 3 });
    expect(said.join('\n')).not.toContain("counted in the parent's list");
    expect(said).toContain(
      "3 changes in entries a forked session copied from its parent, which shares this list: counted once, as the parent's",
    );
    // Each of the parent's changes once: its own entries, not the fork's copies of them.
    expect(timeline.events.filter((e) => e.who.session === PARENT).map((e) => `${e.op} #${e.task}`)).toEqual([
      'create #1',
      'create #2',
      'update #1',
      'update #2',
    ]);
  });
});
