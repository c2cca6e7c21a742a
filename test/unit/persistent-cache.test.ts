import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { cacheRoot, ownerCacheDir } from '../../src/core/cache/cache-location.js';
import { MAX_OWNERS, PersistentCache } from '../../src/core/cache/persistent-cache.js';
import type { ProcessProbe } from '../../src/core/sessions/live-sessions.js';
import { SessionIndex } from '../../src/core/sessions/session-index.js';
import { type LineScan, TranscriptStore } from '../../src/core/sessions/transcript-store.js';

function tmp(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-cache-')));
}

const open = (dir: string, build = 'test') => new PersistentCache({ dir, owner: '/config', build });

describe('where the cache lives', () => {
  it('$XDG_CACHE_HOME/tasks when absolute, else ~/.cache/tasks; one folder per config folder', () => {
    expect(cacheRoot({ xdgCacheHome: '/x/cache', home: '/home/u' })).toBe('/x/cache/tasks');
    expect(cacheRoot({ xdgCacheHome: 'relative', home: '/home/u' })).toBe('/home/u/.cache/tasks');
    expect(cacheRoot({ xdgCacheHome: '', home: '/home/u' })).toBe('/home/u/.cache/tasks');
    expect(cacheRoot({ home: '' })).toBeUndefined();
    const a = ownerCacheDir('/c/tasks', '/home/u/.claude');
    const b = ownerCacheDir('/c/tasks', '/home/u/other/.claude');
    expect(path.dirname(a)).toBe('/c/tasks');
    expect(path.basename(a)).toMatch(/^claude-[0-9a-f]{16}$/);
    expect(a).not.toBe(b);
    expect(ownerCacheDir('/c/tasks', '/home/u/.claude/')).toBe(a);
  });
});

describe('shards on disk', () => {
  it('are read back by the same build and owner only', () => {
    const dir = path.join(tmp(), 'owner');
    const cache = open(dir);
    cache.shard('p').set('k', { v: 1 });
    cache.save();
    expect(open(dir).shard('p').get('k')).toEqual({ v: 1 });
    expect(open(dir, 'another build').shard('p').get('k')).toBeUndefined();
    expect(new PersistentCache({ dir, owner: '/another/config', build: 'test' }).shard('p').get('k')).toBeUndefined();
  });

  it('keeps at most MAX_OWNERS config folders, the least recently saved going first', () => {
    const root = tmp();
    const owners = Array.from({ length: MAX_OWNERS + 3 }, (_, i) => ownerCacheDir(root, `/configs/c${i}`));
    owners.forEach((dir, i) => {
      const cache = new PersistentCache({ dir, owner: `/configs/c${i}`, build: 'test' });
      cache.shard('p').set('k', i);
      cache.save();
      const at = new Date(Date.now() - (owners.length - i) * 60_000);
      fs.utimesSync(dir, at, at);
    });
    const left = fs.readdirSync(root).sort();
    expect(left.length).toBe(MAX_OWNERS);
    expect(left).toEqual(
      owners
        .slice(3)
        .map((d) => path.basename(d))
        .sort(),
    );
    // Something else in the cache root is never removed.
    fs.mkdirSync(path.join(root, 'not-ours'));
    const cache = new PersistentCache({ dir: ownerCacheDir(root, '/configs/new'), owner: '/configs/new', build: 'test' });
    cache.shard('p').set('k', 1);
    cache.save();
    expect(fs.existsSync(path.join(root, 'not-ours'))).toBe(true);
  });
});

/** A scan that records every line it is fed. */
const COUNT: LineScan<{ lines: string[] }> = {
  id: 'count/1',
  needles: ['"n":'],
  start: () => ({ lines: [] }),
  feed: (state, line) => void state.lines.push(line),
  copy: (state) => ({ lines: [...state.lines] }),
  save: (state) => state.lines,
  load: (json) => (Array.isArray(json) && json.every((l) => typeof l === 'string') ? { lines: [...json] } : undefined),
};

