import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { GROWN, lists as listsOf, NAMED, OWN, settled, shards, TODO, type World, world } from '../helpers/cache-world.js';
import { run } from '../helpers/cli.js';
import { writeLiveSession } from '../helpers/session-files.mjs';

/**
 * `lists --fresh`: these tests change transcripts and task files in place, as no agent
 * does (a transcript appended to with no live-session file made, a task file rewritten
 * with no lock folder made beside it), to test the stamps kept of each file; a plain run
 * within minutes of the last full look sees changes by the folders they change
 * (test/e2e/kept-lists.test.ts).
 */
const lists = (w: World, cache: 'kept' | 'none' | string) => listsOf(w, cache, ['--fresh']);

/**
 * The persistent cache (core/cache, sessions/transcript-store.ts, lists/summary-cache.ts)
 * is never needed for a correct answer: whatever state it is in, `tasks lists --json`
 * gives what it gives with no cache at all. Each world below is built, left to settle
 * (so that what a run reads is trusted by the next), then changed the way the cache must
 * notice. Through the built binary: only the bundle keeps a persistent cache (its build
 * names it).
 */

/** The sessions `lists` ties to a list. */
function sessionsOf(answer: ReturnType<typeof lists>, list: string): string[] {
  const row = answer.find((l) => l.id === list) as { sessions?: Array<{ sessionId: string }> } | undefined;
  return (row?.sessions ?? []).map((s) => s.sessionId).sort();
}

/** Rewrite every kept shard with `change` applied to its parsed body. */
function rewriteShards(w: World, change: (body: Record<string, unknown>) => void): void {
  for (const file of shards(w)) {
    const body = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    change(body);
    fs.writeFileSync(file, JSON.stringify(body));
  }
}

/**
 * Make what the kept cache says of every transcript a lie: no tasks, no todos, another
 * prompt (and no digest of what it said, so that the evidence kept from it is worked out again).
 */
function lie(body: Record<string, unknown>): void {
  const entries = body.entries as Record<string, Record<string, unknown>>;
  // The whole answer kept by `lists` (lists/kept-lists.ts): the same lie, told there too.
  type Kept = { view?: { s: Array<Record<string, unknown>>; r: Array<{ id: string; sessions: number[] }> } };
  const view = Object.hasOwn(entries, 'lists') ? (entries.lists as Kept).view : undefined;
  if (view !== undefined) {
    for (const s of view.s) s.prompt = 'a stale prompt';
    for (const r of view.r) if (r.id === 'shared') r.sessions = [];
  }
  for (const entry of Object.values(entries)) {
    const f = entry.f as { v: Record<string, unknown> } | undefined;
    if (f !== undefined) f.v.prompt = 'a stale prompt';
    for (const scan of Object.values((entry.x ?? {}) as Record<string, Record<string, unknown>>)) {
      scan.st = { s: [], p: [], c: [], w: [], u: 0 };
      delete scan.h;
    }
  }
}

/** Another local user to be: root can hand files to `nobody`. */
const asNobody = process.getuid?.() === 0 && spawnSync('id', ['-u', 'nobody']).status === 0;
const nobodyUid = asNobody ? Number(spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).stdout.trim()) : -1;

const worlds: Record<string, World> = {};
beforeAll(() => {
  for (const name of ['grow', 'replace', 'version', 'truncate', 'readonly', 'deleted', 'rewrite', 'copy', 'live', 'modes', 'planted'])
    worlds[name] = world();
});

