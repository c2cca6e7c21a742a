import fs from 'node:fs';
import path from 'node:path';
import { type FileStamp, sameStamp, stampFromTuple, stampOf, stampTuple, trusted } from '../cache/file-stamp.js';
import type { PersistentCache, Shard } from '../cache/persistent-cache.js';
import { openRegular } from './jsonl-window.js';
import { factsOfOpenFile, type TranscriptFacts } from './transcript-facts.js';
import { scanLines, visitLastLine } from './transcript-lines.js';

/**
 * What each transcript says, worked out once per version of the file and kept: in memory
 * for the run, and in the persistent cache (cache/) between runs, one shard per project
 * folder (`<config>/projects/<folder>/`), keyed by the transcript's path inside it.
 *
 * - Facts (transcript-facts.ts: its first and last lines): kept with the file's stamp,
 *   used while the stamp is the same and was taken after the file had settled.
 * - Scans (a LineScan: every line that holds one of its needles, in order, fed to a
 *   state; transcript-tasks.ts reads Task-tool calls this way): kept with where they
 *   stopped, after the last complete line, and a hash of the bytes before that point. A
 *   transcript only grows, so a grown one (same inode, those bytes unchanged) is read
 *   from there on; one replaced or rewritten is read whole. A last line without its
 *   newline (being written) is fed to a copy of the state, never kept.
 *
 * Both are pure functions of the file's bytes, which is what makes keeping them safe:
 * whatever a cached entry says, the answer is the one a fresh read would give.
 */
export interface LineScan<S> {
  /** Names the scan and the shape of its state (`tasks/1`): a state kept under another id is not used. */
  readonly id: string;
  /** What a line must hold, as bytes, to be fed. */
  readonly needles: readonly string[];
  start(): S;
  feed(state: S, line: string): void;
  /** A copy that feeding does not share with `state`. */
  copy(state: S): S;
  /** The state as JSON, and back (undefined: not a state this scan wrote). */
  save(state: S): unknown;
  load(json: unknown): S | undefined;
  /**
   * A short digest of what the state says (not of how it got there): equal digests, equal
   * answers. Kept with the state, so that a user that only needs to know whether the
   * answer changed (sessions/evidence-cache.ts) need not load it.
   */
  digest?(state: S): string;
}

/** How many bytes before a scan's stopping point its hash covers. */
const MARK_BYTES = 4096;

/**
 * The rules transcript-facts.ts reads a transcript by: facts kept under another were worked
 * out by other rules and are read again (2: an end followed by an interrupted turn's entry;
 * 3: a fork's own prompt after the entry that closes its parent's open turn; 4: the last
 * entry's own time).
 */
const FACTS_VERSION = 4;

interface KeptFacts {
  s: FileStamp;
  at: number;
  v: TranscriptFacts;
}

interface KeptScan {
  s: FileStamp;
  at: number;
  /** Where the scan stopped: just after the last newline it read. */
  e: number;
  /** The hash of the MARK_BYTES before `e`. */
  m: number;
  st: unknown;
  /** The scan's digest of `st` (LineScan.digest), when it has one. */
  h?: string | undefined;
}

export class TranscriptStore {
  private readonly factsMemo = new Map<string, TranscriptFacts>();
  /** By scan id, then by file: a key made of both, built for each of thousands of transcripts, cost more than the lookups. */
  private readonly scanMemo = new Map<string, Map<string, unknown>>();
  private readonly digestMemo = new Map<string, Map<string, string>>();
  /** Per shard not read yet: how many transcripts' facts were read from the files instead. */
  private readonly directFacts = new Map<string, number>();
  /** Each transcript's stamp, taken once per run: facts and scans of one file share it. */
  private readonly statMemo = new Map<string, FileStamp | null>();
  private readonly patterns = new Map<string, Buffer[]>();
  private projects: readonly string[] | undefined;

  /** `<config>/projects`: transcripts below it are kept in the persistent cache. */
  readonly projectsRoot: string;

