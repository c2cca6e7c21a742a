/**
 * Sessions: whose list is it (docs/task-store.md section 10). Claude Code keeps what
 * tells lists apart beside them: each session's transcript (`<config>/projects/<project>/
 * <id>.jsonl`: its working directory, branch, prompts, times) and, while it runs, a
 * live-session file (`<config>/sessions/<pid>.json`: pid, name, busy or idle). This index
 * joins them to the lists:
 *
 * - a list named by a session's UUID, `session-<first 8 hex>` for sessions with agent
 *   teams, or a team's list whose config names the session as its lead;
 * - the list a live session writes to now (live-lists.ts): the list its settings or its
 *   environment name, else its own, even before its first task makes the folder;
 * - with `deep`: a list named by CLAUDE_CODE_TASK_LIST_ID, which no file ties to a session,
 *   tied by what the session's transcript shows of the tasks it made and saw
 *   (list-evidence.ts). That reads whole transcripts: only the commands that need a named
 *   list's sessions ask for it (lists, log, release --gone, stalled and gone marks).
 *
 * Everything is read lazily and in bounded pieces, so a command pays only for what it
 * asks; damaged or foreign files only mean less context, never an error.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isDirectory } from '../base/is-directory.js';
import { minOf } from '../base/many-items.js';
import { namesIn } from '../base/names-in.js';
import type { SettingsPlaces } from '../binding/settings-files.js';
import { type FileStamp, folderStamp } from '../cache/file-stamp.js';
import type { PersistentCache } from '../cache/persistent-cache.js';
import { sanitizeListId, tasksRoot } from '../store/paths.js';
import type { ClaudeProcess } from './claude-processes.js';
import { activityOf, judgeProcess, type LiveSessionFile, type ProcessProbe, procProbe, readLiveSessionFiles } from './live-sessions.js';
import { type FolderSessions, namedFoldersShard, sessionsByDirectory } from './named-folders.js';
import { ProcessMemory } from './process-memory.js';
import { type ClearProof, type ProcessSession, sessionsOfProcesses } from './process-sessions.js';
import { namedAfterDirectory, projectFolderName } from './project-folders.js';
import { readTeamLeads, type TeamLead } from './team-leads.js';
import type { TranscriptFacts } from './transcript-facts.js';
import { sessionTranscripts } from './transcript-lines.js';
import { TranscriptStore } from './transcript-store.js';
import { TASKS_SCAN, type Todo, type TranscriptTasks, tasksOf } from './transcript-tasks.js';

/** live: it runs; ended: its last run exited cleanly; crashed: its last run's live file outlived its process; unknown: its process cannot be looked up here. */
export type SessionState = 'live' | 'ended' | 'crashed' | 'unknown';

