import fs from 'node:fs';
import path from 'node:path';
import { TasksError } from '../base/errors.js';
import { expandHome } from '../store/paths.js';
import { writeFileAtomic } from '../store/task-file.js';

/**
 * `--output <file>` as given: a leading `~` is the home folder; then checked
 * (checkOutputPath), and never inside the config folder's `tasks/`: a file written there
 * is a task file to the agents (or replaces one, without their lock or the journal).
 */
export function outputPath(file: string, home: string, cwd: string | undefined, configDir: string): string {
  if (file.trim() === '') throw new TasksError('usage', 'the output file name is empty');
  const target = checkOutputPath(expandHome(file, home), cwd);
  const tasksRoot = realOrSelf(path.join(configDir, 'tasks'));
  const folder = realOrSelf(path.dirname(target));
  // The lists' folders as the agents reach them: a list folder may be a link to elsewhere.
  const listFolders = [tasksRoot, ...linkedLists(path.join(configDir, 'tasks'))];
  if (listFolders.some((dir) => folder === dir || folder.startsWith(dir + path.sep))) {
    throw new TasksError('usage', `cannot write ${file}: it is inside ${tasksRoot}, where the agents read every file as a task`);
  }
  return target;
}

/** The real folders of the lists under `root` that are symbolic links. */
function linkedLists(root: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(root, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.filter((e) => e.isSymbolicLink()).map((e) => realOrSelf(path.join(root, e.name)));
}

function realOrSelf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** Write a command's output to the file it was given, replacing it atomically. */
export function writeOutput(file: string, text: string): void {
  writeFileAtomic(file, text);
}

/**
 * Check a path given to write output to (`export -o`), before any work: its folder must
 * exist and be writable, and the path must not be a folder. A bad path is a bad flag
 * value (exit 2), said in one line. A relative `file` is taken from `cwd` when given.
 */
export function checkOutputPath(file: string, cwd?: string): string {
  const target = cwd === undefined ? path.resolve(file) : path.resolve(cwd, file);
  const dir = path.dirname(target);
  let dirStat: fs.Stats;
  try {
    dirStat = fs.statSync(dir);
  } catch {
    throw new TasksError('usage', `cannot write ${file}: its folder ${dir} does not exist`);
  }
  if (!dirStat.isDirectory()) throw new TasksError('usage', `cannot write ${file}: ${dir} is not a folder`);
  try {
    fs.accessSync(dir, fs.constants.W_OK);
  } catch {
    throw new TasksError('usage', `cannot write ${file}: permission denied in ${dir}`);
  }
  let stat: fs.Stats | undefined;
  try {
    stat = fs.lstatSync(target);
  } catch {
    stat = undefined;
  }
  if (stat?.isDirectory()) throw new TasksError('usage', `cannot write ${file}: it is a folder`);
  // Replacing a link by rename would cut it; writing through it could land anywhere.
  if (stat?.isSymbolicLink()) throw new TasksError('usage', `cannot write ${file}: it is a symbolic link; give its target instead`);
  if (stat && !stat.isFile()) throw new TasksError('usage', `cannot write ${file}: not a regular file`);
  return target;
}
