/**
 * Which session each running Claude Code process is on, and which sessions it ran before
 * (docs/task-store.md section 15). `/clear` keeps the process and starts a new session:
 * a new id and transcript in the same project folder, the old transcript ended with a
 * `cost-state` entry, and `sessions/<pid>.json` rewritten to the new id (seen with
 * 2.1.328). Users report builds where the file kept the old id; so the file is taken as
 * the process's session unless its transcript has ended and one newer transcript of the
 * same folder, begun since, is claimed by no other process. Pure.
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
}

export interface ProcessSession {
  pid: number;
  /** The session the process is on now. */
  sessionId: string;
  /** The session its live-session file names (differs when the file kept an old id). */
  fileSessionId: string;
  /** Sessions this process ran before the current one, oldest first. */
  replaced: string[];
}

/** Clocks, and the moments between an entry's timestamp and the file's write. */
const SLACK_MS = 5_000;

export function sessionsOfProcesses(
  running: readonly RunningProcess[],
  stampsIn: (cwd: string) => readonly TranscriptStamp[],
): ProcessSession[] {
  const claimed = new Set(running.map((p) => p.sessionId));
  return running.map((p) => {
    const same = { pid: p.pid, sessionId: p.sessionId, fileSessionId: p.sessionId, replaced: [] as string[] };
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
    const replaced = stamps
      .filter(
        (s) =>
          s.sessionId !== current &&
          s.ended &&
          (s.sessionId === p.sessionId || (!claimed.has(s.sessionId) && ours(s))) &&
          (currentStart === undefined || (s.lastActivity ?? 0) <= currentStart + SLACK_MS),
      )
      .sort((a, b) => (a.firstActivity ?? 0) - (b.firstActivity ?? 0))
      .map((s) => s.sessionId);
    return { pid: p.pid, sessionId: current, fileSessionId: p.sessionId, replaced };
  });
}