describe('the persistent cache never changes an answer', () => {
  it('a transcript that grows: its new Task-tool calls tie its session to the named list', () => {
    const w = worlds.grow as World;
    const before = lists(w, 'kept');
    expect(shards(w).length).toBeGreaterThan(0);
    expect(sessionsOf(before, 'shared')).toEqual([NAMED]);
    expect(before).toEqual(lists(w, 'none'));
    const file = w.transcript(GROWN);
    fs.appendFileSync(file, fs.readFileSync(`${file}.rest`, 'utf8'));
    const after = lists(w, 'kept');
    expect(sessionsOf(after, 'shared')).toEqual([NAMED, GROWN].sort());
    expect(after).toEqual(lists(w, 'none'));
  });

  it('a transcript replaced with one of the same size and mtime: read again', () => {
    const w = worlds.replace as World;
    expect(sessionsOf(lists(w, 'kept'), 'shared')).toEqual([NAMED]);
    const file = w.transcript(NAMED);
    const original = fs.readFileSync(file, 'utf8');
    const { size, mtime } = fs.statSync(file);
    // A transcript that shows no task, made the same size, renamed over it with the same mtime.
    const plain = sameSize(fs.readFileSync(w.transcript(OWN), 'utf8').replaceAll(OWN, NAMED), size);
    fs.writeFileSync(`${file}.new`, plain);
    fs.utimesSync(`${file}.new`, mtime, mtime);
    fs.renameSync(`${file}.new`, file);
    expect(fs.statSync(file).size).toBe(size);
    const renamed = lists(w, 'kept');
    expect(sessionsOf(renamed, 'shared')).toEqual([]);
    expect(renamed).toEqual(lists(w, 'none'));
    // The first content again, written in place (the same inode), the mtime set back once more.
    fs.writeFileSync(file, original);
    fs.utimesSync(file, mtime, mtime);
    const again = lists(w, 'kept');
    expect(sessionsOf(again, 'shared')).toEqual([NAMED]);
    expect(again).toEqual(lists(w, 'none'));
  });

  it('a cache from another build or format of tasks is not used', () => {
    const w = worlds.version as World;
    const truth = lists(w, 'kept');
    expect(sessionsOf(truth, 'shared')).toEqual([NAMED]);
    // Under this build's own name the same lie would be believed: the files have not changed.
    rewriteShards(w, lie);
    expect(sessionsOf(lists(w, 'kept'), 'shared')).toEqual([]);
    // Named as another build, or another format, it is ignored (and replaced).
    rewriteShards(w, (body) => {
      lie(body);
      body.build = 'tasks 0.0.1 another-build';
    });
    expect(lists(w, 'kept')).toEqual(truth);
    rewriteShards(w, (body) => {
      lie(body);
      body.format = 'tasks-cache/0';
    });
    expect(lists(w, 'kept')).toEqual(truth);
    expect(lists(w, 'none')).toEqual(truth);
  });

  it('a truncated or damaged cache is ignored and rebuilt', () => {
    const w = worlds.truncate as World;
    const truth = lists(w, 'none');
    expect(lists(w, 'kept')).toEqual(truth);
    for (const file of shards(w)) fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
    expect(lists(w, 'kept')).toEqual(truth);
    for (const file of shards(w)) expect(() => JSON.parse(fs.readFileSync(file, 'utf8'))).not.toThrow();
    for (const file of shards(w)) fs.writeFileSync(file, '{"format":"tasks-cache/1","entries":[1,2,3]}');
    expect(lists(w, 'kept')).toEqual(truth);
    for (const file of shards(w)) fs.writeFileSync(file, '\0\0\0');
    expect(lists(w, 'kept')).toEqual(truth);
  });

  it('a cache folder that cannot be written only costs time', () => {
    const w = worlds.readonly as World;
    const truth = lists(w, 'none');
    // Something in the way of the cache folder: it cannot be made.
    const blocked = path.join(w.config, 'blocked');
    fs.writeFileSync(blocked, 'not a folder');
    expect(lists(w, blocked)).toEqual(truth);
    expect(fs.readFileSync(blocked, 'utf8')).toBe('not a folder');
    // A cache that can be read but not written, with the transcripts changed since it was.
    expect(lists(w, 'kept')).toEqual(truth);
    const before = Object.fromEntries(shards(w).map((f) => [f, fs.readFileSync(f, 'utf8')]));
    const undo = makeReadOnly(path.join(w.cache, 'tasks'));
    try {
      fs.appendFileSync(w.transcript(GROWN), fs.readFileSync(`${w.transcript(GROWN)}.rest`, 'utf8'));
      const grown = lists(w, 'kept');
      expect(sessionsOf(grown, 'shared')).toEqual([NAMED, GROWN].sort());
      expect(grown).toEqual(lists(w, 'none'));
      if (undo !== undefined) expect(Object.fromEntries(shards(w).map((f) => [f, fs.readFileSync(f, 'utf8')]))).toEqual(before);
    } finally {
      undo?.();
    }
  });

  it('task files the evidence was worked out from, rewritten in place: worked out again', () => {
    const w = worlds.rewrite as World;
    expect(sessionsOf(lists(w, 'kept'), 'shared')).toEqual([NAMED]);
    // Other subjects in the same files, their times set back: the folder's names and every transcript stay as they were.
    const dir = path.join(w.config, 'tasks', 'shared');
    for (const name of ['9.json', '10.json', '11.json']) {
      const file = path.join(dir, name);
      const { mtime } = fs.statSync(file);
      const task = JSON.parse(fs.readFileSync(file, 'utf8'));
      fs.writeFileSync(file, JSON.stringify({ ...task, subject: `${task.subject} (another plan)` }));
      fs.utimesSync(file, mtime, mtime);
    }
    const after = lists(w, 'kept');
    expect(sessionsOf(after, 'shared')).toEqual([]);
    expect(after).toEqual(lists(w, 'none'));
  });

  it('a second list holding the same tasks: the session can no longer be told to be on either', () => {
    const w = worlds.copy as World;
    expect(sessionsOf(lists(w, 'kept'), 'shared')).toEqual([NAMED]);
    fs.cpSync(path.join(w.config, 'tasks', 'shared'), path.join(w.config, 'tasks', 'shared-copy'), {
      recursive: true,
      preserveTimestamps: true,
    });
    const after = lists(w, 'kept');
    expect(sessionsOf(after, 'shared')).toEqual([]);
    const unsure = (list: string) => (after.find((l) => l.id === list) as { unsureSessions?: string[] } | undefined)?.unsureSessions;
    expect(unsure('shared')).toEqual([NAMED]);
    expect(unsure('shared-copy')).toEqual([NAMED]);
    expect(after).toEqual(lists(w, 'none'));
  });

  it('a live-session file rewritten in place, its time set back: read again', async () => {
    const w = worlds.live as World;
    // Left by a crash: its process is long gone.
    const file = writeLiveSession(w.config, { pid: 4_000_001, sessionId: TODO, cwd: w.project, procStartTicks: '1' });
    const state = (answer: ReturnType<typeof lists>, id: string) =>
      (answer.find((l) => l.id === id) as { sessions?: Array<{ sessionId: string; state: string }> } | undefined)?.sessions?.find(
        (s) => s.sessionId === id,
      )?.state;
    const before = lists(w, 'kept');
    expect(state(before, TODO)).toBe('crashed');
    expect(before).toEqual(lists(w, 'none'));
    // The same file, naming another session: the same size, the same mtime.
    const { mtime } = fs.statSync(file);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(TODO, OWN));
    fs.utimesSync(file, mtime, mtime);
    const after = lists(w, 'kept');
    expect(state(after, TODO)).toBe('ended');
    expect(state(after, OWN)).toBe('crashed');
    expect(after).toEqual(lists(w, 'none'));
  });

  it('makes its folders 0700 and its files 0600', () => {
    const w = worlds.modes as World;
    lists(w, 'kept');
    const root = path.join(w.cache, 'tasks');
    const owners = fs.readdirSync(root).map((n) => path.join(root, n));
    expect(owners.length).toBeGreaterThan(0);
    for (const dir of [w.cache, root, ...owners]) expect([dir, fs.statSync(dir).mode & 0o777]).toEqual([dir, 0o700]);
    expect(shards(w).length).toBeGreaterThan(0);
    for (const file of shards(w)) expect([file, fs.statSync(file).mode & 0o777]).toEqual([file, 0o600]);
  });

  it('a cache folder others can write, or another user made, is not read, and said so once; the answer is the files', () => {
    const w = worlds.planted as World;
    const truth = lists(w, 'none');
    const rows = (answer: ReturnType<typeof lists>) => JSON.stringify(answer);
    expect(rows(truth)).toContain('"prompt":"build the parser"');
    // A cache whose every entry says another project and prompt, planted where this user's would be.
    lists(w, 'kept');
    rewriteShards(w, (body) => {
      lie(body);
      for (const entry of Object.values(body.entries as Record<string, { f?: { v: Record<string, unknown> } }>))
        if (entry.f !== undefined) entry.f.v.cwd = '/planted/project';
    });
    const planted = Object.fromEntries(shards(w).map((f) => [f, fs.readFileSync(f, 'utf8')]));
    const root = path.join(w.cache, 'tasks');
    const owner = fs.readdirSync(root).map((n) => path.join(root, n))[0] as string;
    const listsWith = () => run(w.config, ['lists', '--json'], { cwd: w.project, env: { XDG_CACHE_HOME: w.cache, ...settled() } });
    const refused = (dir: string, why: string) => {
      const r = listsWith();
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(truth);
      expect(r.stdout).not.toContain('planted');
      expect(
        r.stderr
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
      ).toEqual([
        {
          warning: {
            code: 'cache_untrusted',
            message: `not using the cache folder: ${dir} ${why}; make it yours and private (chmod 700) or remove it, or set XDG_CACHE_HOME to a folder of your own`,
            dir: owner,
          },
        },
      ]);
      // Nothing written there either.
      expect(Object.fromEntries(shards(w).map((f) => [f, fs.readFileSync(f, 'utf8')]))).toEqual(planted);
    };
    // Writable by others: the cache's own folder, its root, the folder that holds the root (a shared XDG_CACHE_HOME).
    fs.chmodSync(owner, 0o777);
    refused(owner, 'can be written by others (mode 0777)');
    fs.chmodSync(owner, 0o700);
    fs.chmodSync(root, 0o777);
    refused(root, 'can be written by others (mode 0777)');
    fs.chmodSync(root, 0o700);
    fs.chmodSync(w.cache, 0o777);
    refused(w.cache, 'can be written by others (mode 0777) without the sticky bit');
    if (asNobody) {
      // Made by another user (here: nobody), with this user's name for it.
      fs.chmodSync(w.cache, 0o1777);
      spawnSync('chown', ['-R', 'nobody', root]);
      refused(root, `belongs to another user (uid ${nobodyUid})`);
      spawnSync('chown', ['root', root]);
      refused(owner, `belongs to another user (uid ${nobodyUid})`);
      // The folders are this user's again, but a shard in them is not: it is not read (and is replaced).
      spawnSync('chown', ['root', owner]);
      const r = listsWith();
      expect([r.code, r.stderr]).toEqual([0, '']);
      expect(JSON.parse(r.stdout)).toEqual(truth);
      for (const file of shards(w)) expect(fs.statSync(file).uid).toBe(process.getuid?.());
    }
    // A shared folder with the sticky bit (as /tmp is) holding this user's own private folder is fine.
    fs.chmodSync(w.cache, 0o1777);
    expect(lists(w, 'kept')).toEqual(truth);
  });

  it('a deleted transcript: its session is gone from the answer', () => {
    const w = worlds.deleted as World;
    expect(sessionsOf(lists(w, 'kept'), 'shared')).toEqual([NAMED]);
    expect(lists(w, 'kept').some((l) => l.id === TODO)).toBe(true);
    fs.rmSync(w.transcript(NAMED));
    fs.rmSync(w.transcript(TODO));
    const after = lists(w, 'kept');
    expect(sessionsOf(after, 'shared')).toEqual([]);
    expect(after.some((l) => l.id === TODO)).toBe(false);
    expect(after).toEqual(lists(w, 'none'));
  });
});

