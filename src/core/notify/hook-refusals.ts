import fs from 'node:fs';

/**
 * Changes an agent's Task tools made that a TaskCreated or TaskCompleted hook refused
 * (docs/task-store.md section 7). A refusal leaves the task files as they were (a
 * refused create is deleted again, a refused completion never written), so the only
 * trace is in the session's transcript: the tool's result, whose text begins with
 * `TaskCreated hook feedback:` or `TaskCompleted hook feedback:` and goes on with the
 * hook's reason (checked against 2.1.328 and 2.1.332):
 *
 *   {"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_…",
 *    "content":"TaskCompleted hook feedback:\n[./check.sh]: tests must pass first\n"}]},
 *    "toolUseResult":{"success":false,"taskId":"3",…},"timestamp":"…","sessionId":"…"}
 *
 * `notify` runs for hours: each transcript is read from where the last look stopped,
 * and a first look reads only its last part (a refusal older than that is no news).
 */
export interface HookRefusal {
  session: string;
  /** The refused call's id: names this refusal. */
  toolUseId: string;
  hook: 'TaskCreated' | 'TaskCompleted';
  /** ms since the epoch. */
  at: number;
  /** The task the refused call was about (a TaskUpdate's), when the transcript says. */
  taskId: string | undefined;
  /** A refused TaskCreate's subject, when its call was read. */
  subject: string | undefined;
  reason: string;
}

/** A first look reads this much of a transcript's end. */
const FIRST_LOOK_BYTES = 4 * 1024 * 1024;
/** One look reads at most this much new text of one transcript (a runaway file). */
const MAX_READ_BYTES = 16 * 1024 * 1024;
/** Refused calls kept per transcript (the newest). */
const KEPT = 50;

const FEEDBACK = /^(TaskCreated|TaskCompleted) hook feedback:\n?/;

interface Followed {
  offset: number;
  /** Identity of the file read: a new file under the same name starts again. */
  ino: number;
  /** A line not yet ended at the last look. */
  rest: string;
  /** TaskCreate calls' subjects by call id (for a refused create). */
  creates: Map<string, string>;
  refusals: HookRefusal[];
  /**
   * Calls that are a fork's copies of its parent's (`--resume <id> --fork-session`: its
   * transcript begins with them, each copied `assistant` entry naming the parent in
   * `requestSessionId`; docs/task-store.md section 14), by call id: a refusal among the
   * copies is the parent's, told of the parent, not a refusal of the fork's.
   */
  copied: Set<string>;
}

export class HookRefusals {
  private readonly files = new Map<string, Followed>();

