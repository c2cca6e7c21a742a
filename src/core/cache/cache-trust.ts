import fs from 'node:fs';
import path from 'node:path';

/**
 * Whether a cache folder may be used, checked as ssh checks its own files: what the
 * cache reads back decides what tasks shows (a session's project, its prompt, which
 * lists are whose), so it must be what this user wrote, and nobody else can have
 * written there. A shared `$XDG_CACHE_HOME`, a folder made there first by another user,
 * or one left writable to others, is refused: the run then keeps what it works out in
 * memory only, and says why once.
 *
 * The owner's folder (`<root>/<name>-<hash>`) and the root (`$XDG_CACHE_HOME/tasks`)
 * must, where they exist, be folders (a symbolic link of the user's own is followed)
 * that belong to the user and that neither group nor others can write; the folder that
 * holds the root may belong to the user or to root, and be writable by others only
 * with the sticky bit (as /tmp is: nobody else can remove or rename what the user made
 * in it). Each shard is checked again when it is read (`shardTrusted`). Where there
 * are no uids (Windows), nothing is checked.
 */
export function untrustedCacheReason(ownerDir: string, uid: number | undefined): string | undefined {
  if (uid === undefined) return undefined;
  const root = path.dirname(ownerDir);
  const holder = path.dirname(root);
  const above = statOrUndefined(holder, fs.statSync);
  if (above === undefined) return undefined; // nothing made yet: it will be made private
  if (above.uid !== uid && above.uid !== 0) return `${holder} belongs to another user (uid ${above.uid})`;
  if ((above.mode & 0o022) !== 0 && (above.mode & 0o1000) === 0)
    return `${holder} can be written by others (mode ${mode(above)}) without the sticky bit`;
  for (const dir of [root, ownerDir]) {
    const link = statOrUndefined(dir, fs.lstatSync);
    if (link === undefined) return undefined; // made private when the cache is first saved
    const why = folderProblem(dir, link, uid);
    if (why !== undefined) return why;
  }
  return undefined;
}

/** What is wrong with a folder the cache keeps its files in (`link`: its lstat), if anything. */
function folderProblem(dir: string, link: fs.Stats, uid: number): string | undefined {
  if (link.uid !== uid) return `${dir} belongs to another user (uid ${link.uid})`;
  const stat = link.isSymbolicLink() ? statOrUndefined(dir, fs.statSync) : link;
  if (stat === undefined || !stat.isDirectory()) return `${dir} is not a folder`;
  if (stat.uid !== uid) return `${dir} leads to a folder of another user (uid ${stat.uid})`;
  if ((stat.mode & 0o022) !== 0) return `${dir} can be written by others (mode ${mode(stat)})`;
  return undefined;
}

/** A shard file as opened: the user's own, and not writable by others (else it is not read). */
export function shardTrusted(stat: fs.Stats, uid: number | undefined): boolean {
  return uid === undefined || (stat.uid === uid && (stat.mode & 0o022) === 0);
}

function statOrUndefined(file: string, how: (f: string) => fs.Stats): fs.Stats | undefined {
  try {
    return how(file);
  } catch {
    return undefined;
  }
}

function mode(stat: fs.Stats): string {
  return `0${(stat.mode & 0o7777).toString(8)}`;
}
