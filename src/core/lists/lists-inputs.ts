import fs from 'node:fs';
import path from 'node:path';
import { HIGH_WATER_MARK, tasksRoot } from '../store/paths.js';

/**
 * The stamps of every file and folder `tasks lists` works its answer out from, each under
 * its path below the config folder (`/`-separated; a folder's ends with `/`): the
 * transcripts under `projects/` (and their subagents'), the project folders, the list
 * folders under `tasks/` and their task files and high-water marks, the live-session files
 * under `sessions/`, and the team configs under `teams/`. Each stamp is a file's size,
 * modification and change times and inode (cache/file-stamp.ts): an append, a rewrite, a
 * rename over it, a copy with its old times put back, a file made or removed all change
 * the parts.
 *
 * Two sets of parts that are equal mean that nothing `lists` reads has changed between
 * them; where they differ, the paths that differ say what changed (kept-lists.ts works out
 * again only what those can change). `times`: each part's latest modification or change
 * time, for the rule that a stamp taken within a time tick of a write cannot stand for
 * what follows it.
 *
 * This looks at the files and reads none: what any answer that is to be current must do.
 */
export interface ListsInputs {
  /** `<path>\t<stamp>` (`-` where nothing is), in the order the folders list them. */
  parts: string[];
  times: number[];
}

/**
 * `folders`: the stamps of the folders alone under `projects/` and `tasks/` (every project
 * folder and list folder, not the transcripts or task files in them); `sessions/` and
 * `teams/` in full. What kept-lists.ts looks at between two full looks: a file made,
 * removed or renamed into place changes its folder's stamp; Claude Code and `tasks` write a
 * task file with a lock folder made and removed beside it, which does too; and a session's
 * transcript is written only while it runs, which makes and removes its live-session
 * file in `sessions/`.
 */
export function listsInputs(configDir: string, depth: 'files' | 'folders' = 'files'): ListsInputs {
  const parts: string[] = [];
  const times: number[] = [];
  /** One path's stamp (following links, as agents and readers do). */
  const look = (file: string, key: string): fs.Stats | undefined => {
    const stat = statOrNothing(file);
    if (stat === undefined) {
      parts.push(`${key}\t-`);
      times.push(0);
      return undefined;
    }
    parts.push(`${key}\t${stat.size}|${stat.mtimeMs}|${stat.ctimeMs}|${stat.ino}`);
    times.push(Math.max(stat.mtimeMs, stat.ctimeMs));
    return stat;
  };

  const projects = path.join(configDir, 'projects');
  if (look(projects, 'projects/')?.isDirectory()) {
    for (const project of names(projects)) {
      const folder = `${projects}${path.sep}${project}${path.sep}`;
      const key = `projects/${project}/`;
      if (!look(folder, key)?.isDirectory() || depth === 'folders') continue;
      for (const name of names(folder)) {
        if (name.endsWith('.jsonl')) look(folder + name, key + name);
        else if (SESSION_FOLDER.test(name))
          lookInto(`${folder}${name}${path.sep}subagents`, `${key}${name}/subagents/`, (n) => n.endsWith('.jsonl'));
      }
    }
  }

  const tasks = tasksRoot(configDir);
  if (look(tasks, 'tasks/')?.isDirectory()) {
    for (const list of names(tasks))
      if (depth === 'folders') look(`${tasks}${path.sep}${list}`, `tasks/${list}/`);
      else lookInto(`${tasks}${path.sep}${list}`, `tasks/${list}/`, (n) => n.endsWith('.json') || n === HIGH_WATER_MARK);
  }

  lookInto(path.join(configDir, 'sessions'), 'sessions/', () => true);

  const teams = path.join(configDir, 'teams');
  if (look(teams, 'teams/')?.isDirectory()) {
    for (const team of names(teams)) {
      if (look(path.join(teams, team), `teams/${team}/`)?.isDirectory())
        look(path.join(teams, team, 'config.json'), `teams/${team}/config.json`);
    }
  }
  return { parts, times };

  /** A folder's stamp, then the stamps of the entries in it that `wanted` names. */
  function lookInto(dir: string, key: string, wanted: (entry: string) => boolean): void {
    if (!look(dir, key)?.isDirectory()) return;
    const prefix = `${dir}${path.sep}`;
    for (const entry of names(dir)) if (wanted(entry)) look(prefix + entry, key + entry);
  }
}

/** The path of a part (what comes before its stamp). */
export function partPath(part: string): string {
  return part.slice(0, part.lastIndexOf('\t'));
}

/** A session's own folder beside its transcript (`<session>/subagents/`). */
const SESSION_FOLDER = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A path's stat, undefined when it cannot be had: missing, or a link that loops or leads
 * nowhere readable (ELOOP, ENOTDIR, EACCES). Such an entry is as good as absent to every
 * reader: one of them never fails the look at the others.
 */
function statOrNothing(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function names(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
