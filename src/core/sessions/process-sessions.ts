/**
 * Which session each running Claude Code process is on, and which sessions it ran before
 * (docs/task-store.md section 15). `/clear` keeps the process and starts a new session:
 * a new id and transcript in the same project folder, the old transcript ended with a
 * `cost-state` entry, and `sessions/<pid>.json` rewritten to the new id (seen with
 * 2.1.328). Users report builds where the file kept the old id; so the file is taken as
 * the process's session unless its transcript has ended and one newer transcript of the
 * same folder, begun since, is claimed by no other process.
 *
 * The sessions a process ran before are known first by what the transcripts say of each
 * other, which holds however many sessions are live in the folder: every session the
 * process ran names its first one on its turns' entries (`session_id`), and a session
 * begun by `/clear` opens with that command at the moment its predecessor closed.
 * Failing that, by times: a session of the folder begun since the process started, when
 * no other process there was running yet to own it. Pure.
 */
export interface RunningProcess {
  pid: number;
  cwd?: string | undefined;
  /** The session its live-session file names. */
  sessionId: string;
  /** When the process started (ms; the file's `startedAt`). */
  startedAt?: number | undefined;
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
  /** It opens with the `/clear` command. */
  opensWithClear?: boolean | undefined;
}

export interface ProcessSession {
  pid: number;
  /** The session the process is on now. */
  sessionId: string;
  /** The session its live-session file names (differs when the file kept an old id). */
  fileSessionId: string;
  /** Sessions this process ran before the current one, oldest first. */
  replaced: string[];
  /**
   * Of those, the ones the transcripts tie to it (the same first session named, or a
   * `/clear` that opens the session after it): the others are taken for its by times alone.
   */
  shown: string[];
}

/** Clocks, and the moments between an entry's timestamp and the file's write. */
const SLACK_MS = 5_000;

export function sessionsOfProcesses(
  running: readonly RunningProcess[],
  stampsIn: (cwd: string) => readonly TranscriptStamp[],
): ProcessSession[] {
  const claimed = new Set(running.map((p) => p.sessionId));
  const linked = linkedSessions(running, stampsIn, claimed);
  // What the transcripts tie to one process no other process can own.
  for (const ids of linked.values()) for (const id of ids) claimed.add(id);
  return running.map((p) => {
    const same = { pid: p.pid, sessionId: p.sessionId, fileSessionId: p.sessionId, replaced: [] as string[], shown: [] as string[] };
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
    const currentStart = stamp.get(current)?.firstActivity;
    const mine = new Set(linked.get(p.pid) ?? []);
    const replaced = stamps
      .filter(
        (s) =>
          s.sessionId !== current &&
          (mine.has(s.sessionId) ||
            (s.ended &&
              (s.sessionId === p.sessionId || (!claimed.has(s.sessionId) && ours(s))) &&
              (currentStart === undefined || (s.lastActivity ?? 0) <= currentStart + SLACK_MS))),
      )
      .sort((a, b) => (a.firstActivity ?? 0) - (b.firstActivity ?? 0))
      .map((s) => s.sessionId);
    return { pid: p.pid, sessionId: current, fileSessionId: p.sessionId, replaced, shown: replaced.filter((id) => mine.has(id)) };
  });
}

/**
 * The sessions each process ran before the one its file names, by what the transcripts
 * say (see above): those that name the same first session, that first session itself;
 * else, back from a session that opens with `/clear`, the one ended session of the folder
 * that closed as it began (and so on while that one opens with `/clear` too). Only
 * sessions begun since the process started, claimed by no live-session file, and wanted
 * by one process alone.
 */
function linkedSessions(
  running: readonly RunningProcess[],
  stampsIn: (cwd: string) => readonly TranscriptStamp[],
  claimed: ReadonlySet<string>,
): Map<number, string[]> {
  const wanted = new Map<number, string[]>();
  for (const p of running) {
    if (p.cwd === undefined) continue;
    const stamps = stampsIn(p.cwd);
    const current = stamps.find((s) => s.sessionId === p.sessionId);
    if (current === undefined) continue;
    const started = (p.startedAt ?? 0) - SLACK_MS;
    const free = (s: TranscriptStamp) =>
      s.ended && !claimed.has(s.sessionId) && s.firstActivity !== undefined && s.firstActivity >= started;
    const first = current.processSession;
    if (first !== undefined) {
      wanted.set(
        p.pid,
        stamps.filter((s) => s !== current && free(s) && (s.sessionId === first || s.processSession === first)).map((s) => s.sessionId),
      );
      continue;
    }
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
    wanted.set(p.pid, chain);
  }
  // A session two processes want is neither's.
  const count = new Map<string, number>();
  for (const ids of wanted.values()) for (const id of ids) count.set(id, (count.get(id) ?? 0) + 1);
  for (const [pid, ids] of wanted)
    wanted.set(
      pid,
      ids.filter((id) => count.get(id) === 1),
    );
  return wanted;
}