export interface SessionInfo extends TranscriptFacts {
  sessionId: string;
  state: SessionState;
  /** The transcript file, when there is one. */
  transcript?: string | undefined;
  /**
   * While live: busy on a turn, waiting for a person (a permission prompt, a dialog), or
   * idle; undefined when only its transcript says it is live.
   */
  activity?: 'busy' | 'waiting' | 'idle' | undefined;
  /** While waiting: what for, in Claude Code's words ("permission prompt", "dialog open", ...), when it says. */
  waitingFor?: string | undefined;
  /** While live: when its live-session file's status last changed (ms), when it says. */
  statusSince?: number | undefined;
  /**
   * While idle: a command it ran in the background goes on (Claude Code's status "shell",
   * 2.1.328): its end starts a turn by itself, with no person's word.
   */
  background?: boolean | undefined;
  /**
   * How it is known to be live: a running process (with its live-session file, or without
   * one: a Claude Code process of this config folder, started there, that may be on it), or
   * a transcript still being written.
   */
  liveBy?: 'process' | 'transcript' | undefined;
  pid?: number | undefined;
  /** The session's name in Claude Code (e.g. "myproj-e7"), from its live file. */
  name?: string | undefined;
  /** Its process went on as this other session (`/clear`); see clear-proof.ts for how sure that is. */
  replacedBy?: string | undefined;
  /**
   * How that is known (process-sessions.ts): `process`, the same process was seen on it and
   * then on another; `transcripts`, the transcripts name one process; `times`, from times
   * alone, which a run of another process in the folder can look the same as.
   */
  clearProof?: ClearProof | undefined;
  /** The latest TodoWrite todos of a session that used TodoWrite and has no task list (deep reads only). */
  todos?: Todo[] | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function isSessionId(id: string): boolean {
  return UUID.test(id);
}

/**
 * How long a transcript that has not recorded its end counts as a live session's when no
 * live-session file says so (the file was removed, or the config folder was copied): 10
 * minutes, the longest a live session goes without writing its transcript while it waits
 * on one step (the default limit of a model request, and the longest a Bash tool call may
 * run), so a session inside such a step is not taken for over.
 */
export const LIVE_TRANSCRIPT_MS = 10 * 60_000;

/** The persistent cache's shard of live-session files (live-sessions.ts): a name no project folder has. */
const LIVE_SHARD = '_live';
/** The persistent cache's shard of the sessions each running process was seen on (process-memory.ts). */
const SEEN_SHARD = '_seen';

export interface SessionIndexOptions {
  probe?: ProcessProbe | undefined;
  /** Where settings are read, to know the list a live session's settings bind it to. */
  settings?: Omit<SettingsPlaces, 'configDir'> | undefined;
  now?: (() => number) | undefined;
  /**
   * Where to keep what transcripts say between runs (cache/, transcript-store.ts): a run
   * then reads only the transcripts that are new or grew. Without it, this index keeps
   * them for its own life only.
   */
  cache?: PersistentCache | undefined;
  /**
   * The project folder this run's `$CLAUDE_CODE_PROJECT_DIR_NAME` names, where it applies
   * (namedProjectFolder): the folder a session started with the same environment keeps its
   * transcript in, whatever its directory.
   */
  namedFolder?: string | undefined;
  /**
   * The sessions running processes were seen on (process-memory.ts), for an index made
   * again and again by one long-lived command (a watch). Without it, the persistent
   * cache keeps it between runs; without that, what this index sees alone.
   */
  memory?: ProcessMemory | undefined;
}

export class SessionIndex {
  private transcriptsCache: Map<string, string> | undefined;
  /** Each project folder's entries, as transcripts() read them. */
  private readonly projectEntries = new Map<string, Set<string>>();
  /** Each project folder's stamp, taken just before transcripts() listed it (undefined: none). */
  private readonly projectStamps = new Map<string, FileStamp | undefined>();
  private projectNames: string[] | undefined;
  private looks = 0;
  private liveCache: Map<string, LiveSessionFile[]> | undefined;
  private verdicts = new Map<LiveSessionFile, ReturnType<typeof judgeProcess>>();
  private leadsCache: Map<string, TeamLead> | undefined;
  private processCache: Map<number, ProcessSession> | undefined;
  private claudeCache: ClaudeProcess[] | undefined;
  private listFolders: Set<string> | undefined;
  private readonly infoCache = new Map<string, SessionInfo | undefined>();
  private readonly byDirectoryCache = new Map<string, FolderSessions>();
  readonly probe: ProcessProbe;
  readonly now: () => number;
  readonly settings: SettingsPlaces | undefined;
  readonly namedFolder: string | undefined;
  /** What each transcript says, read once per version of the file (and kept between runs with a cache). */
  readonly store: TranscriptStore;
  private readonly memory: ProcessMemory;

  constructor(
    readonly configDir: string,
    options: SessionIndexOptions | ProcessProbe = {},
  ) {
    const opts: SessionIndexOptions = 'startTime' in options ? { probe: options } : options;
    this.probe = opts.probe ?? procProbe;
    this.now = opts.now ?? Date.now;
    this.namedFolder = opts.namedFolder;
    this.settings = opts.settings === undefined ? undefined : { ...opts.settings, configDir };
    this.store = new TranscriptStore(path.join(configDir, 'projects'), opts.cache, this.now);
    this.memory = opts.memory ?? new ProcessMemory(() => opts.cache?.shard(SEEN_SHARD));
  }

  /** The project folders under `<config>/projects/`, listed once. */
  private projects(): string[] {
    this.projectNames ??= namesIn(path.join(this.configDir, 'projects'));
    return this.projectNames;
  }

  /**
   * The sessions of one of `dir`'s project folders (projectFoldersOf) that may have run in
   * `dir`, by id: in the folder named after it, every one; in another, those whose
   * transcript says `dir`, and those whose transcript names no directory yet.
   */
  sessionIdsIn(project: string, dir: string): string[] {
    const folder = path.join(this.configDir, 'projects', project);
    if (project === projectFolderName(dir))
      return namesIn(folder).flatMap((name) => (name.endsWith('.jsonl') && isSessionId(name.slice(0, -6)) ? [name.slice(0, -6)] : []));
    const found = this.byDirectory(folder);
    return [...(found.byDirectory.get(dir) ?? []), ...found.unknown];
  }

  /** The sessions of a project folder not named after a directory, by the directory each ran in (named-folders.ts), once per index. */
  private byDirectory(folder: string): FolderSessions {
    let found = this.byDirectoryCache.get(folder);
    if (found === undefined) {
      const store = this.store;
      found = sessionsByDirectory(folder, {
        shard: namedFoldersShard(store.cache),
        now: this.now(),
        facts: (file) => store.facts(file),
        factsAhead: (files) => store.factsAhead(files),
      });
      this.byDirectoryCache.set(folder, found);
    }
    return found;
  }

