import path from 'node:path';
import { TasksError } from '../base/errors.js';
import { type BindingTarget, bindingTarget } from './binding-target.js';
import { type BindingWrite, writeBinding } from './binding-write.js';
import { type BindingRead, firstBinding, LIST_ID_VARIABLE, readBinding } from './project-binding.js';
import { type SettingsPlaces, settingsFilesFor } from './settings-files.js';

export interface BindOutcome {
  target: BindingTarget;
  write: BindingWrite;
  /** The binding in effect here afterwards, read back as Claude Code reads it. */
  after: BindingRead;
}

/**
 * `tasks use <list>` (listId) and `tasks use --clear` (undefined): write the binding
 * where Claude Code reads it first for sessions started here (binding-target.ts). A
 * settings file read before that one (managed settings; in a linked worktree, the main
 * checkout's local file) that names another list would win over it: then nothing is
 * written and the conflict names that file.
 */
export function bindHere(cwd: string, places: SettingsPlaces, listId: string | undefined): BindOutcome {
  const target = bindingTarget(cwd, places);
  if (listId !== undefined) {
    const files = settingsFilesFor(cwd, places);
    const at = files.findIndex((f) => f.file === target.file);
    const above = firstBinding(at === -1 ? [] : files.slice(0, at)).binding;
    if (above !== undefined && above.listId !== listId) {
      throw new TasksError(
        'conflict',
        `${above.file} sets ${LIST_ID_VARIABLE} to "${above.value}", and Claude Code reads it before ${target.file}; nothing was written`,
        {
          hint:
            above.scope === 'managed'
              ? "managed settings are your administrator's"
              : `change it there, or run tasks use --clear in ${path.dirname(path.dirname(above.file))}`,
          details: { file: above.file, value: above.value, target: target.file },
        },
      );
    }
  }
  const write = writeBinding(target.file, listId);
  return { target, write, after: readBinding(cwd, places) };
}
