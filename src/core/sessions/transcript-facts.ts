import { parseObject, scanHeadOf, tailLinesOf } from './jsonl-window.js';

/**
 * What a session's transcript (`<config>/projects/<project>/<session>.jsonl`,
 * docs/task-store.md section 10) tells about it, read from its first lines and its last
 * few KB only: transcripts grow to megabytes and are appended to while a session runs.
 */
export interface TranscriptFacts {
  sessionId?: string | undefined;
  cwd?: string | undefined;
  branch?: string | undefined;
  /** The opening prompt: the first `user` entry that a person typed. */
  prompt?: string | undefined;
  /** The latest prompt, from the last `last-prompt` entry near the end. */
  lastPrompt?: string | undefined;
  version?: string | undefined;
  /** ms since the epoch: the first entry's timestamp. */
  firstActivity?: number | undefined;
  /** ms since the epoch: the newest timestamp near the end, else the file's mtime. */
  lastActivity?: number | undefined;
  /**
   * ms since the epoch: when the newest entries say they were written, never the file's
   * time: their latest timestamp, or a last `cost-state`'s `startTime` + `totalDuration`
   * where later (a session quit after a while idle; that entry has no timestamp). It moves
   * only when the session writes again (a new entry, a resume), not when the file is
   * touched (a backup tool, `touch`, an editor opening it): what names one end of a session.
   */
  lastEntryAt?: number | undefined;
  /**
   * The transcript's last entry is `cost-state`: Claude Code writes it when a session
   * ends, and when `/clear` moves the process on to a new session (checked with 2.1.328;
   * a running session has none at its end, a resumed one writes on after it). A turn cut
   * short by the exit (SIGINT to `claude -p`) may add its "[Request interrupted by user]"
   * entry after it: still the end.
   */
  ended?: boolean | undefined;
  /** The transcript file's mtime (ms): when it was last written. */
  writtenAt?: number | undefined;
  /**
   * The session its process began with, when that is another (`session_id` on its
   * entries; checked with 2.1.328 and 2.1.332): a session begun by `/clear` names the
   * process's first session on each turn's entries, so every session one process ran
   * names the same one.
   */
  processSession?: string | undefined;
  /**
   * Its latest entries name itself as its process's first session: no `/clear` began it
   * (a session `/clear` begins names the session its process began with). A fork's copies
   * of its parent's entries name the parent's process: they count for neither.
   */
  firstOfProcess?: boolean | undefined;
  /** It begins with the `/clear` command, before any prompt: the process went on from another session. */
  opensWithClear?: boolean | undefined;
  /**
   * A fork (`--resume <id> --fork-session`): the session it was forked from, as its copies
   * of that session's entries name it (`requestSessionId` of the last copied `assistant`
   * entry; docs/task-store.md section 14). Then `prompt` is the fork's own first prompt,
   * after the copies, and `lastPrompt` its own latest one: Claude Code's `last-prompt`
   * entry in a fork may still be its parent's.
   */
  forkOf?: string | undefined;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function time(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : undefined;
}

/**
 * The text a person typed, from a `user` entry's message: a string, or text blocks.
 * Tool results, meta entries and slash-command echoes are not prompts.
 */
function promptOf(entry: Record<string, unknown>): string | undefined {
  if (entry.isMeta === true) return undefined;
  const message = entry.message as { content?: unknown } | undefined;
  const content = message?.content;
  let text: string | undefined;
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    const parts = content.filter((b): b is { type: 'text'; text: string } => b?.type === 'text' && typeof b.text === 'string');
    if (parts.length > 0 && parts.length === content.length) text = parts.map((b) => b.text).join('\n');
  }
  if (text === undefined) return undefined;
  text = text.trim();
  if (text === '' || /^<(command-|local-command-)/.test(text)) return undefined;
  return text;
}

/** A `user` entry that is the `/clear` command's echo (docs/task-store.md section 15). */
function isClearCommand(entry: Record<string, unknown>): boolean {
  const content = (entry.message as { content?: unknown } | undefined)?.content;
  return typeof content === 'string' && content.trimStart().startsWith('<command-name>/clear</command-name>');
}