  /** Every transcript by session id: names only, no file is opened. */
  transcripts(): Map<string, string> {
    if (this.transcriptsCache) return this.transcriptsCache;
    const found = new Map<string, string>();
    const root = path.join(this.configDir, 'projects');
    for (const project of this.projects()) {
      const folder = `${root}${path.sep}${project}${path.sep}`;
      // Before the listing: a transcript made after it changes the folder from this stamp.
      this.projectStamps.set(project, folderStamp(folder));
      const names = namesIn(folder);
      this.projectEntries.set(project, new Set(names));
      this.store.retain(project, new Set(names));
      for (const name of names) {
        if (name.length === 42 && name.endsWith('.jsonl') && isSessionId(name.slice(0, 36))) found.set(name.slice(0, 36), folder + name);
      }
    }
    this.store.retainProjects(this.projects());
    return (this.transcriptsCache = found);
  }

  /**
   * The project folders' stamps as transcripts() listed them: a folder whose stamp is
   * still the same has the same transcripts (a transcript that grows leaves it as it was).
   */
  projectFolderStamps(): ReadonlyMap<string, FileStamp | undefined> {
    this.transcripts();
    return this.projectStamps;
  }

  /** The project folders under `<config>/projects/`, each with its stamp now (undefined: none). */
  projectFoldersNow(): Array<{ project: string; stamp: FileStamp | undefined }> {
    const root = path.join(this.configDir, 'projects');
    return this.projects().map((project) => ({ project, stamp: folderStamp(`${root}${path.sep}${project}${path.sep}`) }));
  }

  /** The transcripts of one project folder by session id (a listing of that folder alone). */
  transcriptsIn(project: string): Map<string, string> {
    const found = new Map<string, string>();
    const folder = path.join(this.configDir, 'projects', project);
    for (const name of this.projectEntries.get(project) ?? namesIn(folder)) {
      if (name.length === 42 && name.endsWith('.jsonl') && isSessionId(name.slice(0, 36)))
        found.set(name.slice(0, 36), path.join(folder, name));
    }
    return found;
  }

  /** A session this config has seen: its transcript, or its live-session file (before its first prompt). */
  knows(sessionId: string): boolean {
    if (!isSessionId(sessionId)) return false;
    return this.transcriptOf(sessionId) !== undefined || this.liveSessionFiles().some((f) => f.sessionId === sessionId);
  }

  /**
   * One session's transcript, without listing every project folder: a look for
   * `<id>.jsonl` in each (as transcripts() would find it: the last folder that has it).
   */
  transcriptOf(sessionId: string): string | undefined {
    // Looks cost a stat a project folder; past a few, one listing of them all costs less.
    if (this.transcriptsCache !== undefined || ++this.looks > 4) return this.transcripts().get(sessionId);
    if (!isSessionId(sessionId)) return undefined;
    const root = path.join(this.configDir, 'projects');
    let found: string | undefined;
    for (const project of this.projects()) {
      const file = `${root}${path.sep}${project}${path.sep}${sessionId}.jsonl`;
      if (entryAt(file)) found = file;
    }
    return found;
  }

  /**
   * A session's transcripts: its own, and its subagents' (`<session>/subagents/*.jsonl`).
   * Where transcripts() listed the project folder, one without a `<session>/` folder
   * has no subagents, and is not looked into.
   */
  sessionFiles(sessionId: string, transcript: string): Array<{ file: string; agent?: string | undefined }> {
    const entries = this.projectEntries.get(path.basename(path.dirname(transcript)));
    if (entries !== undefined && !entries.has(sessionId)) return [{ file: transcript }];
    return sessionTranscripts(transcript, sessionId);
  }

  /** A transcript's facts (transcript-facts.ts), read once per version of the file. */
  facts(file: string): TranscriptFacts {
    return this.store.facts(file);
  }

  /** What a transcript says of its tasks (transcript-tasks.ts): a grown one is read from where it was last read. */
  transcriptTasks(file: string): TranscriptTasks {
    return tasksOf(this.store.scan(file, TASKS_SCAN));
  }

  /** Keep what this index worked out for the next run (a cache that cannot be written only costs time). */
  saveCache(): void {
    this.store.save();
  }

  /** Live-session files by the session id they name. */
  private live(): Map<string, LiveSessionFile[]> {
    if (this.liveCache) return this.liveCache;
    const bySession = new Map<string, LiveSessionFile[]>();
    for (const file of readLiveSessionFiles(this.configDir, this.store.cache?.shard(LIVE_SHARD), this.now()))
      bySession.set(file.sessionId, [...(bySession.get(file.sessionId) ?? []), file]);
    return (this.liveCache = bySession);
  }

  /** Is this live file's process running (judged once per run)? */
  verdict(file: LiveSessionFile): ReturnType<typeof judgeProcess> {
    let v = this.verdicts.get(file);
    if (v === undefined) this.verdicts.set(file, (v = judgeProcess(file, this.probe)));
    return v;
  }