  constructor(
    /** `<config>/projects`: transcripts below it are kept in the persistent cache. */
    projectsRoot: string,
    readonly cache: PersistentCache | undefined,
    private readonly now: () => number = Date.now,
    /**
     * Keep every transcript's entry in this one shard (keyed by `<project folder>/<file>`)
     * instead of its project folder's: for a reading a few commands make of a few
     * transcripts (the cost of a list's sessions), which the project folders' shards, read
     * by most commands, should not carry. Its user keeps it bounded (keyOf).
     */
    private readonly ownShard?: string,
  ) {
    this.projectsRoot = path.resolve(projectsRoot);
  }

  /** A transcript's facts (transcript-facts.ts), read only when not known for its present stamp. */
  facts(file: string): TranscriptFacts {
    const memo = this.factsMemo.get(file);
    if (memo !== undefined) return memo;
    const place = this.factsFromFile(file) ? undefined : this.place(file);
    const kept = place === undefined ? undefined : keptFacts(place.shard.get(place.key));
    let facts: TranscriptFacts | undefined;
    if (kept !== undefined) {
      const stamp = this.statOf(file);
      if (stamp !== undefined && sameStamp(kept.s, stamp) && trusted(kept.s, kept.at)) facts = kept.v;
    }
    if (facts === undefined) {
      let opened: ReturnType<typeof openRegular> | undefined;
      try {
        opened = openRegular(file);
      } catch {
        facts = {};
      }
      if (opened !== undefined) {
        try {
          const stamp = stampOf(opened.stat);
          const at = this.now();
          facts = factsOfOpenFile(opened.fd, opened.size, opened.mtimeMs);
          if (place !== undefined && trusted(stamp, at))
            place.shard.set(place.key, { ...entryOf(place), f: { s: stampTuple(stamp), at, v: facts, n: FACTS_VERSION } });
        } finally {
          fs.closeSync(opened.fd);
        }
      }
    }
    this.factsMemo.set(file, facts as TranscriptFacts);
    return facts as TranscriptFacts;
  }

  /**
   * The state of `scan` after every line of the transcript: from the kept state where
   * the file is the one it was worked out from (reading only what was appended since),
   * else from its first byte. An unreadable file gives the scan's start.
   */
  scan<S>(file: string, scan: LineScan<S>): S {
    const scans = memoOf(this.scanMemo, scan.id);
    if (scans.has(file)) return scans.get(file) as S;
    const place = this.place(file);
    const entry = place === undefined ? undefined : entryOf(place);
    const kept = keptScan(entry?.x?.[scan.id]);
    let result: S | undefined;
    if (this.unchangedSinceRead(file, kept)) result = loadState(scan, (kept as KeptScan).st);
    if (result === undefined) {
      let opened: ReturnType<typeof openRegular> | undefined;
      try {
        opened = openRegular(file);
      } catch {
        result = scan.start();
      }
      if (opened !== undefined) {
        try {
          result = this.scanOpen(opened.fd, stampOf(opened.stat), scan, place, entry, kept);
        } catch {
          result = scan.start(); // unreadable midway: says nothing, as a fresh read would
        } finally {
          fs.closeSync(opened.fd);
        }
      }
    }
    scans.set(file, result);
    return result as S;
  }

  /**
   * The scan's digest (LineScan.digest) of the transcript as it is now: the kept one while
   * the file is the one it was worked out from, without loading the state; else the
   * digest of scan()'s state.
   */
  scanDigest<S>(file: string, scan: LineScan<S> & { digest(state: S): string }): string {
    const digests = memoOf(this.digestMemo, scan.id);
    const memo = digests.get(file);
    if (memo !== undefined) return memo;
    let digest: string | undefined;
    if (!memoOf(this.scanMemo, scan.id).has(file)) {
      const place = this.place(file);
      const entry = place === undefined ? undefined : (place.shard.get(place.key) as Entry | undefined);
      const kept = keptScan(typeof entry?.x === 'object' && entry.x !== null ? entry.x[scan.id] : undefined);
      if (this.unchangedSinceRead(file, kept)) {
        digest = kept?.h;
        if (digest === undefined && place !== undefined) {
          // Kept without its digest: worked out from the kept state, and kept beside it.
          digest = scan.digest(this.scan(file, scan));
          const was = entryOf(place);
          place.shard.set(place.key, { ...was, x: { ...was.x, [scan.id]: { ...(was.x?.[scan.id] as object), h: digest } } });
        }
      }
    }
    digest ??= scan.digest(this.scan(file, scan));
    digests.set(file, digest);
    return digest;
  }

