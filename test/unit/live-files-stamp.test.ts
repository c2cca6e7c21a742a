/**
 * The live-session files' stamp, and the board's session index made again when it
 * changes: a session that starts, ends, or turns busy or idle after the index was read is
 * never answered for by that index (a list told done between an agent's steps, work taken
 * as gone from an agent that just began).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Sessions } from '../../src/board/board-state.js';
import { liveFilesStamp } from '../../src/core/sessions/live-sessions.js';
import type { SessionIndex } from '../../src/core/sessions/session-index.js';

function config(): { dir: string; live: (pid: number, status: string) => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-stamp-'));
  const sessions = path.join(dir, 'sessions');
  return {
    dir,
    live: (pid, status) => {
      fs.mkdirSync(sessions, { recursive: true });
      fs.writeFileSync(path.join(sessions, `${pid}.json`), JSON.stringify({ pid, sessionId: `s-${pid}`, status }));
    },
  };
}

describe('liveFilesStamp', () => {
  it('changes when a session starts, turns idle, or ends; not for other files', () => {
    const c = config();
    const none = liveFilesStamp(c.dir);
    expect(none).toBe('');
    c.live(4242, 'busy');
    const started = liveFilesStamp(c.dir);
    expect(started).not.toBe(none);
    expect(liveFilesStamp(c.dir)).toBe(started);
    // Another file of that folder (a key file) is not a session.
    fs.writeFileSync(path.join(c.dir, 'sessions', '4242.abc.key'), '{}');
    expect(liveFilesStamp(c.dir)).toBe(started);
    c.live(4242, 'idle');
    const idle = liveFilesStamp(c.dir);
    expect(idle).not.toBe(started);
    fs.rmSync(path.join(c.dir, 'sessions', '4242.json'));
    expect(liveFilesStamp(c.dir)).toBe(none);
  });
});

describe("the board's session index", () => {
  it('is made again when the live-session files changed since it was made, and kept while they did not', () => {
    const c = config();
    let made = 0;
    const sessions = new Sessions(
      () => {
        made++;
        return { saveCache: () => undefined, made } as unknown as SessionIndex;
      },
      Date.now,
      () => liveFilesStamp(c.dir),
    );
    const first = sessions.current;
    expect(sessions.current).toBe(first);
    expect(made).toBe(1);
    c.live(7, 'busy');
    const second = sessions.current;
    expect(second).not.toBe(first);
    expect(made).toBe(2);
    expect(sessions.within(60_000)).toBe(second);
    fs.rmSync(path.join(c.dir, 'sessions', '7.json'));
    expect(sessions.within(60_000)).not.toBe(second);
    expect(made).toBe(3);
  });
});
