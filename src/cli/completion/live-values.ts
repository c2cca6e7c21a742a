import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { managedSettingsDir } from '../../core/binding/settings-files.js';
import { chooseList, listIds } from '../../core/lists/list-choice.js';
import { countTaskFiles, peekTasks } from '../../core/store/list-peek.js';
import { listDirOf, resolveConfigDir } from '../../core/store/paths.js';
import type { LineSources, ValueSource } from './candidates.js';

/**
 * Values from disk for completion, found as every command finds them: the config
 * folder from --config-dir, $CLAUDE_CONFIG_DIR or ~/.claude; the list from --list,
 * $CLAUDE_CODE_TASK_LIST_ID, the project's binding (`tasks use`), the only list, or else the most recently changed one (as a
 * read would; a change refuses to guess, but offering the ids it will then ask about
 * helps more than offering none). Never throws: what cannot be read offers nothing
 * (and, with TASKS_DEBUG=1, says why on stderr).
 */
export function liveValues(line: LineSources, env: NodeJS.ProcessEnv): ValueSource {
  const home = env.HOME || os.homedir();
  const configDir = resolveConfigDir({ flag: expandHome(line.configDir, home), env: env.CLAUDE_CONFIG_DIR, home });
  let listDir: string | null | undefined;
  const chosenList = (): string | null => {
    if (listDir === undefined) {
      try {
        listDir = chooseList(configDir, {
          flag: line.list,
          session: line.session,
          env: env.CLAUDE_CODE_TASK_LIST_ID,
          forWrite: false,
          cwd: process.cwd(),
          home,
          // A project bound with `tasks use` completes from its list, as its commands act on it.
          settings: { home, uid: process.getuid?.(), managedDir: managedSettingsDir(process.platform, env.TASKS_MANAGED_SETTINGS_DIR) },
        }).dir;
      } catch (err) {
        debug(env, err);
        listDir = null;
      }
    }
    return listDir;
  };
  return {
    tasks(wanted) {
      const dir = chosenList();
      if (dir === null) return [];
      // A list named that does not exist reads as no tasks; said only when debugging (a stat more).
      if (env.TASKS_DEBUG && !fs.existsSync(dir)) debug(env, new Error(`list folder ${dir} does not exist`));
      return peekTasks(dir, wanted);
    },
    lists() {
      try {
        return listIds(configDir).map((id) => ({ id, tasks: countTaskFiles(listDirOf(configDir, id)) }));
      } catch (err) {
        debug(env, err);
        return [];
      }
    },
  };
}

/** TASKS_DEBUG=1: why nothing is offered (the scripts discard stderr; a person debugging reads it). */
function debug(env: NodeJS.ProcessEnv, err: unknown): void {
  if (env.TASKS_DEBUG) process.stderr.write(`tasks __complete: ${err instanceof Error ? err.message : String(err)}\n`);
}

/** The shell leaves `~` unexpanded in the words it hands to completion. */
function expandHome(dir: string | undefined, home: string): string | undefined {
  if (dir === undefined) return undefined;
  if (dir === '~') return home;
  if (dir.startsWith('~/')) return path.join(home, dir.slice(2));
  return dir;
}