  /** The refusals in `transcript` (of `session`) so far, oldest first. */
  of(session: string, transcript: string): readonly HookRefusal[] {
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(transcript, { throwIfNoEntry: false });
    } catch {
      stat = undefined;
    }
    if (stat === undefined || !stat.isFile()) return this.files.get(transcript)?.refusals ?? [];
    let f = this.files.get(transcript);
    if (f === undefined || f.ino !== stat.ino || stat.size < f.offset) {
      const from = Math.max(0, stat.size - FIRST_LOOK_BYTES);
      f = { offset: from, ino: stat.ino, rest: '', creates: new Map(), refusals: [], copied: new Set() };
      this.files.set(transcript, f);
      // A read from the middle of a line: skip to the next line.
      if (from > 0) f.rest = '\u0000';
    }
    if (stat.size > f.offset) this.readMore(session, transcript, f, Math.min(stat.size, f.offset + MAX_READ_BYTES));
    return f.refusals;
  }

  private readMore(session: string, transcript: string, f: Followed, to: number): void {
    let text: string;
    try {
      const fd = fs.openSync(transcript, 'r');
      try {
        const buf = Buffer.alloc(to - f.offset);
        const n = fs.readSync(fd, buf, 0, buf.length, f.offset);
        text = buf.subarray(0, n).toString('utf8');
        f.offset += n;
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      return;
    }
    const lines = (f.rest + text).split('\n');
    f.rest = lines.pop() ?? '';
    // The first piece of a read that began mid-line is no whole line.
    if (lines[0]?.startsWith('\u0000')) lines.shift();
    for (const line of lines) {
      if (line.includes('"type":"assistant"')) this.noteCopies(line, f);
      if (line.includes('"name":"TaskCreate"')) this.noteCreate(line, f);
      else if (line.includes(' hook feedback:')) {
        const refusal = refusalOf(line, session, f.creates);
        if (refusal !== undefined && !f.copied.has(refusal.toolUseId)) f.refusals.push(refusal);
      }
    }
    if (f.refusals.length > KEPT) f.refusals.splice(0, f.refusals.length - KEPT);
    if (f.creates.size > KEPT) for (const id of [...f.creates.keys()].slice(0, f.creates.size - KEPT)) f.creates.delete(id);
    if (f.copied.size > KEPT) for (const id of [...f.copied].slice(0, f.copied.size - KEPT)) f.copied.delete(id);
  }

  /**
   * A copied call's id is noted; a call of the session's own with the same id (ids a
   * scripted model gives again) is its own again. Parsed only where it matters: an entry
   * naming another session's request, or any call while copies are noted.
   */
  private noteCopies(line: string, f: Followed): void {
    const names = line.includes('"requestSessionId":"');
    if (!names && (f.copied.size === 0 || !line.includes('"tool_use"'))) return;
    const entry = parse(line);
    const from = entry?.requestSessionId;
    const copy = typeof from === 'string' && from !== '' && from !== entry?.sessionId;
    const content = (entry?.message as { content?: unknown } | undefined)?.content;
    if (!Array.isArray(content)) return;
    for (const block of content) {
      const b = block as { type?: unknown; id?: unknown };
      if (b.type !== 'tool_use' || typeof b.id !== 'string') continue;
      if (copy) f.copied.add(b.id);
      else f.copied.delete(b.id);
    }
  }

  private noteCreate(line: string, f: Followed): void {
    const entry = parse(line);
    const content = (entry?.message as { content?: unknown } | undefined)?.content;
    if (!Array.isArray(content)) return;
    for (const block of content) {
      const b = block as { type?: unknown; name?: unknown; id?: unknown; input?: { subject?: unknown } };
      if (b.type === 'tool_use' && b.name === 'TaskCreate' && typeof b.id === 'string' && typeof b.input?.subject === 'string') {
        f.creates.set(b.id, b.input.subject);
      }
    }
  }
}

function parse(line: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(line) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The text of a tool result's content: a string, or text blocks. */
function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.flatMap((c) =>
    typeof c === 'object' && c !== null && typeof (c as { text?: unknown }).text === 'string' ? [(c as { text: string }).text] : [],
  );
  return texts.length === 0 ? undefined : texts.join('\n');
}

function refusalOf(line: string, session: string, creates: ReadonlyMap<string, string>): HookRefusal | undefined {
  const entry = parse(line);
  if (entry === undefined || entry.type !== 'user') return undefined;
  const content = (entry.message as { content?: unknown } | undefined)?.content;
  if (!Array.isArray(content)) return undefined;
  for (const block of content) {
    const b = block as { type?: unknown; tool_use_id?: unknown; content?: unknown };
    if (b.type !== 'tool_result' || typeof b.tool_use_id !== 'string') continue;
    const text = textOf(b.content);
    const m = text === undefined ? null : FEEDBACK.exec(text);
    if (m === null || text === undefined) continue;
    const at = Date.parse(String(entry.timestamp));
    if (!Number.isFinite(at)) return undefined;
    const result = entry.toolUseResult as { taskId?: unknown } | undefined;
    const taskId = typeof result === 'object' && result !== null && typeof result.taskId === 'string' ? result.taskId : undefined;
    return {
      session: typeof entry.sessionId === 'string' ? entry.sessionId : session,
      toolUseId: b.tool_use_id,
      hook: m[1] as HookRefusal['hook'],
      at,
      taskId,
      subject: creates.get(b.tool_use_id),
      reason: reasonOf(text.slice(m[0].length)),
    };
  }
  return undefined;
}

/** The hook's words: one line, without the `[command]: ` Claude Code puts before a failing command's stderr. */
function reasonOf(text: string): string {
  const words = text
    .replace(/^\[[^\n]*?\]: /, '')
    .replace(/\s+/g, ' ')
    .trim();
  const shown = words === '' ? '(no reason given)' : words;
  return shown.length > 200 ? `${shown.slice(0, 199)}…` : shown;
}
