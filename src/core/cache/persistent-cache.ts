/**
 * The persistent cache: what tasks has worked out from files it does not own (Claude
 * Code's transcripts), kept between runs in the user's cache folder so that a run reads
 * again only what changed (cache-location.ts: `$XDG_CACHE_HOME/tasks/`, else
 * `~/.cache/tasks/`; never in Claude Code's folders). It is never needed for a correct
 * answer: each entry carries the stamp of the file it was worked out from
 * (file-stamp.ts), and its user takes it only while the file still has that stamp. A
 * missing, damaged or foreign cache, one from another build of tasks, a folder that
 * cannot be written, a race lost to another process: each only costs the time of reading
 * the files again.
 *
 * One folder per Claude Code config folder; in it, shards: JSON files of entries by key,
 * read whole the first time a run asks for one, and written whole when the run changed
 * them (`save`), to a temporary file renamed over the shard, so that a reader sees the
 * old shard or the new one, never a torn one. When two processes save the same shard at
 * once, the last rename wins and what the other worked out is worked out again next
 * time. A shard is used only if it names this format, this build and this config folder,
 * and only from folders that are the user's alone (cache-trust.ts); the folders it makes
 * are 0700, its files 0600.
 *
 * Bounded: a shard's user keeps entries only for files that exist (`retain`), shards of
 * vanished sources are removed when it is saved, a shard over MAX_SHARD_BYTES is not
 * written, and at most MAX_OWNERS config folders keep a cache (the least recently saved
 * go first).
 */
import fs from 'node:fs';
import path from 'node:path';
import { shardTrusted } from './cache-trust.js';

/** The layout of shard files; another value is another format, and ignored. */
const FORMAT = 'tasks-cache/1';
/** Larger shards are neither read nor written (they are worked out again each run). */
export const MAX_SHARD_BYTES = 32 * 1024 * 1024;
/** Config folders with a cache of their own, at most. */
export const MAX_OWNERS = 16;
/** A temporary file older than this was left by a process that died before renaming it. */
const STALE_TEMP_MS = 10 * 60_000;
const SHARD_SUFFIX = '.json';
/** A shard's file name: what its user names it, made safe and short. */
const SAFE_NAME = /^[A-Za-z0-9_-]{1,120}$/;

interface ShardFile {
  format: string;
  build: string;
  owner: string;
  entries: Record<string, unknown>;
}

export interface PersistentCacheOptions {
  /** The cache's folder for this owner (cache-location.ts); undefined: memory only. */
  dir: string | undefined;
  /** What the cache is of, e.g. the config folder's path: a shard of another owner is not used. */
  owner: string;
  /** This build of tasks: a cache written by another is not used. */
  build: string;
  /** The user's uid: a shard that is not theirs, or that others can write, is not read (cache-trust.ts). */
  uid?: number | undefined;
}

export class PersistentCache {
  private readonly shards = new Map<string, Shard>();
  readonly dir: string | undefined;

  constructor(private readonly opts: PersistentCacheOptions) {
    this.dir = opts.dir;
  }

  /** The shard of this name, read from disk the first time it is asked for. */
  shard(name: string): Shard {
    let shard = this.shards.get(name);
    if (shard === undefined) {
      shard = new Shard(this.load(name));
      this.shards.set(name, shard);
    }
    return shard;
  }

  /** The shard of this name if this run has read it already. */
  loadedShard(name: string): Shard | undefined {
    return this.shards.get(name);
  }

  /**
   * Write every shard this run changed. Failures are ignored: the next run reads the
   * files again. `keepShards`: every shard whose source still exists (the others are
   * removed), when the run knows them all; shards named with a leading `_` are not
   * among those sources, and stay.
   */
  save(keepShards?: Iterable<string>): void {
    if (this.dir === undefined) return;
    const dirty = [...this.shards].filter(([, s]) => s.dirty);
    if (dirty.length === 0) return;
    if (!makeCacheDir(this.dir)) return;
    if (keepShards !== undefined) {
      const files = new Set([...keepShards].map(fileName));
      for (const name of safeReaddir(this.dir)) {
        if (name.endsWith(SHARD_SUFFIX) && !name.startsWith('_') && !files.has(name)) removeQuietly(path.join(this.dir, name));
      }
    }
    for (const [name, shard] of dirty) {
      const body: ShardFile = { format: FORMAT, build: this.opts.build, owner: this.opts.owner, entries: shard.entries };
      const text = JSON.stringify(body);
      if (text.length > MAX_SHARD_BYTES) continue;
      if (writeAtomically(path.join(this.dir, fileName(name)), text)) shard.dirty = false;
    }
    removeStaleTemps(this.dir);
    boundOwners(path.dirname(this.dir), this.dir);
  }

