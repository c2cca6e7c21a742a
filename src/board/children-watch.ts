import fs from 'node:fs';
import path from 'node:path';

/**
 * Hints of change in a folder and in each folder directly in it (the lists under
 * `<config>/tasks`, the projects under `<config>/projects`): one plain fs.watch each.
 *
 * Not Node's `recursive` watch: on Linux it is made in JavaScript, and it throws from
 * inside an event, where no caller can catch it, when a watched folder has been replaced
 * by a file or a FIFO before its event is handled (an `lstat` that fails ENOTDIR, Node
 * 24.22): the board's process ended. On Node 20 and 22 it also keeps a watch on every
 * file (ten thousand tasks, ten thousand watches). Here a folder made again is watched
 * again, one replaced by anything else is let go, a link to a folder is followed (as
 * agents follow a linked list), and a root that is not there (not made yet, removed, made
 * again) is looked for at each sync(), which the caller runs now and then.
 */
export class ChildrenWatch {
  private top: fs.FSWatcher | undefined;
  /** The root's identity when its watch began: a root made again needs a watch of its own. */
  private rootId: string | undefined;
  private readonly children = new Map<string, fs.FSWatcher>();
  private resync: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly root: string,
    /** Something changed at the top: a folder made, removed or renamed (`name`, when told); the root itself made. */
    private readonly onTop: (name: string | undefined) => void,
    /** Something changed in the folder `child` (`name`: the entry in it, when told). */
    private readonly onChild: (child: string, name: string | undefined) => void,
  ) {}

  /** Watch the root and its folders; false when the root is not there yet (a later sync() looks again). */
  start(): boolean {
    return this.attach(false);
  }

  /**
   * Each folder in the root watched (a new one too), each watch on what is no longer a
   * folder let go; a root gone, or made again, watched again once it is there.
   */
  sync(): void {
    if (this.closed) return;
    if (this.top === undefined || rootIdOf(this.root) !== this.rootId) {
      this.detach();
      this.attach(true);
      return;
    }
    this.syncChildren();
  }

  close(): void {
    this.closed = true;
    if (this.resync) clearTimeout(this.resync);
    this.resync = undefined;
    this.detach();
  }

  /** Start the root's watch if it is a folder; `late`: it was not watched before, so all in it is news. */
  private attach(late: boolean): boolean {
    const id = rootIdOf(this.root);
    if (id === undefined) return false;
    try {
      this.top = fs.watch(this.root, { persistent: false }, (_type, name) => {
        // One listing for a burst of them (a thousand lists made at once).
        this.syncSoon();
        this.onTop(name === null ? undefined : String(name));
      });
    } catch {
      return false;
    }
    const top = this.top;
    top.on('error', () => {
      if (this.top === top) this.detach();
    });
    this.rootId = id;
    this.syncChildren();
    if (late) this.onTop(undefined);
    return true;
  }

  private detach(): void {
    this.top?.close();
    this.top = undefined;
    this.rootId = undefined;
    for (const w of this.children.values()) w.close();
    this.children.clear();
  }

  private syncChildren(): void {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(this.root, { withFileTypes: true });
    } catch {
      // Gone or no longer a folder: the next sync finds out.
      return;
    }
    const folders = new Set(entries.filter((e) => e.isDirectory() || (e.isSymbolicLink() && this.linksAFolder(e.name))).map((e) => e.name));
    for (const [name, w] of this.children) {
      if (folders.has(name)) continue;
      w.close();
      this.children.delete(name);
    }
    for (const name of folders) if (!this.children.has(name)) this.watchChild(name);
  }

  private linksAFolder(name: string): boolean {
    try {
      return fs.statSync(path.join(this.root, name)).isDirectory();
    } catch {
      return false;
    }
  }

  private watchChild(name: string): void {
    let w: fs.FSWatcher;
    try {
      w = fs.watch(path.join(this.root, name), { persistent: false }, (_type, entry) => {
        const inside = entry === null ? undefined : String(entry);
        // The folder's own name: it was removed or moved, and this watch is spent;
        // a sync soon watches whatever folder has that name by then.
        if (inside === name) this.forget(name, w);
        this.onChild(name, inside === name ? undefined : inside);
      });
    } catch {
      // Gone since the listing, or out of watches: the periodic reads still see it.
      return;
    }
    w.on('error', () => this.forget(name, w));
    this.children.set(name, w);
  }

  private forget(name: string, w: fs.FSWatcher): void {
    w.close();
    if (this.children.get(name) === w) this.children.delete(name);
    this.syncSoon();
  }

  private syncSoon(): void {
    if (this.closed) return;
    this.resync ??= setTimeout(() => {
      this.resync = undefined;
      this.sync();
    }, 0);
  }
}

/** A folder's identity (device and inode), or undefined when it is no folder. */
function rootIdOf(dir: string): string | undefined {
  try {
    const st = fs.statSync(dir);
    return st.isDirectory() ? `${st.dev}:${st.ino}` : undefined;
  } catch {
    return undefined;
  }
}