  /** Every readable live-session file, whether its process runs or not. */
  liveSessionFiles(): LiveSessionFile[] {
    return [...this.live().values()].flat();
  }

  /** Live-session files whose process runs. */
  runningFiles(): LiveSessionFile[] {
    return [...this.live().values()].flat().filter((f) => this.verdict(f) === 'running');
  }

  /** Live-session files whose process is gone: left behind by a crashed run (SIGKILL, out of memory, a machine switched off). */
  leftoverFiles(): LiveSessionFile[] {
    return this.liveSessionFiles().filter((f) => this.verdict(f) === 'gone');
  }

  /** Every Claude Code process of this user (claude-processes.ts), looked for once per index: a scan of /proc. */
  claudeProcesses(): ClaudeProcess[] {
    return (this.claudeCache ??= this.probe.claudeProcesses?.() ?? []);
  }

  /** Does this process use this index's config folder? */
  usesThisConfig(p: Pick<ClaudeProcess, 'configDir'>): boolean {
    if (p.configDir === undefined) return false;
    const a = path.resolve(p.configDir);
    const b = path.resolve(this.configDir);
    return a === b || realpath(a) === realpath(b);
  }

  /** Team list id -> its lead, from the team configs. */
  leads(): Map<string, TeamLead> {
    return (this.leadsCache ??= readTeamLeads(this.configDir));
  }

  /**
   * Each running process with a live-session file: the session it is on now and those it
   * ran before (process-sessions.ts), by pid. Reads only the transcripts of its project
   * folder written since it started.
   */
  processes(): Map<number, ProcessSession> {
    if (this.processCache) return this.processCache;
    const running = this.runningFiles();
    this.memory.note(running, this.leftoverFiles());
    const found = this.sessionsOfFiles(running);
    return (this.processCache = new Map(found.map((p) => [p.pid, p])));
  }

  /**
   * What processes.ts works out of these files' processes (process-sessions.ts), as if each
   * ran: the session it is on and those it ran before. Reads only the transcripts of their
   * project folders written since each started.
   */
  private sessionsOfFiles(files: readonly LiveSessionFile[]): ProcessSession[] {
    const stampsIn = (cwd: string) => {
      const since = minOf(files.filter((f) => f.cwd === cwd).map((f) => f.startedAt ?? 0)) - 60_000;
      const own = projectFolderName(cwd);
      const found = this.projectFoldersOf(cwd).flatMap((project) => {
        const folder = path.join(this.configDir, 'projects', project);
        return namesIn(folder).map((name) => ({ own: project === own, name, file: path.join(folder, name) }));
      });
      return found.flatMap(({ own, name, file }) => {
        const id = name.endsWith('.jsonl') ? name.slice(0, -6) : '';
        if (!isSessionId(id) || mtime(file) < since) return [];
        const f = this.facts(file);
        // A folder not named after the directory holds other directories' sessions too.
        if (!own && f.cwd !== cwd) return [];
        return [
          {
            sessionId: id,
            firstActivity: f.firstActivity,
            lastActivity: f.lastActivity,
            ended: f.ended === true,
            processSession: f.processSession,
            firstOfProcess: f.firstOfProcess,
            opensWithClear: f.opensWithClear,
          },
        ];
      });
    };
    return sessionsOfProcesses(
      files.map((f) => ({
        pid: f.pid,
        cwd: f.cwd,
        sessionId: f.sessionId,
        startedAt: f.startedAt,
        seen: this.memory.before(f.pid, f.procStart, f.sessionId),
      })),
      stampsIn,
    );
  }

  /**
   * The `/clear` that moved a process on from this session, where that process is gone now.
   * While a process runs, session() names the session it went on as (`replacedBy`); once it
   * has crashed (its live-session file left behind) the same evidence is judged the same way
   * (the process as it was seen, kept in process-memory.ts; the transcripts; times); once it
   * has exited, the transcripts: the session after a `/clear` opens with it and names the
   * process's first session on its turns' entries, as this one's do (or this one, when it
   * began the process). So a session that was cleared stays cleared. Asked only of a session
   * over whose end is told (gone-owners.ts): it reads the transcripts of that session's
   * folder written since it ended, which no plain read pays for.
   */
  clearAfterDeath(s: SessionInfo): Pick<SessionInfo, 'replacedBy' | 'clearProof'> | undefined {
    if (s.replacedBy !== undefined) return { replacedBy: s.replacedBy, clearProof: s.clearProof };
    // A `/clear` closes the old transcript with `cost-state`, as an end does.
    if (s.state !== 'ended' || s.ended !== true || s.cwd === undefined) return undefined;
    const byProcess = this.clearByDeadProcess(s, s.cwd);
    if (byProcess !== undefined && byProcess.clearProof !== 'times') return byProcess;
    return this.clearByTranscripts(s, s.cwd) ?? byProcess;
  }

