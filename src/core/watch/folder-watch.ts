import fs from 'node:fs';
import path from 'node:path';
import { isDirectory } from '../base/is-directory.js';
import { isTaskHint } from './watch-hints.js';

/**
 * One fs.watch, kept on a list folder, or on its nearest existing ancestor while the
 * folder is missing; its events become hints (a rescan is due), never facts. The caller
 * tells it after each scan what the folder is (`sync`); a folder with a new inode was
 * removed and made again, and an inotify watch on the old one has gone silent.
 */
export class FolderWatch {
  private readonly dir: string;
  private watcher: fs.FSWatcher | undefined;
  /** `dir:<inode>` or `ancestor:<path>`: what the current watch is on. */
  private on: string | undefined;
  private failed = false;

  constructor(
    dir: string,
    private readonly onHint: () => void,
    /** fs.watch refused (out of inotify watches, say); called once. */
    private readonly onUnavailable: (target: string, err: Error) => void,
  ) {
    this.dir = path.resolve(dir);
  }

  /**
   * Point the watch at the folder (if it exists, as `inode`) or its nearest ancestor.
   * Returns true when a new watch started: it cannot report what happened between the
   * scan and its start, so the caller should rescan.
   */
  sync(exists: boolean, inode: string | undefined): boolean {
    if (exists) {
      const target = `dir:${inode}`;
      if (this.watcher && this.on === target) return false;
      const self = path.basename(this.dir);
      // The folder's own name: it was moved or removed; a rescan finds out which.
      return this.start(this.dir, target, (name) => isTaskHint(name) || name === self);
    }
    const { ancestor, child } = nearestAncestor(this.dir);
    const target = `ancestor:${ancestor}`;
    if (this.watcher && this.on === target) return false;
    return this.start(ancestor, target, (name) => name === null || name === child);
  }

  close(): void {
    this.watcher?.close();
    this.watcher = undefined;
    this.on = undefined;
  }

  private start(folder: string, target: string, wanted: (name: string | null) => boolean): boolean {
    this.close();
    let watcher: fs.FSWatcher;
    try {
      watcher = fs.watch(folder, { persistent: true }, (_type, name) => {
        if (wanted(name === null ? null : String(name))) this.onHint();
      });
    } catch (err) {
      if (!this.failed) this.onUnavailable(folder, err as Error);
      this.failed = true;
      return false;
    }
    watcher.on('error', () => {
      // Typically the folder went away: drop this watch and let a rescan decide.
      if (this.watcher === watcher) this.close();
      this.onHint();
    });
    this.watcher = watcher;
    this.on = target;
    return true;
  }
}

/** The deepest existing folder on the way to `dir`, and the name under it that leads there. */
function nearestAncestor(dir: string): { ancestor: string; child: string } {
  let child = path.basename(dir);
  let ancestor = path.dirname(dir);
  while (!isDirectory(ancestor) && path.dirname(ancestor) !== ancestor) {
    child = path.basename(ancestor);
    ancestor = path.dirname(ancestor);
  }
  return { ancestor, child };
}
