/**
 * Sessions: whose list is it (docs/task-store.md section 10). Claude Code keeps what
 * tells lists apart beside them: each session's transcript
 * (`<config>/projects/<project>/<id>.jsonl`: its working directory, branch, prompts,
 * times) and, while it runs, a live-session file (`<config>/sessions/<pid>.json`: pid,
 * name, busy or idle). This index joins them to the lists: a list named by a session's
 * UUID, `session-<first 8 hex>` for sessions with agent teams, or a team's list whose
 * config names the session as its lead. Everything is read lazily and in bounded pieces
 * (names and mtimes, a transcript's first lines and its tail), so a command pays only for
 * what it asks; damaged or foreign files only mean less context, never an error.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isDirectory } from '../base/is-directory.js';
import { listDirOf } from '../store/paths.js';
import { judgeProcess, type LiveSessionFile, type ProcessProbe, procProbe, readLiveSessionFiles } from './live-sessions.js';
import { projectFolderName } from './project-folders.js';
import { readTeamLeads } from './team-leads.js';
import { readTranscriptFacts, type TranscriptFacts } from './transcript-facts.js';

/** live: its process runs; ended: it exited cleanly; crashed: its live file outlived its process. */
export type SessionState = 'live' | 'ended' | 'crashed' | 'unknown';

export interface SessionInfo extends TranscriptFacts {
  sessionId: string;
  state: SessionState;
  /** The transcript file, when there is one. */
  transcript?: string | undefined;
  /** While live: busy on a turn, or idle. */
  activity?: 'busy' | 'idle' | undefined;
  pid?: number | undefined;
  /** The session's name in Claude Code (e.g. "myproj-e7"), from its live file. */
  name?: string | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function isSessionId(id: string): boolean {
  return UUID.test(id);
}

export class SessionIndex {
  private transcriptsCache: Map<string, string> | undefined;
  private liveCache: Map<string, LiveSessionFile[]> | undefined;
  private leadsCache: Map<string, string> | undefined;
  private readonly infoCache = new Map<string, SessionInfo | undefined>();

  constructor(
    readonly configDir: string,
    private readonly probe: ProcessProbe = procProbe,
  ) {}

  /** Every transcript by session id: names only, no file is opened. */
  transcripts(): Map<string, string> {
    if (this.transcriptsCache) return this.transcriptsCache;
    const found = new Map<string, string>();
    const root = path.join(this.configDir, 'projects');
    for (const project of safeReaddir(root)) {
      for (const name of safeReaddir(path.join(root, project))) {
        const id = name.endsWith('.jsonl') ? name.slice(0, -6) : '';
        if (isSessionId(id)) found.set(id, path.join(root, project, name));
      }
    }
    return (this.transcriptsCache = found);
  }

  /** Live-session files by session id. */
  private live(): Map<string, LiveSessionFile[]> {
    if (this.liveCache) return this.liveCache;
    const bySession = new Map<string, LiveSessionFile[]>();
    for (const file of readLiveSessionFiles(this.configDir))
      bySession.set(file.sessionId, [...(bySession.get(file.sessionId) ?? []), file]);
    return (this.liveCache = bySession);
  }

  /** Team list id -> the session id of its lead, from the team configs. */
  private leads(): Map<string, string> {
    return (this.leadsCache ??= readTeamLeads(this.configDir));
  }

  /** Everything known of one session, or undefined when nothing names it. */
  session(sessionId: string, transcript?: string): SessionInfo | undefined {
    if (this.infoCache.has(sessionId)) return this.infoCache.get(sessionId);
    const file = transcript ?? this.transcripts().get(sessionId);
    const lives = this.live().get(sessionId) ?? [];
    let info: SessionInfo | undefined;
    if (file !== undefined || lives.length > 0) {
      const facts = file === undefined ? {} : readTranscriptFacts(file);
      info = { ...facts, sessionId, transcript: file, state: 'ended' };
      this.applyLive(info, lives);
    }
    this.infoCache.set(sessionId, info);
    return info;
  }

  private applyLive(info: SessionInfo, lives: readonly LiveSessionFile[]): void {
    // A resumed session can leave more than one file; a running process wins.
    const judged = lives.map((live) => ({ live, verdict: judgeProcess(live, this.probe) }));
    const pick = judged.find((j) => j.verdict === 'running') ?? judged.find((j) => j.verdict === 'unknown') ?? judged[0];
    if (!pick) return;
    const { live, verdict } = pick;
    info.state = verdict === 'running' ? 'live' : verdict === 'unknown' ? 'unknown' : 'crashed';
    info.pid = live.pid;
    info.name = live.name;
    info.cwd ??= live.cwd;
    if (verdict === 'running') info.activity = live.status === 'busy' ? 'busy' : 'idle';
    const updated = Math.max(live.updatedAt ?? 0, live.startedAt ?? 0);
    if (updated > (info.lastActivity ?? 0)) info.lastActivity = updated;
    info.firstActivity ??= live.startedAt;
  }

  /** Session ids that start with `prefix` (every known session: transcripts and live files). */
  sessionsByPrefix(prefix: string): string[] {
    const ids = new Set([...this.transcripts().keys(), ...this.live().keys()]);
    return [...ids].filter((id) => id.startsWith(prefix)).sort();
  }

  /** The sessions a list belongs to: its UUID's, `session-<8 hex>`'s, or its team lead's. */
  sessionsOfList(listId: string): SessionInfo[] {
    const ids = new Set<string>();
    if (isSessionId(listId)) ids.add(listId);
    const short = /^session-([0-9a-f]{8})$/.exec(listId)?.[1];
    if (short !== undefined) for (const id of this.sessionsByPrefix(short)) ids.add(id);
    const lead = this.leads().get(listId);
    if (lead !== undefined) ids.add(lead);
    return [...ids].map((id) => this.session(id)).filter((s): s is SessionInfo => s !== undefined);
  }

  /** The lists a session works on that exist on disk, its own UUID list first. */
  listsOfSession(sessionId: string): string[] {
    const lists: string[] = [];
    const exists = (id: string) => isDirectory(listDirOf(this.configDir, id));
    if (exists(sessionId)) lists.push(sessionId);
    const teamSession = `session-${sessionId.slice(0, 8)}`;
    if (exists(teamSession)) lists.push(teamSession);
    for (const [list, lead] of this.leads()) if (lead === sessionId && !lists.includes(list) && exists(list)) lists.push(list);
    return lists;
  }

  /**
   * The sessions that ran in `dir` exactly: found by the project folder Claude Code names
   * after the directory (a lookup, not a scan), plus live sessions there that have
   * written no transcript yet. A folder name can stand for more than one directory
   * (`/a/b-c` and `/a/b/c`), so each session's own cwd is checked. `keep` filters by id
   * before any transcript is opened.
   */
  sessionsIn(dir: string, keep: (sessionId: string) => boolean = () => true): SessionInfo[] {
    const ids = new Map<string, string | undefined>();
    const folder = path.join(this.configDir, 'projects', projectFolderName(dir));
    for (const name of safeReaddir(folder)) {
      const id = name.endsWith('.jsonl') ? name.slice(0, -6) : '';
      if (isSessionId(id) && keep(id)) ids.set(id, path.join(folder, name));
    }
    for (const [id, lives] of this.live()) {
      if (lives.some((l) => l.cwd === dir) && !ids.has(id) && keep(id)) ids.set(id, undefined);
    }
    return [...ids]
      .map(([id, file]) => this.session(id, file))
      .filter((s): s is SessionInfo => s !== undefined && (s.cwd === undefined || s.cwd === dir));
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