/**
 * Do the transcript's last lines record its end: `cost-state` last, or followed only by
 * the interrupt entries of the turn the exit cut short? Claude Code 2.1.328 on SIGINT
 * (`claude -p`, Ctrl-C) writes `cost-state`, then the aborted turn's "[Request interrupted
 * by user]" `user` entry, removes its live-session file and exits. A session resumed
 * after its end begins with a prompt, so anything else after `cost-state` is a new run.
 */
function endsWithSessionEnd(lines: readonly string[]): boolean {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] as string;
    if (line.startsWith('{"type":"cost-state"')) return true;
    if (!isInterruptEntry(line)) return false;
  }
  return false;
}

/** A `user` entry that is only Claude Code's note of a turn interrupted ("[Request interrupted by user]", "… for tool use]"). */
function isInterruptEntry(line: string): boolean {
  if (!line.includes('[Request interrupted by user')) return false;
  const entry = parseObject(line);
  const text = entry?.type === 'user' ? promptOf(entry) : undefined;
  return text !== undefined && /^\[Request interrupted by user[^\]]*\]$/.test(text);
}

/** A top-level string field of a JSON line, without parsing it (first occurrence). */
function field(line: string, name: string): string | undefined {
  const at = line.indexOf(`"${name}":"`);
  if (at === -1) return undefined;
  const from = at + name.length + 4;
  const to = line.indexOf('"', from);
  return to === -1 ? undefined : line.slice(from, to);
}

/**
 * The facts of an open transcript of `size` bytes and that mtime (its fstat's): a function
 * of those bytes. Only the opening prompt's line and `last-prompt` lines are parsed as
 * JSON; times and branches are picked out of the text (their values hold no escapes).
 */