  /** The session a crashed process that ran this one went on as (process-sessions.ts, as if it ran). */
  private clearByDeadProcess(s: SessionInfo, cwd: string): Pick<SessionInfo, 'replacedBy' | 'clearProof'> | undefined {
    const dead = this.liveSessionFiles().filter(
      (f) => this.verdict(f) === 'gone' && f.cwd === cwd && f.sessionId !== s.sessionId && (f.startedAt ?? 0) <= (s.lastActivity ?? 0),
    );
    if (dead.length === 0) return undefined;
    const deadPids = new Set(dead.map((f) => f.pid));
    const running = this.runningFiles().filter((f) => f.cwd === cwd);
    for (const p of this.sessionsOfFiles([...dead, ...running])) {
      if (deadPids.has(p.pid) && p.replaced.includes(s.sessionId) && !this.ranAfterClear(s, p))
        return { replacedBy: p.sessionId, clearProof: p.proof[s.sessionId] ?? 'times' };
    }
    return undefined;
  }

  /**
   * The session its process went on as, by the transcripts alone: of the folder's sessions
   * begun as this one ended, the first that opens with `/clear` and names the same first
   * session of its process.
   */
  private clearByTranscripts(s: SessionInfo, cwd: string): Pick<SessionInfo, 'replacedBy' | 'clearProof'> | undefined {
    const first = s.processSession ?? (s.firstOfProcess === true ? s.sessionId : undefined);
    const end = s.lastActivity;
    if (first === undefined || end === undefined) return undefined;
    let found: { id: string; at: number } | undefined;
    for (const project of this.projectFoldersOf(cwd)) {
      const folder = path.join(this.configDir, 'projects', project);
      for (const name of namesIn(folder)) {
        const id = name.endsWith('.jsonl') ? name.slice(0, -6) : '';
        if (!isSessionId(id) || id === s.sessionId) continue;
        const file = path.join(folder, name);
        if (mtime(file) < end - CLEAR_SLACK_MS) continue;
        const f = this.facts(file);
        const at = f.firstActivity;
        if (f.opensWithClear !== true || f.processSession !== first || (f.cwd !== undefined && f.cwd !== cwd)) continue;
        if (at === undefined || at < end - CLEAR_SLACK_MS || (found !== undefined && found.at <= at)) continue;
        found = { id, at };
      }
    }
    return found === undefined ? undefined : { replacedBy: found.id, clearProof: 'transcripts' };
  }

  /** Everything known of one session, or undefined when nothing names it. */
  session(sessionId: string, transcript?: string): SessionInfo | undefined {
    if (this.infoCache.has(sessionId)) return this.infoCache.get(sessionId);
    const file = transcript ?? this.transcriptOf(sessionId);
    const lives = this.livesOf(sessionId);
    let info: SessionInfo | undefined;
    if (file !== undefined || lives.length > 0) {
      const facts = file === undefined ? {} : this.facts(file);
      info = { ...facts, sessionId, transcript: file, state: 'ended' };
      this.applyLive(info, lives);
      if (lives.length === 0 && info.ended !== true) {
        if ((info.writtenAt ?? 0) >= this.now() - LIVE_TRANSCRIPT_MS) {
          info.state = 'live';
          info.liveBy = 'transcript';
        } else {
          // Quiet (idle at the prompt, or inside one long step) and no live-session file (removed):
          // live while a process that may be on it runs.
          const proc = this.processWithoutFile(sessionId, info);
          if (proc !== undefined) {
            info.state = 'live';
            info.liveBy = 'process';
            info.pid = proc.pid;
          }
        }
      }
      if (info.state !== 'live') {
        // Ended or crashed, and `claude --resume <id>` (or `--continue` in its folder) runs again: the session
        // goes on, before its live-session file is written (about 0.4 s) and whatever its last run left (a dead run's file, its end).
        const resuming = this.processResuming(sessionId, info);
        if (resuming !== undefined) {
          info.state = 'live';
          info.liveBy = 'process';
          info.pid = resuming.pid;
        }
      }
      for (const p of this.processes().values()) {
        if (!p.replaced.includes(sessionId)) continue;
        // Cleared there, and resumed since by another process (`claude --resume <id>`), which
        // works on its list again: live, not left behind. (A file that kept the old id after
        // the /clear names the clearing process itself: that one is still cleared.)
        if (info.state === 'live' && info.pid !== undefined && info.pid !== p.pid) continue;
        // Resumed since and ended there: its last run ended, it was not cleared.
        if (this.ranAfterClear(info, p)) continue;
        info.replacedBy = p.sessionId;
        info.clearProof = p.proof[sessionId] ?? 'times';
      }
    }
    this.infoCache.set(sessionId, info);
    return info;
  }

