/**
 * Which session each running Claude Code process is on, and which sessions it ran before
 * (docs/task-store.md section 15). `/clear` keeps the process and starts a new session:
 * a new id and transcript in the same project folder, written at once and opening with the
 * `/clear` command; the old transcript ended with a `cost-state` entry; and
 * `sessions/<pid>.json` rewritten to the new id, same pid and `procStart` (seen with
 * 2.1.328 and 2.1.332). Users report builds where the file kept the old id; so the file is
 * taken as the process's session unless its transcript has ended and one newer transcript
 * of the same folder, begun since, is claimed by no other process.
 *
 * How each earlier session is known to be the process's (its `ClearProof`):
 * - `process`: the same process (pid and start time) was seen on it before (`seen`, from
 *   process-memory.ts): the surest;
 * - `transcripts`: what the transcripts say of each other: every session one process runs
 *   names its first on its turns' entries (`session_id`), so a session that names the
 *   process's first, or is it, was run by the same process;
 * - `times`: the process's session opens with `/clear`, but has had no turn yet to name its
 *   process, and one ended session of the folder closed as it began; or (that, or the file
 *   kept an old id) sessions of the folder begun since the process started, when no other
 *   process there was running yet to own them, and of those that did not open with
 *   `/clear` only one (a process has one first session). A run of another process there
 *   can look the same: only ever "probably" cleared.
 *
 * And when nothing was cleared: a session that opens otherwise, or that names itself as its
 * process's first, or has no transcript yet (a `/clear` writes the new one at once), began
 * its process; the sessions that ended in the folder before it are not its. Pure.
 */
export interface RunningProcess {
  pid: number;
  cwd?: string | undefined;
  /** The session its live-session file names. */
  sessionId: string;
  /** When the process started (ms; the file's `startedAt`). */
  startedAt?: number | undefined;
  /** The sessions this very process (pid and start time) was seen on before, oldest first (process-memory.ts). */
  seen?: readonly string[] | undefined;
}

/** What a transcript in the process's project folder says of its times. */
export interface TranscriptStamp {
  sessionId: string;
  firstActivity?: number | undefined;
  lastActivity?: number | undefined;
  /** Ends with `cost-state`: the session ended, or was cleared. */
  ended: boolean;
  /** The session the process that wrote it began with, when another (TranscriptFacts.processSession). */
  processSession?: string | undefined;
  /** It names itself as its process's first session (TranscriptFacts.firstOfProcess). */
  firstOfProcess?: boolean | undefined;
  /** It opens with the `/clear` command. */
  opensWithClear?: boolean | undefined;
}

/** How a session is known to have been the process's before its current one: see above. */
export type ClearProof = 'process' | 'transcripts' | 'times';

export interface ProcessSession {
  pid: number;
  /** The session the process is on now. */
  sessionId: string;
  /** The session its live-session file names (differs when the file kept an old id). */
  fileSessionId: string;
  /** Sessions this process ran before the current one, oldest first. */
  replaced: string[];
  /** How each of those is known to be its (`times`: taken from times alone, never sure). */
  proof: Record<string, ClearProof>;
}

/** Clocks, and the moments between an entry's timestamp and the file's write. */
const SLACK_MS = 5_000;