export function factsOfOpenFile(fd: number, size: number, mtimeMs: number): TranscriptFacts {
  const facts: TranscriptFacts = {};
  /** A fork's own first prompt and its time: the first typed after the last copy of its parent's entries. */
  let own: { prompt: string; at: number | undefined } | undefined;
  /** The first `session_id` named (its first turn's): for when the tail names none. */
  let headProcess: string | undefined;
  try {
    scanHeadOf(fd, size, (line) => {
      facts.firstActivity ??= time(field(line, 'timestamp'));
      if (headProcess === undefined && line.includes('"session_id":"')) headProcess = field(line, 'session_id') || undefined;
      if (line.includes('"type":"assistant"')) {
        // Not the model's: what Claude Code writes to close a turn that was still open in the
        // copies (a fork of a session at work), before the fork's own prompt.
        if (line.includes('"model":"<synthetic>"')) return false;
        // The first entry the model wrote: a copy of another session's (a fork) or this one's own.
        const from = field(line, 'requestSessionId');
        const sessionId = field(line, 'sessionId');
        if (from === undefined || from === sessionId) return facts.prompt !== undefined || own !== undefined;
        facts.forkOf = from;
        own = undefined;
        return false;
      }
      if (!line.includes('"type":"user"')) return false;
      const entry = parseObject(line);
      if (entry?.type !== 'user') return false;
      facts.sessionId ??= str(entry.sessionId);
      // No path holds a NUL byte (every fs call given one throws): such a cwd is damage.
      if (str(entry.cwd)?.includes('\0') !== true) facts.cwd ??= str(entry.cwd);
      facts.branch ??= str(entry.gitBranch);
      facts.version ??= str(entry.version);
      facts.opensWithClear ??= entry.isMeta === true ? undefined : isClearCommand(entry);
      const prompt = promptOf(entry);
      if (prompt !== undefined && facts.forkOf !== undefined) own ??= { prompt, at: time(entry.timestamp) };
      facts.prompt ??= prompt;
      return false;
    });
  } catch {
    return facts;
  }
  if (facts.forkOf !== undefined) facts.prompt = own?.prompt;
  try {
    // The last few KB hold the latest entries; look further back only when they lack them.
    for (const bytes of [4096, 32768]) {
      const lines = tailLinesOf(fd, size, bytes);
      let tailBranch: string | undefined;
      let tailTime: number | undefined;
      let lastPrompt: string | undefined;
      let processSession: string | undefined;
      let quitAt: number | undefined;
      for (let i = lines.length - 1; i >= 0; i--) {
        const line = lines[i] as string;
        if (quitAt === undefined && tailTime === undefined && line.startsWith('{"type":"cost-state"')) quitAt = costStateEnd(line);
        if (lastPrompt === undefined && facts.forkOf === undefined && line.includes('"last-prompt"')) {
          const entry = parseObject(line);
          if (entry?.type === 'last-prompt') lastPrompt = str(entry.lastPrompt);
        }
        // A fork's own latest prompt: a typed one no older than its first (copies keep their parent's times).
        if (lastPrompt === undefined && facts.forkOf !== undefined && own !== undefined && line.includes('"type":"user"')) {
          const entry = parseObject(line);
          const at = entry?.type === 'user' ? time(entry.timestamp) : undefined;
          if (entry !== undefined && at !== undefined && own.at !== undefined && at >= own.at) lastPrompt = promptOf(entry);
        }
        tailBranch ??= field(line, 'gitBranch') || undefined;
        processSession ??= field(line, 'session_id') || undefined;
        tailTime ??= time(field(line, 'timestamp'));
        if (lastPrompt !== undefined && tailBranch !== undefined && tailTime !== undefined && processSession !== undefined) break;
      }
      facts.lastPrompt = lastPrompt ?? facts.lastPrompt ?? (facts.forkOf === undefined ? undefined : own?.prompt);
      // The branch a session is on now is the one of its latest entries.
      if (tailBranch !== undefined) facts.branch = tailBranch;
      facts.lastActivity = Math.max(tailTime ?? 0, facts.firstActivity ?? 0, mtimeMs) || undefined;
      facts.lastEntryAt = Math.max(tailTime ?? 0, quitAt ?? 0) || undefined;
      facts.writtenAt = mtimeMs;
      facts.ended = endsWithSessionEnd(lines);
      nameProcess(facts, processSession);
      if ((lastPrompt !== undefined && tailBranch !== undefined) || size <= bytes) break;
    }
    // A last entry longer than the windows (a large tool result, a turn's request): its time is within its line.
    if (facts.lastEntryAt === undefined && size > 32768) facts.lastEntryAt = newestTime(tailLinesOf(fd, size, ENTRY_WINDOW));
  } catch {
    // the head is all we have
  }
  // A turn's last entries naming its process can lie further back than the tail read (a
  // turn's request and system prompt, written after them, run to 100 KB): its first turn's did.
  if (facts.processSession === undefined && facts.firstOfProcess === undefined) nameProcess(facts, headProcess);
  return facts;
}

/** How far back the last entry's time is looked for when the usual windows hold no whole line. */
const ENTRY_WINDOW = 1024 * 1024;

/**
 * When the run a `cost-state` entry closes ended: its start and how long it lasted, as
 * Claude Code counts them (checked with 2.1.328: its exit, a few ms after its last entry
 * or later where it sat idle). Undefined where not both numbers.
 */
function costStateEnd(line: string): number | undefined {
  const entry = parseObject(line);
  const { startTime, totalDuration } = entry ?? {};
  return typeof startTime === 'number' && typeof totalDuration === 'number' && Number.isFinite(startTime + totalDuration)
    ? startTime + totalDuration
    : undefined;
}

/** The time of the newest line that has one. */
function newestTime(lines: readonly string[]): number | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const at = time(field(lines[i] as string, 'timestamp'));
    if (at !== undefined) return at;
  }
  return undefined;
}

/**
 * The process's first session, as `session_id` names it: the session itself (it began its
 * process) or another. A fork's copies of its parent's entries name the parent's process,
 * not the fork's: only its own naming itself counts.
 */
function nameProcess(facts: TranscriptFacts, named: string | undefined): void {
  if (named === undefined) return;
  if (named === facts.sessionId) facts.firstOfProcess = true;
  else if (facts.forkOf === undefined) facts.processSession = named;
}
