import fs from 'node:fs';
import path from 'node:path';
import { tasksRoot } from './paths.js';

/**
 * List names under `<config>/tasks/` that reach a folder another of these names reaches
 * too (`shared -> real`, or two links to one folder elsewhere): agents follow the link,
 * so both names write the same files, and it is one list. Each such name maps to the
 * name the list goes by: the folder itself where it is one of the names, else the first
 * of the links by name. A name that is alone on its folder is not in the map. Everything
 * that counts lists (`lists`, `log --all`, the sessions tied to a list) counts it once,
 * under that name; any of the names still names it for `--list`.
 */
export function listAliases(configDir: string, names: readonly string[], entries?: readonly fs.Dirent[]): Map<string, string> {
  const aliases = new Map<string, string>();
  const root = tasksRoot(configDir);
  // The links among the names, from one listing of the folder (its entry types; `entries`
  // when the caller has read it already): no stat a list.
  let linked: Set<string>;
  try {
    const wanted = new Set(names);
    linked = new Set(
      (entries ?? fs.readdirSync(root, { withFileTypes: true })).filter((e) => e.isSymbolicLink() && wanted.has(e.name)).map((e) => e.name),
    );
  } catch {
    return aliases;
  }
  // No link, no second name: the common case costs that listing and no realpath.
  if (linked.size === 0) return aliases;
  let realRoot: string;
  try {
    realRoot = fs.realpathSync(root);
  } catch {
    return aliases;
  }
  // A folder that is no link is where its name says, below the real root: one realpath a link only.
  const real = (name: string) => {
    if (!linked.has(name)) return path.join(realRoot, name);
    try {
      return fs.realpathSync(path.join(root, name));
    } catch {
      return undefined; // dangling, a loop: a name of nothing, alone
    }
  };
  // The folder itself first, then the links to it, each group by name.
  const ordered = [...names].sort((a, b) => Number(linked.has(a)) - Number(linked.has(b)) || (a < b ? -1 : a > b ? 1 : 0));
  const first = new Map<string, string>();
  for (const name of ordered) {
    const where = real(name);
    if (where === undefined) continue;
    const owner = first.get(where);
    if (owner === undefined) first.set(where, name);
    else aliases.set(name, owner);
  }
  return aliases;
}