export function sessionsOfProcesses(
  running: readonly RunningProcess[],
  stampsIn: (cwd: string) => readonly TranscriptStamp[],
): ProcessSession[] {
  const claimed = new Set(running.map((p) => p.sessionId));
  const linked = linkedSessions(running, stampsIn, claimed);
  // What the transcripts or a process seen on it tie to one process no other process can own.
  for (const ids of linked.values()) for (const id of ids.keys()) claimed.add(id);
  return running.map((p) => {
    const proof: Record<string, ClearProof> = Object.create(null);
    const same = { pid: p.pid, sessionId: p.sessionId, fileSessionId: p.sessionId, replaced: [] as string[], proof };
    if (p.cwd === undefined) return same;
    const stamps = stampsIn(p.cwd);
    const started = (p.startedAt ?? 0) - SLACK_MS;
    // Another process in the same folder that was already running could own what this one finds.
    const others = running.filter((q) => q !== p && q.cwd === p.cwd);
    const ours = (s: TranscriptStamp) =>
      s.firstActivity !== undefined &&
      s.firstActivity >= started &&
      !others.some((q) => (q.startedAt ?? 0) - SLACK_MS <= (s.firstActivity as number));
    const stamp = new Map(stamps.map((s) => [s.sessionId, s]));
    let current = p.sessionId;
    const fileStamp = stamp.get(p.sessionId);
    if (fileStamp?.ended) {
      const newer = stamps
        .filter((s) => !claimed.has(s.sessionId) && ours(s) && (s.firstActivity as number) >= (fileStamp.lastActivity ?? 0) - SLACK_MS)
        .sort((a, b) => (b.firstActivity as number) - (a.firstActivity as number));
      if (newer[0] !== undefined) current = newer[0].sessionId;
    }
    const now = stamp.get(current);
    const currentStart = now?.firstActivity;
    const mine = linked.get(p.pid) ?? new Map<string, ClearProof>();
    // Times may speak only where a /clear began the current session, or the file kept an old
    // id; and never where the process was seen on sessions or the transcripts name them.
    const byTimes =
      mine.size === 0 &&
      (current !== p.sessionId || (now?.opensWithClear === true && now.processSession === undefined && now.firstOfProcess !== true));
    const byTime = stamps.filter(
      (s) =>
        byTimes &&
        s.sessionId !== current &&
        !mine.has(s.sessionId) &&
        s.ended &&
        (s.sessionId === p.sessionId || (!claimed.has(s.sessionId) && ours(s))) &&
        (currentStart === undefined || (s.lastActivity ?? 0) <= currentStart + SLACK_MS),
    );
    // Every session of an interactive process is its first or one a /clear began: of those
    // that opened otherwise, one alone can be its (the one that names itself first, else
    // the only one); the others were other processes' runs.
    const firsts = byTime.filter((s) => s.opensWithClear !== true);
    const first = firsts.find((s) => s.firstOfProcess === true) ?? (firsts.length === 1 ? firsts[0] : undefined);
    const replaced = stamps
      .filter((s) => s.sessionId !== current && (mine.has(s.sessionId) || s === first || (byTime.includes(s) && s.opensWithClear === true)))
      .sort((a, b) => (a.firstActivity ?? 0) - (b.firstActivity ?? 0))
      .map((s) => s.sessionId);
    // Seen on it, though its transcript is not (or not yet) among those read: the process's all the same.
    for (const id of mine.keys()) if (id !== current && !replaced.includes(id)) replaced.unshift(id);
    for (const id of replaced) proof[id] = mine.get(id) ?? 'times';
    return { ...same, sessionId: current, replaced };
  });
}

/**
 * The sessions each process ran before the one its file names, and how that is known (see
 * above): those the process was seen on (`process`); those that name the same first session
 * as its own, and that first session itself (`transcripts`; a fork's copies of its parent's
 * entries name nothing: transcript-facts.ts); else, back from a session that opens with
 * `/clear`, the one ended session of the folder that closed as it began, and so on while
 * that one opens with `/clear` too (`times`). Those by transcripts or times only when
 * begun since the process started, claimed by no live-session file, and wanted by one
 * process alone.
 */
function linkedSessions(
  running: readonly RunningProcess[],
  stampsIn: (cwd: string) => readonly TranscriptStamp[],
  claimed: ReadonlySet<string>,
): Map<number, Map<string, ClearProof>> {
  const wanted = new Map<number, Map<string, ClearProof>>();
  for (const p of running) {
    const found = new Map<string, ClearProof>();
    wanted.set(p.pid, found);
    if (p.cwd === undefined) continue;
    const stamps = stampsIn(p.cwd);
    const current = stamps.find((s) => s.sessionId === p.sessionId);
    if (current === undefined) continue;
    const started = (p.startedAt ?? 0) - SLACK_MS;
    const free = (s: TranscriptStamp) =>
      s.ended && !claimed.has(s.sessionId) && s.firstActivity !== undefined && s.firstActivity >= started;
    const first = current.processSession;
    if (first !== undefined) {
      // The first session itself may be older than the process: a session it resumed (--resume).
      for (const s of stamps)
        if (s !== current && (s.sessionId === first ? s.ended && !claimed.has(first) : free(s) && s.processSession === first))
          found.set(s.sessionId, 'transcripts');
      continue;
    }
    if (current.firstOfProcess === true) continue;
    const chain: string[] = [];
    for (let at = current; at.opensWithClear && at.firstActivity !== undefined; ) {
      const begun = at.firstActivity;
      const before = stamps.filter(
        (s) => s !== at && free(s) && !chain.includes(s.sessionId) && Math.abs((s.lastActivity ?? 0) - begun) <= SLACK_MS,
      );
      if (before.length !== 1) break;
      at = before[0] as TranscriptStamp;
      chain.push(at.sessionId);
    }
    for (const id of chain) found.set(id, 'times');
  }
  // A session two processes want by transcripts or times is neither's.
  const count = new Map<string, number>();
  for (const ids of wanted.values()) for (const id of ids.keys()) count.set(id, (count.get(id) ?? 0) + 1);
  for (const ids of wanted.values()) for (const id of [...ids.keys()]) if (count.get(id) !== 1) ids.delete(id);
  // What a process was seen on is its, whatever the times say. Where the transcripts show it
  // too, they are named: every reader finds them, with or without a memory of processes.
  for (const p of running)
    for (const id of p.seen ?? [])
      if (id !== p.sessionId && wanted.get(p.pid)?.get(id) !== 'transcripts') wanted.get(p.pid)?.set(id, 'process');
  return wanted;
}
