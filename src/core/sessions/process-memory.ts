import type { Shard } from '../cache/persistent-cache.js';
import type { LiveSessionFile } from './live-sessions.js';

/**
 * The sessions each running Claude Code process was seen on, in order: the surest sign of
 * a `/clear` (docs/task-store.md section 15) is the same process, by its pid and its start
 * time (`procStart`, which a reused pid does not share), named on one session's file and
 * then on another's. A watch keeps one memory for its whole life; other commands keep it
 * between runs in the persistent cache (`kept`), so that what one run saw the next knows.
 * Only what was seen counts: nothing here is inferred.
 */
export class ProcessMemory {
  private readonly seen = new Map<string, string[]>();
  private shard: Shard | undefined | null = null;

  /** `keep`: the shard to keep it in, asked for (and so read) only when a process is noted. */
  constructor(private readonly keep?: () => Shard | undefined) {}

  private get kept(): Shard | undefined {
    if (this.shard === null) this.shard = this.keep?.();
    return this.shard;
  }

  /**
   * Note the session each running process is on now (files whose process was judged
   * running). `left`: the files processes that are gone left behind (a crash): what they
   * were seen on is kept, so that a session one of them moved on from (`/clear`) is still
   * known as cleared once it has died (session-index.ts, clearAfterDeath).
   */
  note(files: readonly LiveSessionFile[], left: readonly LiveSessionFile[] = []): void {
    // Nothing runs: nothing to note, and the kept shard need not even be read.
    if (files.length === 0) return;
    const present = new Set<string>(left.flatMap((f) => (f.procStart === undefined ? [] : [`${f.pid}:${f.procStart}`])));
    for (const f of files) {
      if (f.procStart === undefined) continue;
      const key = `${f.pid}:${f.procStart}`;
      present.add(key);
      const was = this.sessionsOf(key);
      if (was.at(-1) === f.sessionId) continue;
      // A process that went back to a session it ran (an in-app resume) moves it to the end.
      const now = [...was.filter((id) => id !== f.sessionId), f.sessionId];
      this.seen.set(key, now);
      this.kept?.set(key, now);
    }
    // Only running processes are asked about: the others' entries go.
    this.kept?.retain(present);
  }

  /** The sessions this process was seen on before `current`, oldest first. */
  before(pid: number, procStart: string | undefined, current: string): string[] {
    if (procStart === undefined) return [];
    return this.sessionsOf(`${pid}:${procStart}`).filter((id) => id !== current);
  }

  private sessionsOf(key: string): string[] {
    const mine = this.seen.get(key);
    if (mine !== undefined) return mine;
    const kept = this.kept?.get(key);
    const ids = Array.isArray(kept) ? kept.filter((id): id is string => typeof id === 'string').slice(-64) : [];
    this.seen.set(key, ids);
    return ids;
  }
}