/** `text` as whole lines of exactly `size` bytes: cut at a line's end, padded with spaces before the last newline. */
function sameSize(text: string, size: number): string {
  const lines = text.trimEnd().split('\n');
  while (Buffer.byteLength(lines.join('\n')) + 1 > size) lines.pop();
  const body = lines.join('\n');
  return `${body}${' '.repeat(size - Buffer.byteLength(body) - 1)}\n`;
}

/**
 * Make a folder and what is in it unwritable, however this test runs: by its mode, or for
 * root (whom modes do not stop) by the immutable flag. Returns how to undo it; undefined
 * when neither works here (then the test checks only that nothing failed).
 */
function makeReadOnly(dir: string): (() => void) | undefined {
  const folders = [dir, ...fs.readdirSync(dir).map((n) => path.join(dir, n))].filter((d) => fs.statSync(d).isDirectory());
  const writable = () => {
    const probe = path.join(folders.at(-1) as string, '.probe');
    try {
      fs.writeFileSync(probe, '');
      fs.rmSync(probe);
      return true;
    } catch {
      return false;
    }
  };
  for (const d of folders) fs.chmodSync(d, 0o555);
  if (!writable()) {
    return () => {
      for (const d of folders) fs.chmodSync(d, 0o755);
    };
  }
  for (const d of folders) fs.chmodSync(d, 0o755);
  const files = folders.flatMap((d) => [d, ...fs.readdirSync(d).map((n) => path.join(d, n))]);
  if (spawnSync('chattr', ['+i', ...files]).status === 0 && !writable()) return () => void spawnSync('chattr', ['-i', ...files]);
  spawnSync('chattr', ['-i', ...files]);
  return undefined;
}
