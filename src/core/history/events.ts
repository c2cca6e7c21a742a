import type { FieldChange } from './journal.js';

/**
 * One change to a list as history shows it (timeline.ts merges them from the journal,
 * the transcripts and the files). `tasks log --json` prints it in the output contract's
 * form (render/history-json.ts: an absent field is a missing key there, not `null`).
 */
/** Who made a change: a person (by login name), an agent (by its `--as` name, or its session), or nobody known. */
export interface Who {
  kind: 'person' | 'agent' | 'unknown';
  name: string | null;
  /** The agent's session: for changes read from a transcript, and `--as` agents that ran in one. */
  session: string | null;
}

/**
 * A field's change: `null` stands for an absent field; a missing `old` means no record
 * tells it. For `blocks` / `blockedBy` added by an agent to a task whose list of them no
 * record tells, only `added` is known.
 */
export type EventChange = FieldChange & { added?: string[] };

/**
 * Why no record explains a change: the app kept a status itself, an agent whose transcript
 * is not known, an agent killed before its transcript recorded the change (its session
 * crashed just after: crashed-author.ts), the app's own list reset (a gone task:
 * unrecorded.ts), or a hand edit.
 */
export type UnrecordedCause = 'app-status' | 'unknown-agent' | 'crashed-agent' | 'app-reset' | 'hand-edit';

/** One change, from either record or from the files. */
export interface TimelineEvent {
  at: string;
  /** The list (its id). */
  list: string;
  /** The task, or null for a change to the list's other files (the high-water mark, a lock, a temp file). */
  task: string | null;
  op: 'create' | 'update' | 'delete' | 'aside' | 'mark' | 'removed' | 'unrecorded';
  who: Who;
  /** Fields with their old and new values; an `old` is absent where no record tells it. */
  changes: Record<string, EventChange>;
  /** journal: made with tasks; transcript: an agent's; files: seen only in the files (unrecorded). */
  source: 'journal' | 'transcript' | 'files';
  /** The `tasks` command (journal only). */
  command: string | null;
  /** The `tasks` command's transaction (journal only): what `undo --txn` takes. */
  txn: string | null;
  /** For an unrecorded change: its likely cause. */
  cause?: UnrecordedCause;
}
