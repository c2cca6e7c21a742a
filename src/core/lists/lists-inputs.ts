import fs from 'node:fs';
import path from 'node:path';
import { HIGH_WATER_MARK, tasksRoot } from '../store/paths.js';

/**
 * The stamps of every file and folder `tasks lists` works its answer out from, as one
 * text, in the order the folders list them: the transcripts under `projects/` (and
 * their subagents'), the project folders, the list folders under `tasks/` and their
 * task files and high-water marks, the live-session files under `sessions/`, and the
 * team configs under `teams/`. Each stamp is a file's size, modification and change
 * times and inode (cache/file-stamp.ts): an append, a rewrite, a rename over it, a copy
 * with its old times put back, a file made or removed in a folder all change the text.
 *
 * Two texts that are equal mean that nothing `lists` reads has changed between them
 * (a folder listed in another order only gives a text that differs: a fresh answer,
 * never a wrong one). `newest`: the latest modification or change time seen, for the
 * rule that a stamp taken within a time tick of a write cannot stand for what follows it.
 *
 * This looks at the files and reads none: what any answer that is to be current must do.
 */
export interface ListsInputs {
  text: string;
  newest: number;
}

export function listsInputs(configDir: string): ListsInputs {
  const out: string[] = [];
  let newest = 0;
  /**
   * One path's stamp (following links, as agents and readers do); `-` where nothing is.
   * Files are not named: their folder's stamp, taken first, changes when an entry is
   * made, removed or renamed in it, so the same folder stamp lists the same names.
   */
  const look = (file: string, name: string): fs.Stats | undefined => {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (stat === undefined) {
      out.push(`${name}-;`);
      return undefined;
    }
    out.push(`${name}${stat.size}|${stat.mtimeMs}|${stat.ctimeMs}|${stat.ino};`);
    if (stat.mtimeMs > newest) newest = stat.mtimeMs;
    if (stat.ctimeMs > newest) newest = stat.ctimeMs;
    return stat;
  };

  const projects = path.join(configDir, 'projects');
  out.push('P;');
  if (look(projects, '')?.isDirectory()) {
    for (const project of names(projects)) {
      const folder = `${projects}${path.sep}${project}${path.sep}`;
      out.push(`p ${project}|`);
      if (!look(folder, '')?.isDirectory()) continue;
      for (const name of names(folder)) {
        if (name.endsWith('.jsonl')) look(folder + name, '');
        else if (SESSION_FOLDER.test(name)) lookInto(`${folder}${name}${path.sep}subagents`, `${name}/s|`, (n) => n.endsWith('.jsonl'));
      }
    }
  }

  const tasks = tasksRoot(configDir);
  out.push('T;');
  if (look(tasks, '')?.isDirectory()) {
    for (const list of names(tasks)) {
      out.push(`l ${list}|`);
      lookInto(`${tasks}${path.sep}${list}`, '', (n) => n.endsWith('.json') || n === HIGH_WATER_MARK);
    }
  }

  out.push('S;');
  lookInto(path.join(configDir, 'sessions'), '', () => true);

  const teams = path.join(configDir, 'teams');
  out.push('M;');
  if (look(teams, '')?.isDirectory()) {
    for (const team of names(teams)) {
      out.push(`m ${team}|`);
      if (look(path.join(teams, team), '')?.isDirectory()) look(path.join(teams, team, 'config.json'), '');
    }
  }
  return { text: out.join(''), newest };

  /** A folder's stamp, then the stamps of the entries in it that `wanted` names. */
  function lookInto(dir: string, name: string, wanted: (entry: string) => boolean): void {
    if (!look(dir, name)?.isDirectory()) return;
    const prefix = `${dir}${path.sep}`;
    for (const entry of names(dir)) if (wanted(entry)) look(prefix + entry, '');
  }
}

/** A session's own folder beside its transcript (`<session>/subagents/`). */
const SESSION_FOLDER = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function names(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