  /**
   * Whether a session the process cleared ran again after that (`claude --resume <id>` in
   * another process): its transcript goes on past the time its successor began, the
   * moment of the `/clear`, by more than a clock's slack.
   */
  private ranAfterClear(info: SessionInfo, p: ProcessSession): boolean {
    const at = p.replaced.indexOf(info.sessionId);
    const successor = p.replaced[at + 1] ?? p.sessionId;
    const file = this.transcriptOf(successor);
    const clearedAt = file === undefined ? undefined : this.facts(file).firstActivity;
    return clearedAt !== undefined && info.lastActivity !== undefined && info.lastActivity > clearedAt + CLEAR_SLACK_MS;
  }

  /** The sessions the process now on this session ran before it (`/clear`), oldest first. */
  replacedSessions(sessionId: string): string[] {
    for (const p of this.processes().values()) if (p.sessionId === sessionId) return [...p.replaced];
    return [];
  }

  /**
   * A running Claude Code process that may be on this session though no live-session file
   * says so: of this config folder, working in the session's folder, not on another
   * session by its own live-session file, not a helper another Claude Code process started
   * (its parent is one), and started before the session's first entry, unless it resumed
   * an earlier session (`--resume`, `--continue`) or names this one. Any such process
   * counts: while one runs, the session is not taken for over.
   */
  private processWithoutFile(sessionId: string, facts: TranscriptFacts): ClaudeProcess | undefined {
    const cwd = facts.cwd;
    if (cwd === undefined) return undefined;
    const all = this.claudeProcesses();
    if (all.length === 0) return undefined;
    const onFile = this.processes();
    const pids = new Set(all.map((p) => p.pid));
    const here = realpath(cwd);
    return all.find(
      (p) =>
        this.usesThisConfig(p) &&
        p.cwd !== undefined &&
        (p.cwd === cwd || p.cwd === here) &&
        !onFile.has(p.pid) &&
        (p.parentPid === undefined || !pids.has(p.parentPid)) &&
        (p.sessionArg === undefined ? p.resumes || startedBefore(p, facts.firstActivity) : p.sessionArg === sessionId),
    );
  }

  /**
   * A running Claude Code process of this config folder that no live-session file puts on
   * a session yet, and that may be going on with this one: its command line names it
   * (`--resume <id>`, `--session-id <id>`, not forking a new one), or it resumes without
   * naming one (`--continue`, which takes the folder's latest session, or `--resume`'s
   * picker) in the session's folder. Not a helper another Claude Code process started.
   * Until its file says which session it is on, every session it may take up counts.
   */
  private processResuming(sessionId: string, facts: TranscriptFacts): ClaudeProcess | undefined {
    const all = this.claudeProcesses();
    if (all.length === 0) return undefined;
    const onFile = this.processes();
    const pids = new Set(all.map((p) => p.pid));
    const cwd = facts.cwd;
    const here = cwd === undefined ? undefined : realpath(cwd);
    const inFolder = (p: ClaudeProcess) => p.cwd !== undefined && cwd !== undefined && (p.cwd === cwd || p.cwd === here);
    return all.find(
      (p) =>
        (p.sessionArg === sessionId || (p.sessionArg === undefined && p.resumes === true && inFolder(p))) &&
        this.usesThisConfig(p) &&
        !onFile.has(p.pid) &&
        (p.parentPid === undefined || !pids.has(p.parentPid)),
    );
  }

  /**
   * The live-session files that speak for a session: those naming it, unless their
   * process has moved on to another session (`/clear`); and the file of a process that is
   * on this session though its file kept an older id.
   */
  private livesOf(sessionId: string): LiveSessionFile[] {
    const files = this.live().get(sessionId) ?? [];
    if (files.every((f) => this.verdict(f) !== 'running')) return files;
    const processes = this.processes();
    const own = files.filter((f) => this.verdict(f) !== 'running' || processes.get(f.pid)?.sessionId === sessionId);
    for (const p of processes.values()) {
      if (p.sessionId === sessionId && p.fileSessionId !== sessionId) {
        const file = this.live()
          .get(p.fileSessionId)
          ?.find((f) => f.pid === p.pid);
        if (file !== undefined) own.push(file);
      }
    }
    return own;
  }