  private load(name: string): Record<string, unknown> {
    if (this.dir === undefined) return {};
    let text: string;
    try {
      const file = path.join(this.dir, fileName(name));
      const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
      try {
        const stat = fs.fstatSync(fd);
        if (!stat.isFile() || stat.size > MAX_SHARD_BYTES || !shardTrusted(stat, this.opts.uid)) return {};
        text = fs.readFileSync(fd, 'utf8');
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      return {};
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return {}; // damaged: replaced when this run saves
    }
    if (typeof body !== 'object' || body === null) return {};
    const { format, build, owner, entries } = body as Partial<ShardFile>;
    if (format !== FORMAT || build !== this.opts.build || owner !== this.opts.owner) return {};
    if (typeof entries !== 'object' || entries === null || Array.isArray(entries)) return {};
    // Entries are data from disk: their user checks each one's shape before trusting it.
    return Object.assign(Object.create(null) as Record<string, unknown>, entries);
  }
}

/** Entries by key, as read; changes are written when the cache is saved. */
export class Shard {
  dirty = false;

  constructor(readonly entries: Record<string, unknown>) {}

  get(key: string): unknown {
    return Object.hasOwn(this.entries, key) ? this.entries[key] : undefined;
  }

  set(key: string, value: unknown): void {
    this.entries[key] = value;
    this.dirty = true;
  }

  /** Drop the entries whose keys are not in `keep` (their files are gone). */
  retain(keep: ReadonlySet<string>): void {
    for (const key of Object.keys(this.entries)) {
      if (!keep.has(key)) {
        delete this.entries[key];
        this.dirty = true;
      }
    }
  }
}

/** A shard name as a file name: kept when safe and short, else hashed. */
function fileName(shard: string): string {
  return `${SAFE_NAME.test(shard) ? shard : `h-${hashHex(shard)}`}${SHARD_SUFFIX}`;
}

/** A 64-bit FNV-1a of a string's UTF-16 units, as 16 hex digits: names, not security. */
export function hashHex(text: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x050c5d1f;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ c, 0x01000193) >>> 0;
    h2 = (h2 + (h1 >>> 7)) >>> 0;
  }
  return h1.toString(16).padStart(8, '0') + h2.toString(16).padStart(8, '0');
}

/** The cache's folders, private to the user (what it keeps includes prompts). */
function makeCacheDir(dir: string): boolean {
  try {
    fs.mkdirSync(dir, { recursive: false, mode: 0o700 });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return true;
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return false;
  }
  // Its parents are missing: make them one at a time (mkdir -p, never looping on a refusal).
  const missing: string[] = [];
  for (let cur = dir; !fs.existsSync(cur); cur = path.dirname(cur)) {
    if (path.dirname(cur) === cur) return false;
    missing.push(cur);
  }
  try {
    for (const folder of missing.reverse()) {
      try {
        fs.mkdirSync(folder, { mode: 0o700 });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    return true;
  } catch {
    return false;
  }
}

/** Temp file, then rename over `file`; false when either fails (the temp file is removed). */
function writeAtomically(file: string, text: string): boolean {
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`;
  try {
    fs.writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
    fs.renameSync(temp, file);
    return true;
  } catch {
    removeQuietly(temp);
    return false;
  }
}

function removeStaleTemps(dir: string): void {
  const now = Date.now();
  for (const name of safeReaddir(dir)) {
    if (!name.endsWith('.tmp')) continue;
    const file = path.join(dir, name);
    try {
      if (fs.statSync(file).mtimeMs < now - STALE_TEMP_MS) fs.unlinkSync(file);
    } catch {
      // gone already
    }
  }
}

/** Keep at most MAX_OWNERS owners' folders beside `own`: the least recently saved go. */
function boundOwners(root: string, own: string): void {
  const folders = safeReaddir(root)
    .filter((name) => OWNER_FOLDER.test(name) && path.join(root, name) !== own)
    .flatMap((name) => {
      try {
        return [{ name, at: fs.statSync(path.join(root, name)).mtimeMs }];
      } catch {
        return [];
      }
    });
  if (folders.length < MAX_OWNERS) return;
  folders.sort((a, b) => a.at - b.at);
  for (const { name } of folders.slice(0, folders.length - (MAX_OWNERS - 1))) {
    try {
      fs.rmSync(path.join(root, name), { recursive: true, force: true });
    } catch {
      // another process is removing it, or cannot: it goes next time
    }
  }
}

/** The name of an owner's folder (cache-location.ts): only these are ever removed. */
export const OWNER_FOLDER = /^[A-Za-z0-9_.-]{0,40}-[0-9a-f]{16}$/;

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function removeQuietly(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {
    // not there
  }
}