  /** A transcript's stamp (undefined: none, or not a file), taken once per run. */
  statOf(file: string): FileStamp | undefined {
    let stamp = this.statMemo.get(file);
    if (stamp === undefined) {
      let stat: fs.Stats | undefined;
      try {
        stat = fs.statSync(file, { throwIfNoEntry: false });
      } catch {
        // a loop of links, a folder that cannot be searched: not a transcript to read
      }
      stamp = stat?.isFile() ? stampOf(stat) : null;
      this.statMemo.set(file, stamp);
    }
    return stamp ?? undefined;
  }

  /** Was this kept scan a read of all of the file, trusted, and has the file not changed since? */
  private unchangedSinceRead(file: string, kept: KeptScan | undefined): boolean {
    if (kept === undefined || kept.e !== kept.s.size || !trusted(kept.s, kept.at)) return false;
    const stamp = this.statOf(file);
    return stamp !== undefined && sameStamp(kept.s, stamp);
  }

  private scanOpen<S>(
    fd: number,
    stamp: FileStamp,
    scan: LineScan<S>,
    place: Place | undefined,
    entry: Entry | undefined,
    kept: KeptScan | undefined,
  ): S {
    let state: S | undefined;
    let end = 0;
    if (kept !== undefined && kept.s.ino === stamp.ino && kept.e <= stamp.size) {
      // The same file, or one grown from it: go on from where the scan stopped.
      const same = sameStamp(kept.s, stamp) && trusted(kept.s, kept.at);
      if (same || markAt(fd, kept.e) === kept.m) {
        state = loadState(scan, kept.st);
        end = state === undefined ? 0 : kept.e;
      }
    }
    state ??= scan.start();
    const at = this.now();
    const from = end;
    if (end < stamp.size) end = scanLines(fd, end, stamp.size, this.patternsOf(scan), (line) => scan.feed(state as S, line));
    if (place !== undefined && entry !== undefined && (end !== from || kept === undefined || !sameStamp(kept.s, stamp))) {
      const h = scan.digest?.(state);
      const kept = { s: stampTuple(stamp), at, e: end, m: markAt(fd, end), st: savedState(scan, state), ...(h !== undefined ? { h } : {}) };
      const x = { ...entry.x, [scan.id]: kept };
      place.shard.set(place.key, { ...entry, x });
    }
    if (end >= stamp.size) return state;
    // A last line still being written: seen this time, read again (whole) the next.
    const final = scan.copy(state);
    visitLastLine(fd, end, stamp.size, this.patternsOf(scan), (line) => scan.feed(final, line));
    return final;
  }

  /**
   * Drop the kept entries of a project folder's transcripts that are gone: `names` are
   * the folder's entries now (a session's subagents live in `<session>/`). Only for a
   * shard this run has read already.
   */
  retain(project: string, names: ReadonlySet<string>): void {
    const shard = this.cache?.loadedShard(project);
    if (shard === undefined) return;
    const first = (key: string) => key.slice(0, key.indexOf('/') === -1 ? key.length : key.indexOf('/'));
    shard.retain(new Set(Object.keys(shard.entries).filter((key) => names.has(first(key)))));
  }

  /** The project folders there are now (a full listing): the kept shards of others go when saved. */
  retainProjects(projects: readonly string[]): void {
    this.projects = projects;
  }

  /** Write what this run worked out to the persistent cache, if there is one. */
  save(): void {
    this.cache?.save(this.projects);
  }