  private applyLive(info: SessionInfo, lives: readonly LiveSessionFile[]): void {
    // A resumed session can leave more than one file; a running process wins.
    const judged = lives.map((live) => ({ live, verdict: this.verdict(live) }));
    const pick = judged.find((j) => j.verdict === 'running') ?? judged.find((j) => j.verdict === 'unknown') ?? judged[0];
    if (!pick) return;
    const { live, verdict } = pick;
    // A session's fate is that of its last run: one killed, then resumed (`--resume` keeps the
    // id) and ended cleanly, leaves the killed run's file behind, but its transcript closes
    // (`cost-state`) after that run began. A killed run writes no `cost-state`.
    if (verdict === 'gone' && judged.every((j) => j.verdict === 'gone') && this.endedSince(info, lives)) {
      info.name = live.name;
      info.cwd ??= live.cwd;
      info.firstActivity ??= live.startedAt;
      return;
    }
    info.state = verdict === 'running' ? 'live' : verdict === 'unknown' ? 'unknown' : 'crashed';
    info.pid = live.pid;
    info.name = live.name;
    info.cwd ??= live.cwd;
    if (verdict === 'running') {
      info.liveBy = 'process';
      info.activity = activityOf(live);
      if (info.activity === 'waiting') info.waitingFor = live.waitingFor;
      info.statusSince = live.statusUpdatedAt;
      if (live.status === 'shell') info.background = true;
    }
    const updated = Math.max(live.updatedAt ?? 0, live.startedAt ?? 0);
    if (updated > (info.lastActivity ?? 0)) info.lastActivity = updated;
    info.firstActivity ??= live.startedAt;
  }

  /**
   * Did the session's transcript record its end (`cost-state` last) after every run its
   * left-over live-session files tell of began? Then a later run ended it cleanly.
   */
  private endedSince(info: SessionInfo, lives: readonly LiveSessionFile[]): boolean {
    if (info.ended !== true || info.writtenAt === undefined) return false;
    const lastRun = Math.max(...lives.map((l) => l.startedAt ?? Infinity));
    return info.writtenAt > lastRun;
  }

  /**
   * Can this session be live (or of unknown state) whatever its transcript says? Only if a
   * live-session file of a process that runs (or cannot be looked up here) names it, or a
   * running process is, or was, on it, or (given its `transcript`) a Claude Code process
   * of this config folder with no live-session file works in its project folder (see
   * processWithoutFile); otherwise it is live only while its transcript is written
   * (LIVE_TRANSCRIPT_MS).
   */
  mayBeLive(sessionId: string, transcript?: string): boolean {
    if (transcript !== undefined) {
      const folder = path.basename(path.dirname(transcript));
      const onFile = this.processes();
      for (const p of this.claudeProcesses())
        if (p.cwd !== undefined && !onFile.has(p.pid) && processFolder(p, p.cwd) === folder && this.usesThisConfig(p)) return true;
    }
    // A live-session file whose process is gone makes its session crashed, not live.
    if (
      this.live()
        .get(sessionId)
        ?.some((f) => this.verdict(f) !== 'gone')
    )
      return true;
    for (const p of this.processes().values()) if (p.sessionId === sessionId || p.replaced.includes(sessionId)) return true;
    return false;
  }

  /**
   * The sessions a process may be on, whatever their transcripts say (see mayBeLive): those
   * a live-session file names, unless its process is gone, and those a running process is
   * or was on; and the project folders where a Claude Code process of this config folder
   * runs with no live-session file (any session there may be its).
   */
  sessionsAProcessMayBeOn(): { sessions: Set<string>; folders: Set<string> } {
    const sessions = new Set<string>();
    for (const [id, files] of this.live()) if (files.some((f) => this.verdict(f) !== 'gone')) sessions.add(id);
    for (const p of this.processes().values()) {
      sessions.add(p.sessionId);
      for (const id of p.replaced) sessions.add(id);
    }
    const folders = new Set<string>();
    const onFile = this.processes();
    for (const p of this.claudeProcesses())
      if (p.cwd !== undefined && !onFile.has(p.pid) && this.usesThisConfig(p)) folders.add(processFolder(p, p.cwd));
    return { sessions, folders };
  }

  /** Every known session id: transcripts, live files, and sessions processes moved on to. */
  sessionIds(): string[] {
    const ids = new Set([...this.transcripts().keys(), ...this.live().keys()]);
    return [...ids];
  }

  /** Session ids that start with `prefix`. */
  sessionsByPrefix(prefix: string): string[] {
    return this.sessionIds()
      .filter((id) => id.startsWith(prefix))
      .sort();
  }

  /** The sessions whose own list this is: its UUID's, `session-<8 hex>`'s, or its team lead's. */
  ownersOfList(listId: string): SessionInfo[] {
    const ids = new Set<string>();
    if (isSessionId(listId)) ids.add(listId);
    const short = /^session-([0-9a-f]{8})$/.exec(listId)?.[1];
    if (short !== undefined) for (const id of this.sessionsByPrefix(short)) ids.add(id);
    const lead = this.leads().get(listId);
    if (lead !== undefined) ids.add(lead.sessionId);
    return [...ids].map((id) => this.session(id)).filter((s): s is SessionInfo => s !== undefined);
  }

