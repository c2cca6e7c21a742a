import fs from 'node:fs';
import path from 'node:path';
import { readBoundedText, SETTINGS_MAX_BYTES } from '../base/bounded-read.js';
import { errnoCode, TasksError } from '../base/errors.js';
import { makeDirs } from '../base/make-dirs.js';
import { LIST_ID_VARIABLE } from './project-binding.js';
import { editEnv } from './settings-edit.js';

export interface BindingWrite {
  file: string;
  /** False when the file already said so: nothing was written. */
  changed: boolean;
  /** The file did not exist before. */
  created: boolean;
  /** What the variable held before (undefined: absent). */
  previous: unknown;
}

/** Attempts at a write that another process's change to the same file interrupts. */
const ATTEMPTS = 5;

/**
 * Set (`listId`) or remove (undefined) `env.CLAUDE_CODE_TASK_LIST_ID` in a local settings
 * file, merging into whatever else it holds (settings-edit.ts). Atomic: the new text goes
 * into a temporary file beside it, which is renamed over it, so Claude Code reads either
 * the old file or the new one. Claude Code writes this file too (permissions it is
 * allowed, for one): if the file changes between our read and the rename, we read again.
 * A file that is not valid JSON, a symlink, not a regular file, read-only, or over the 2
 * MiB Claude Code reads of a settings file (it skips the whole file: a binding there
 * would never be read) is left as it is (usage error); so is one the binding would take
 * over that size, and one whose `.claude` folder is a symbolic link that leads out of
 * the project or nowhere; a file already saying so is not written at all.
 */
export function writeBinding(file: string, listId: string | undefined): BindingWrite {
  for (let attempt = 1; ; attempt++) {
    const before = statRegular(file);
    const text = before === undefined ? undefined : readText(file);
    const edit = editEnv(text, file, LIST_ID_VARIABLE, listId);
    const result = { file, changed: edit.changed, created: before === undefined, previous: edit.previous };
    if (!edit.changed) return result;
    refuseLinkOutside(file);
    if (before !== undefined && (before.mode & 0o200) === 0) {
      throw new TasksError('usage', `${file} is read-only; tasks leaves it as it is`, {
        hint: `make it writable (chmod u+w) to bind here, or edit it by hand`,
      });
    }
    const size = Buffer.byteLength(edit.text);
    if (size > SETTINGS_MAX_BYTES) {
      throw new TasksError(
        'usage',
        `${file} would be ${size} bytes, over the ${SETTINGS_MAX_BYTES} Claude Code reads of a settings file (it skips a larger one whole); tasks leaves it as it is`,
        { hint: 'make the file smaller, then run the command again' },
      );
    }
    if (before === undefined) ensureFolder(path.dirname(file));
    const temp = path.join(path.dirname(file), `.${path.basename(file)}.tasks-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
    try {
      fs.writeFileSync(temp, edit.text, { flag: 'wx', mode: before?.mode ?? 0o644 });
      if (before !== undefined) fs.chmodSync(temp, before.mode & 0o7777);
      const now = statRegular(file);
      if (!sameFile(before, now)) {
        fs.rmSync(temp, { force: true });
        if (attempt < ATTEMPTS) continue;
        throw new TasksError('busy', `${file} keeps changing while tasks writes it; nothing was written`, { hint: 'try again' });
      }
      fs.renameSync(temp, file);
      return result;
    } catch (err) {
      fs.rmSync(temp, { force: true });
      if (err instanceof TasksError) throw err;
      throw new TasksError('io', `cannot write ${file}: ${(err as Error).message}`, { cause: err });
    }
  }
}

/** The file's stat, or undefined when there is none; refuses anything but a regular file. */
function statRegular(file: string): fs.Stats | undefined {
  let stat: fs.Stats | undefined;
  try {
    stat = fs.lstatSync(file);
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOENT') return undefined;
    // Something on the way is not a folder: `.claude` a file, say.
    if (code === 'ENOTDIR') throw notAFolderOnTheWay(file);
    // `.claude` a symbolic link that leads round in a loop: said as any link that leads nowhere.
    if (code === 'ELOOP') refuseLinkOutside(file);
    throw new TasksError('io', `cannot read ${file}: ${(err as Error).message}`);
  }
  if (stat.isSymbolicLink()) {
    throw new TasksError('usage', `${file} is a symbolic link; tasks does not write through it`, {
      hint: 'edit the file it points to by hand',
    });
  }
  if (!stat.isFile()) throw new TasksError('usage', `${file} is not a regular file; tasks leaves it as it is`);
  return stat;
}

function readText(file: string): string {
  try {
    return readBoundedText(file, SETTINGS_MAX_BYTES);
  } catch (err) {
    if (errnoCode(err) === 'EFBIG') {
      throw new TasksError(
        'usage',
        `${file} is over ${SETTINGS_MAX_BYTES} bytes, the most Claude Code reads of a settings file (it skips a larger one whole); tasks leaves it as it is`,
        { hint: 'make the file smaller, then run the command again' },
      );
    }
    throw new TasksError('io', `cannot read ${file}: ${(err as Error).message}`);
  }
}

/**
 * `file` is `<project>/.claude/settings.local.json`. A `.claude` that is a symbolic link
 * is written through only when it leads to a folder inside the project: a link out of
 * it (another project's settings, a folder of the system) or to nothing is refused,
 * saying where it leads.
 */
function refuseLinkOutside(file: string): void {
  const claude = path.dirname(file);
  const project = path.dirname(claude);
  if (!fs.lstatSync(claude, { throwIfNoEntry: false })?.isSymbolicLink()) return;
  const hint = 'make .claude a folder of the project, or edit the settings it leads to by hand';
  let real: string;
  try {
    real = fs.realpathSync(claude);
  } catch (err) {
    const to = fs.readlinkSync(claude);
    const why =
      errnoCode(err) === 'ENOENT' ? 'which does not exist' : `which cannot be followed (${errnoCode(err) ?? (err as Error).message})`;
    throw new TasksError('usage', `${claude} is a symbolic link to ${to}, ${why}; tasks does not write through it`, { hint });
  }
  const root = fs.realpathSync(project);
  if (real !== root && !real.startsWith(root + path.sep)) {
    throw new TasksError('usage', `${claude} is a symbolic link to ${real}, outside ${project}; tasks does not write through it`, {
      hint,
    });
  }
}

/** The first folder on the way to `file` that is something else. */
function notAFolderOnTheWay(file: string): TasksError {
  let dir = path.dirname(file);
  for (let up = path.dirname(dir); up !== dir; dir = up, up = path.dirname(dir)) {
    const stat = fs.lstatSync(up, { throwIfNoEntry: false });
    if (stat?.isDirectory()) break;
  }
  return new TasksError('usage', `${dir} is not a folder, so tasks cannot keep settings in it; tasks leaves it as it is`, {
    hint: 'move it out of the way, then run the command again',
  });
}

function ensureFolder(dir: string): void {
  try {
    makeDirs(dir);
  } catch (err) {
    throw new TasksError('io', `cannot create ${dir}: ${(err as Error).message}`);
  }
}

function sameFile(a: fs.Stats | undefined, b: fs.Stats | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}