  private patternsOf(scan: LineScan<unknown>): Buffer[] {
    let p = this.patterns.get(scan.id);
    if (p === undefined) this.patterns.set(scan.id, (p = scan.needles.map((n) => Buffer.from(n))));
    return p;
  }

  /** The shard and key of a transcript under `<config>/projects/<folder>/`; undefined elsewhere. */
  private place(file: string): Place | undefined {
    const where = this.cache === undefined ? undefined : this.shardNameOf(file);
    if (where === undefined) return undefined;
    const cache = this.cache as PersistentCache;
    if (this.ownShard !== undefined) return { shard: cache.shard(this.ownShard), key: `${where.name}/${where.key}` };
    return { shard: cache.shard(where.name), key: where.key };
  }

  /**
   * With a shard of its own: the key a file's entry has in it (undefined: not kept), for
   * its user to keep the shard to the files it reads now (Shard.retain).
   */
  keyOf(file: string): string | undefined {
    const where = this.ownShard === undefined ? undefined : this.shardNameOf(path.resolve(file));
    return where === undefined ? undefined : `${where.name}/${where.key}`;
  }

  /**
   * How many bytes a scan of this file would read now: none while its kept state is of
   * the file as it is, the bytes appended since where it grew, else all of it.
   */
  unreadBytes<S>(file: string, scan: LineScan<S>): number {
    if (memoOf(this.scanMemo, scan.id).has(file)) return 0;
    const stamp = this.statOf(file);
    if (stamp === undefined) return 0;
    const place = this.place(file);
    const kept = keptScan(place === undefined ? undefined : entryOf(place).x?.[scan.id]);
    if (this.unchangedSinceRead(file, kept)) return 0;
    return kept !== undefined && kept.s.ino === stamp.ino && kept.e <= stamp.size ? stamp.size - kept.e : stamp.size;
  }

  /** The name of a transcript's shard (its project folder) and its key there, without reading the shard. */
  private shardNameOf(file: string): { name: string; key: string } | undefined {
    const root = this.projectsRoot + path.sep;
    if (!file.startsWith(root)) return undefined;
    const slash = file.indexOf(path.sep, root.length);
    if (slash <= root.length || file.includes(`${path.sep}..`, root.length) || file.includes(`${path.sep}.${path.sep}`, root.length))
      return undefined;
    const key = file.slice(slash + 1);
    return { name: file.slice(root.length, slash), key: path.sep === '/' ? key : key.split(path.sep).join('/') };
  }

  /**
   * The facts of these transcripts will be asked for: where they are more than a few of one
   * project folder, that folder's shard is read rather than their heads and tails one by
   * one (a real transcript's first lines run to tens of KB: four such reads cost more than
   * a shard of 150 transcripts).
   */
  factsAhead(files: readonly string[]): void {
    const perShard = new Map<string, number>();
    for (const file of files) {
      const name = this.cache === undefined ? undefined : this.shardNameOf(file)?.name;
      if (name !== undefined) perShard.set(name, (perShard.get(name) ?? 0) + 1);
    }
    for (const [name, count] of perShard) if (count > DIRECT_FACTS) this.directFacts.set(name, DIRECT_FACTS);
  }

  /**
   * Whether to read a transcript's facts from the file rather than from its shard, which
   * this run has not read yet: a shard holds a whole project folder's transcripts (tens or
   * hundreds of KB of JSON), and the first few transcripts' heads and tails cost less to
   * read than that. A run that asks for more of the folder reads the shard.
   */
  private factsFromFile(file: string): boolean {
    const where = this.cache === undefined ? undefined : this.shardNameOf(file);
    if (where === undefined || this.cache?.loadedShard(where.name) !== undefined) return false;
    const read = this.directFacts.get(where.name) ?? 0;
    if (read >= DIRECT_FACTS) return false;
    this.directFacts.set(where.name, read + 1);
    return true;
  }
}

