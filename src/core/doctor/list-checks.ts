import { TasksError } from '../base/errors.js';
import { type Finding, findProblems } from '../check/findings.js';
import { somethingAt } from '../lists/list-folders.js';
import { restoreList } from '../restore/restore-list.js';
import { restoreSources } from '../restore/restore-sources.js';
import type { SessionIndex } from '../sessions/session-index.js';
import { scanList } from '../store/list-scan.js';
import { listDirOf } from '../store/paths.js';
import { type DoctorCode, type DoctorFinding, tasksCommand } from './doctor-findings.js';

/**
 * A list's own state, as far as it keeps agents from seeing or keeping it: task files
 * they skip, locks that make their writes fail, ids past what they count, a mark an id
 * could be handed out under twice (from `tasks check`'s findings), and tasks its
 * sessions' transcripts show that are gone from it (a reset, garbage collection, a
 * removed folder: `tasks restore`).
 */
const FROM_CHECK: Partial<Record<Finding['code'], DoctorCode>> = {
  invalid_json: 'tasks_unreadable',
  invalid_task: 'tasks_unreadable',
  too_large: 'tasks_unreadable',
  not_regular_file: 'tasks_unreadable',
  unreadable_file: 'tasks_unreadable',
  id_mismatch: 'tasks_unreadable',
  stale_lock: 'lock_problem',
  future_lock: 'lock_problem',
  bad_lock: 'lock_problem',
  ids_past_limit: 'ids_past_limit',
  highwatermark_behind: 'highwatermark_problem',
  highwatermark_invalid: 'highwatermark_problem',
};

export async function listFindings(index: SessionIndex, listId: string, shown: string, now: number): Promise<DoctorFinding[]> {
  const dir = listDirOf(index.configDir, listId);
  const found: DoctorFinding[] = [];
  if (somethingAt(dir)) {
    for (const f of findProblems(scanList(dir), { now })) {
      const code = FROM_CHECK[f.code];
      if (code === undefined) continue;
      const fix =
        code === 'ids_past_limit'
          ? {
              kind: 'command' as const,
              command: `tasks use <new list> && tasks carry --from ${listId}`,
              note: 'carry its work into a new list',
            }
          : { kind: 'command' as const, command: tasksCommand(shown, 'check', '--fix') };
      found.push({ code, message: `list ${shown}: ${f.message}`, list: listId, file: f.file, fixes: [fix] });
    }
  }
  const missing = await missingTasks(index, dir, listId, shown);
  if (missing !== undefined) found.push(missing);
  return found;
}

/**
 * Tasks its sessions' transcripts show that are gone from the list, as a restore's dry
 * run finds them. A restore there that would be refused (a task needs a new id and the
 * list has none left) is said too, with the fix that works: the same transcripts
 * restored into a new list.
 */
async function missingTasks(index: SessionIndex, dir: string, listId: string, shown: string): Promise<DoctorFinding | undefined> {
  const where = somethingAt(dir) ? `are missing from list ${shown}` : `had list ${shown}, whose folder is gone`;
  const why = '(deleted with no tool call: a reset once all were completed, garbage collection, a removed folder)';
  try {
    const missing = await restoreList(index, dir, listId, { dryRun: true });
    const n = missing.created.length;
    if (n === 0) return undefined;
    return {
      code: 'tasks_missing',
      message: `${n} task${n === 1 ? '' : 's'} its sessions' transcripts show ${where} ${why}`,
      list: listId,
      fixes: [
        { kind: 'command', command: tasksCommand(shown, 'restore', '--dry-run'), note: 'what would come back' },
        { kind: 'command', command: tasksCommand(shown, 'restore') },
      ],
    };
  } catch (err) {
    if (!(err instanceof TasksError) || err.code !== 'conflict') throw err;
    const from = restoreSources(index, listId).flatMap((s) => ['--from', s.sessionId]);
    return {
      code: 'tasks_missing',
      message: `tasks its sessions' transcripts show ${where} ${why}, and a restore there is refused: ${err.message}`,
      list: listId,
      fixes: [{ kind: 'command', command: ['tasks -l <new list> restore', ...from].join(' '), note: 'into a new list' }],
    };
  }
}