describe('a transcript kept between runs (transcript-store.ts)', () => {
  function setup() {
    const root = tmp();
    const projects = path.join(root, 'projects');
    const file = path.join(projects, '-p', 'a.jsonl');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const cacheDir = path.join(root, 'cache');
    /** A fresh run: a new store on the same cache; what its scan was fed, beyond what it kept. */
    const runScan = () => {
      const fed: string[] = [];
      const scan: LineScan<{ lines: string[] }> = {
        ...COUNT,
        feed: (s, l) => {
          fed.push(l);
          COUNT.feed(s, l);
        },
      };
      const store = new TranscriptStore(projects, open(cacheDir));
      const state = store.scan(file, scan);
      store.save();
      return { lines: state.lines, fed };
    };
    return { file, runScan };
  }
  const line = (n: number) => `{"n":${n},"pad":"${'y'.repeat(50)}"}\n`;

  it('a grown transcript is read from where the last read stopped', () => {
    const { file, runScan } = setup();
    fs.writeFileSync(file, line(1) + line(2));
    expect(runScan()).toEqual({ lines: [line(1), line(2)].map((l) => l.trim()), fed: [line(1), line(2)].map((l) => l.trim()) });
    fs.appendFileSync(file, line(3));
    const grown = runScan();
    expect(grown.fed).toEqual([line(3).trim()]);
    expect(grown.lines).toEqual([1, 2, 3].map((n) => line(n).trim()));
  });

  it('one rewritten in place (same inode, longer, other bytes before the end) is read whole', () => {
    const { file, runScan } = setup();
    fs.writeFileSync(file, line(1) + line(2));
    runScan();
    fs.writeFileSync(file, line(7) + line(8) + line(9));
    const again = runScan();
    expect(again.fed).toEqual([7, 8, 9].map((n) => line(n).trim()));
    expect(again.lines).toEqual([7, 8, 9].map((n) => line(n).trim()));
  });

  it('a last line still being written is seen, but not kept as read', () => {
    const { file, runScan } = setup();
    fs.writeFileSync(file, `${line(1)}{"n":2,"pad":"half`);
    expect(runScan().lines).toEqual([line(1).trim(), '{"n":2,"pad":"half']);
    const rest = `${'y'.repeat(46)}"}`;
    fs.appendFileSync(file, `${rest}\n`);
    const done = runScan();
    expect(done.fed).toEqual([`{"n":2,"pad":"half${rest}`]);
    expect(done.lines).toEqual([line(1).trim(), `{"n":2,"pad":"half${rest}`]);
  });

  it('a transcript outside the projects folder is read, and not kept', () => {
    const other = path.join(tmp(), 'b.jsonl');
    fs.writeFileSync(other, line(1));
    const cacheDir = path.join(tmp(), 'cache');
    const store = new TranscriptStore(path.join(tmp(), 'projects'), open(cacheDir));
    expect(store.scan(other, COUNT).lines).toEqual([line(1).trim()]);
    store.save();
    expect(fs.existsSync(cacheDir)).toBe(false);
  });
});

/** No process runs: no session is live by its process. */
const NO_PROCESSES: ProcessProbe = { startTime: () => undefined, domain: () => undefined, claudeProcesses: () => [] };

describe("a project folder's sessions (session-index.ts sessionsIn)", () => {
  it('with their facts kept, are known from the kept entries: no transcript of theirs is opened', async () => {
    const { writeTranscript } = await import('../helpers/session-files.mjs');
    const config = tmp();
    const cwd = path.join(config, 'home', 'proj');
    // Old enough for their stamps to be trusted (file-stamp.ts), as a year of history is.
    const start = Date.now() - 3_600_000;
    for (let i = 0; i < 8; i++)
      writeTranscript(config, {
        sessionId: `0000000${i}-0000-4000-8000-000000000000`,
        cwd,
        prompt: `session ${i}`,
        start: start + i * 60_000,
      });
    const cacheDir = path.join(config, 'cache');
    const later = () => Date.now() + 60_000;
    const first = new SessionIndex(config, { cache: open(cacheDir), now: later, probe: NO_PROCESSES });
    const known = first.sessionsIn(cwd).map((s) => [s.sessionId, s.prompt, s.lastActivity]);
    first.saveCache();
    const opened: string[] = [];
    const openSync = fs.openSync;
    const spy = vi.spyOn(fs, 'openSync').mockImplementation((file, ...rest) => {
      if (String(file).endsWith('.jsonl')) opened.push(String(file));
      return openSync(file, ...rest);
    });
    try {
      const again = new SessionIndex(config, { cache: open(cacheDir), now: later, probe: NO_PROCESSES });
      expect(again.sessionsIn(cwd).map((s) => [s.sessionId, s.prompt, s.lastActivity])).toEqual(known);
    } finally {
      spy.mockRestore();
    }
    expect(known).toHaveLength(8);
    expect(opened).toEqual([]);
  });
});