  /** The lists a session works on that exist on disk, its own UUID list first. */
  listsOfSession(sessionId: string): string[] {
    const lists: string[] = [];
    const exists = (id: string) => this.listFolderExists(id);
    if (exists(sessionId)) lists.push(sessionId);
    const teamSession = `session-${sessionId.slice(0, 8)}`;
    if (exists(teamSession)) lists.push(teamSession);
    for (const [list, lead] of this.leads()) if (lead.sessionId === sessionId && !lists.includes(list) && exists(list)) lists.push(list);
    return lists;
  }

  /**
   * Is there a folder (or a symlink to one) for this list? Judged from one listing of
   * `<config>/tasks/`, taken once per index: asked of every session of a project folder,
   * a look each would cost a stat a session.
   */
  private listFolderExists(listId: string): boolean {
    if (this.listFolders === undefined) {
      const folders = new Set<string>();
      const root = tasksRoot(this.configDir);
      try {
        for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
          if (entry.isDirectory() || (entry.isSymbolicLink() && isDirectory(path.join(root, entry.name)))) folders.add(entry.name);
        }
      } catch {
        // no tasks folder yet: no list
      }
      this.listFolders = folders;
    }
    return this.listFolders.has(sanitizeListId(listId));
  }

  /**
   * The project folders that may hold transcripts of sessions that ran in `dir`: the one
   * Claude Code names after the directory, then the one this run's
   * `$CLAUDE_CODE_PROJECT_DIR_NAME` names, then every folder whose name no directory
   * gives (namedAfterDirectory: named by that variable in another environment). Those
   * others hold the sessions of any directory: each transcript's own cwd says which. The
   * names under `<config>/projects/` are listed once; no folder is opened here.
   */
  projectFoldersOf(dir: string): string[] {
    const folders = [projectFolderName(dir)];
    if (this.namedFolder !== undefined && !folders.includes(this.namedFolder)) folders.push(this.namedFolder);
    for (const project of this.projects()) if (!namedAfterDirectory(project) && !folders.includes(project)) folders.push(project);
    return folders;
  }

  /**
   * The sessions that ran in `dir` exactly: found in its project folders (projectFoldersOf:
   * lookups, not a scan of every folder), plus live sessions there that have written no
   * transcript yet. A folder name can stand for more than one directory (`/a/b-c` and
   * `/a/b/c`), so each session's own cwd is checked; in a folder not named after `dir`,
   * its cwd must say `dir`. `keep` filters by id before any transcript is opened.
   */
  sessionsIn(dir: string, keep: (sessionId: string) => boolean = () => true): SessionInfo[] {
    const ids = new Map<string, string | undefined>();
    const [own, ...others] = this.projectFoldersOf(dir).map((project) => path.join(this.configDir, 'projects', project));
    for (const name of namesIn(own as string)) {
      const id = name.endsWith('.jsonl') ? name.slice(0, -6) : '';
      if (isSessionId(id) && keep(id)) ids.set(id, path.join(own as string, name));
    }
    // The other folders' sessions: only those whose transcript says they ran in this directory.
    for (const folder of others) {
      for (const id of this.byDirectory(folder).byDirectory.get(dir) ?? [])
        if (!ids.has(id) && keep(id)) ids.set(id, `${folder}${path.sep}${id}.jsonl`);
    }
    for (const [id, lives] of this.live()) {
      if (lives.some((l) => l.cwd === dir) && !ids.has(id) && keep(id)) ids.set(id, undefined);
    }
    this.store.factsAhead([...ids.values()].filter((file): file is string => file !== undefined));
    return [...ids]
      .map(([id, file]) => this.session(id, file))
      .filter((s): s is SessionInfo => s !== undefined && (s.cwd === undefined || s.cwd === dir));
  }
}

/** The project folder a Claude Code process keeps its transcripts in: named by its environment, else after its directory. */
function processFolder(p: Pick<ClaudeProcess, 'projectFolder'>, cwd: string): string {
  return p.projectFolder ?? projectFolderName(cwd);
}

/** Slack between a session's last entry and the first of the session a `/clear` began (clocks, the moments between an entry and its write). */
const CLEAR_SLACK_MS = 5_000;

/** Slack between a process's start (in clock ticks, the boot time in whole seconds) and its session's first entry. */
const START_SLACK_MS = 5_000;

function startedBefore(p: ClaudeProcess, firstActivity: number | undefined): boolean {
  return p.startedAt === undefined || firstActivity === undefined || p.startedAt <= firstActivity + START_SLACK_MS;
}

function realpath(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

function mtime(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Whether anything is at `file`. An entry of projects/ that is no folder (a stray file, a
 * FIFO, a link loop, a folder this user cannot read) holds no transcript: its lstat fails
 * ENOTDIR, ELOOP or EACCES, and that is an answer, not an error (a watch, the board and
 * notify ask from timers).
 */
function entryAt(file: string): boolean {
  try {
    return fs.lstatSync(file, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}