/** The memo of one scan (by its id), made on first use. */
function memoOf<V>(memos: Map<string, Map<string, V>>, scanId: string): Map<string, V> {
  let memo = memos.get(scanId);
  if (memo === undefined) memos.set(scanId, (memo = new Map()));
  return memo;
}

/** Transcripts of a project folder whose facts a run reads from the files before it reads the folder's shard. */
const DIRECT_FACTS = 4;

/**
 * A scan's state as kept: its JSON as text (a number, such as a start state's 0, as it
 * is). A run that only needs the digests beside the states (a year of transcripts, most
 * unchanged) then reads each state as one string rather than building it; the states it
 * uses are parsed when used.
 */
function savedState<S>(scan: LineScan<S>, state: S): unknown {
  const saved = scan.save(state);
  return typeof saved === 'object' && saved !== null ? JSON.stringify(saved) : saved;
}

function loadState<S>(scan: LineScan<S>, kept: unknown): S | undefined {
  if (typeof kept !== 'string') return scan.load(kept);
  try {
    return scan.load(JSON.parse(kept));
  } catch {
    return undefined; // not JSON: not a state this scan wrote
  }
}

interface Place {
  shard: Shard;
  key: string;
}

interface Entry {
  f?: unknown;
  x?: Record<string, unknown>;
}

function entryOf(place: Place): Entry {
  const value = place.shard.get(place.key);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  const { f, x } = value as Entry;
  return { ...(f !== undefined ? { f } : {}), ...(typeof x === 'object' && x !== null && !Array.isArray(x) ? { x } : {}) };
}

function keptFacts(value: unknown): KeptFacts | undefined {
  const f = (value as Entry | undefined)?.f as { s?: unknown; at?: unknown; v?: unknown; n?: unknown } | undefined;
  if (typeof f !== 'object' || f === null || f.n !== FACTS_VERSION) return undefined;
  const s = stampFromTuple(f.s);
  if (s === undefined || typeof f.at !== 'number' || !isFacts(f.v)) return undefined;
  return { s, at: f.at, v: f.v };
}

function keptScan(value: unknown): KeptScan | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { s, at, e, m, st } = value as Record<string, unknown>;
  const stamp = stampFromTuple(s);
  if (stamp === undefined || typeof at !== 'number' || typeof e !== 'number' || !Number.isSafeInteger(e) || e < 0 || typeof m !== 'number')
    return undefined;
  const h = (value as Record<string, unknown>).h;
  return { s: stamp, at, e, m, st, h: typeof h === 'string' ? h : undefined };
}

const FACT_STRINGS = ['sessionId', 'cwd', 'branch', 'prompt', 'lastPrompt', 'version', 'processSession', 'forkOf'] as const;
const FACT_NUMBERS = ['firstActivity', 'lastActivity', 'lastEntryAt', 'writtenAt'] as const;

function isFacts(v: unknown): v is TranscriptFacts {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return (
    FACT_STRINGS.every((k) => o[k] === undefined || typeof o[k] === 'string') &&
    FACT_NUMBERS.every((k) => o[k] === undefined || (typeof o[k] === 'number' && Number.isFinite(o[k]))) &&
    (o.ended === undefined || typeof o.ended === 'boolean') &&
    (o.opensWithClear === undefined || typeof o.opensWithClear === 'boolean') &&
    (o.firstOfProcess === undefined || typeof o.firstOfProcess === 'boolean')
  );
}

/** FNV-1a (32 bits) of the MARK_BYTES before `end`: tells a grown file from one rewritten. */
function markAt(fd: number, end: number): number {
  const start = Math.max(0, end - MARK_BYTES);
  const buffer = Buffer.allocUnsafe(end - start);
  let filled = 0;
  while (filled < buffer.length) {
    const n = fs.readSync(fd, buffer, filled, buffer.length - filled, start + filled);
    if (n <= 0) break;
    filled += n;
  }
  let h = 0x811c9dc5;
  for (let i = 0; i < filled; i++) h = Math.imul(h ^ (buffer[i] as number), 0x01000193) >>> 0;
  return filled === buffer.length ? h : -1;
}
