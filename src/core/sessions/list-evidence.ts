import type { SeenTask } from './transcript-tasks.js';

/**
 * Which named list a session worked on, from what its transcript shows of its tasks
 * (transcript-tasks.ts) against what each list holds now. Pure.
 *
 * A task of the list agrees with the session when the list has that id under the subject
 * the session last saw; a created task agrees only if its file was written after the
 * session began (a copy of the same plan made earlier, in another list, does not). A task
 * under another subject disagrees. A task the list no longer has says nothing: lists are
 * reset, emptied and garbage-collected (docs/task-store.md section 17). The session
 * belongs to the lists that agree most, if the agreement outweighs the disagreement.
 */
export interface ListFile {
  subject: string;
  /** The task file's mtime (ms). */
  mtimeMs: number;
}

/** Slack on "written after the session began": clocks, and a first entry written after the first create. */
const SLACK_MS = 5_000;

export function scoreList(seen: readonly SeenTask[], files: ReadonlyMap<string, ListFile>, sessionStart: number | undefined): number {
  let score = 0;
  for (const task of seen) {
    const file = files.get(task.id);
    if (file === undefined) continue;
    if (file.subject !== task.subject) score--;
    else if (!task.created || sessionStart === undefined || file.mtimeMs >= sessionStart - SLACK_MS) score++;
  }
  return score;
}

/** The lists (of `lists`) a session's tasks tie it to: the best-scoring ones, when their score is positive. */
export function listsOfEvidence(
  seen: readonly SeenTask[],
  lists: ReadonlyMap<string, ReadonlyMap<string, ListFile>>,
  sessionStart: number | undefined,
): string[] {
  if (seen.length === 0) return [];
  let best = 0;
  let found: string[] = [];
  for (const [id, files] of lists) {
    const score = scoreList(seen, files, sessionStart);
    if (score > best) {
      best = score;
      found = [id];
    } else if (score === best && score > 0) found.push(id);
  }
  return found;
}
