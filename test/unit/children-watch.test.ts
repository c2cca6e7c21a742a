import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ChildrenWatch } from '../../src/board/children-watch.js';

/** The board's watch of a folder and the folders in it, on a real file system. */
describe('ChildrenWatch', () => {
  let watch: ChildrenWatch | undefined;
  afterEach(() => watch?.close());

  function world() {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-children-'));
    const top: Array<string | undefined> = [];
    const child: string[] = [];
    watch = new ChildrenWatch(
      root,
      (name) => top.push(name),
      (folder, name) => child.push(`${folder}/${name ?? ''}`),
    );
    return { root, top, child };
  }

  async function until(what: string, check: () => boolean): Promise<void> {
    const end = Date.now() + 5000;
    while (!check()) {
      if (Date.now() > end) throw new Error(`not within 5 s: ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  const write = (file: string) => fs.writeFileSync(file, '{}');

  it('tells a write in a folder that was there, one made since, and one removed and made again', async () => {
    const { root, top, child } = world();
    fs.mkdirSync(path.join(root, 'a'));
    expect(watch?.start()).toBe(true);
    write(path.join(root, 'a', '1.json'));
    await until('a/1.json', () => child.includes('a/1.json'));

    fs.mkdirSync(path.join(root, 'b'));
    await until('b made', () => top.includes('b'));
    // The new folder is watched once the burst of top events is handled.
    await new Promise((r) => setTimeout(r, 20));
    write(path.join(root, 'b', '1.json'));
    await until('b/1.json', () => child.includes('b/1.json'));

    fs.rmSync(path.join(root, 'a'), { recursive: true });
    fs.mkdirSync(path.join(root, 'a'));
    await new Promise((r) => setTimeout(r, 50));
    write(path.join(root, 'a', '2.json'));
    await until('a/2.json in the new a', () => child.includes('a/2.json'));
  });

  it('lets go of a folder replaced by a FIFO or a file, without throwing, and watches it again once it is a folder', async () => {
    const { root, child } = world();
    fs.mkdirSync(path.join(root, 'a'));
    fs.mkdirSync(path.join(root, 'f'));
    watch?.start();
    fs.rmSync(path.join(root, 'a'), { recursive: true });
    spawnSync('mkfifo', [path.join(root, 'a')]);
    fs.rmSync(path.join(root, 'f'), { recursive: true });
    write(path.join(root, 'f'));
    await new Promise((r) => setTimeout(r, 100));
    fs.rmSync(path.join(root, 'a'));
    fs.mkdirSync(path.join(root, 'a'));
    await new Promise((r) => setTimeout(r, 50));
    write(path.join(root, 'a', '3.json'));
    await until('a/3.json', () => child.includes('a/3.json'));
  });

  it('a root made after the start, and one removed and made again: watched at the next sync, and said at the top', async () => {
    const { root, top, child } = world();
    const tasks = path.join(root, 'tasks');
    const later = new ChildrenWatch(
      tasks,
      (name) => top.push(name),
      (folder, name) => child.push(`${folder}/${name ?? ''}`),
    );
    try {
      expect(later.start()).toBe(false);
      fs.mkdirSync(path.join(tasks, 'a'), { recursive: true });
      later.sync();
      // Made since: all in it is news, told once at the top.
      expect(top).toEqual([undefined]);
      write(path.join(tasks, 'a', '1.json'));
      await until('a/1.json', () => child.includes('a/1.json'));
      fs.rmSync(tasks, { recursive: true });
      fs.mkdirSync(path.join(tasks, 'b'), { recursive: true });
      await new Promise((r) => setTimeout(r, 50));
      later.sync();
      write(path.join(tasks, 'b', '1.json'));
      await until('b/1.json in the new root', () => child.includes('b/1.json'));
    } finally {
      later.close();
    }
  });

  it('follows a link to a folder, as agents follow a linked list', async () => {
    const { root, child } = world();
    const target = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-linked-'));
    fs.symlinkSync(target, path.join(root, 'linked'));
    watch?.start();
    write(path.join(target, '1.json'));
    await until('linked/1.json', () => child.includes('linked/1.json'));
  });

  it('a root that is not there: false, nothing watched; close ends every event', async () => {
    const { root, child } = world();
    expect(
      new ChildrenWatch(
        path.join(root, 'missing'),
        () => undefined,
        () => undefined,
      ).start(),
    ).toBe(false);
    fs.mkdirSync(path.join(root, 'a'));
    watch?.start();
    watch?.close();
    write(path.join(root, 'a', '1.json'));
    await new Promise((r) => setTimeout(r, 100));
    expect(child).toEqual([]);
  });
});
