/**
 * A named list's ordinary commands read no transcript: matching a named list to its
 * sessions means reading whole transcripts, which only the commands that need sessions
 * do (lists, log, release --gone, stalled work). Seen through access times: a file read
 * gets a new atime when its atime was older than its mtime (relatime, the usual mount).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { writeTranscript } from '../helpers/session-files.mjs';

const SESSION = '5e551011-aaaa-4bbb-8ccc-000000000001';

function world() {
  const config = tempConfig();
  const proj = path.join(config, 'home', 'proj');
  fs.mkdirSync(proj, { recursive: true });
  writeTask(path.join(config, 'tasks', 'shared'), {
    id: '1',
    subject: 'Ship it',
    description: '',
    status: 'pending',
    blocks: [],
    blockedBy: [],
  });
  // A session with no list of its own: the kind whose transcript ties it to a named list.
  const transcript = writeTranscript(config, { sessionId: SESSION, cwd: proj, prompt: 'work on the shared list' });
  const unread = () => {
    const mtime = fs.statSync(transcript).mtime;
    fs.utimesSync(transcript, new Date('2020-01-01T00:00:00Z'), mtime);
  };
  const wasRead = () => fs.statSync(transcript).atimeMs > Date.parse('2020-01-02T00:00:00Z');
  return { config, proj, unread, wasRead };
}

describe("a named list's ordinary commands read no transcript", () => {
  it('list, get, create, update, start, done, export and watch --timeout leave transcripts unread; lists reads them', () => {
    const w = world();
    w.unread();
    for (const args of [
      ['list'],
      ['list', '--json'],
      ['get', '1'],
      ['create', 'Another'],
      ['update', '1', '--owner', 'worker-1'],
      ['start', '2'],
      ['done', '2'],
      ['export'],
      ['watch', '--until', 'all-completed', '--timeout', '1s', '--json'],
    ]) {
      const r = runInProcessSync(w.config, ['-l', 'shared', ...args], { cwd: w.proj });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(args[0] === 'watch' ? 124 : 0);
      expect({ args, read: w.wasRead() }).toEqual({ args, read: false });
    }
    expect(runInProcessSync(w.config, ['lists', '--json']).code).toBe(0);
    expect(w.wasRead()).toBe(true);
  });
});
