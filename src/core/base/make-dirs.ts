import fs from 'node:fs';
import path from 'node:path';
import { errnoCode } from './errors.js';
import { isDirectory } from './is-directory.js';

/**
 * `mkdir -p`, one level at a time. Node 20's `mkdirSync(dir, {recursive: true})` loops
 * forever, synchronously (so deaf to signals), where a parent exists but a child cannot
 * be made in it and mkdir says ENOENT, as under /proc. Here every failure is thrown once,
 * with its errno code, for the caller to name. Returns whether `dir` itself was made here
 * (false: it was there already, or another process made it meanwhile). `mode` applies to
 * the folders made here (less the umask), never to one that was there.
 */
export function makeDirs(dir: string, mode?: number): boolean {
  const missing: string[] = [];
  for (let cur = path.resolve(dir); ; ) {
    if (isDirectory(cur)) break;
    missing.push(cur);
    const parent = path.dirname(cur);
    if (parent === cur) break;
    cur = parent;
  }
  let made = false;
  for (const folder of missing.reverse()) {
    try {
      fs.mkdirSync(folder, mode === undefined ? undefined : { mode });
      made = true;
    } catch (err) {
      // Made by someone else meanwhile: fine, as mkdir -p.
      if (errnoCode(err) === 'EEXIST' && isDirectory(folder)) {
        made = false;
        continue;
      }
      throw err;
    }
  }
  return made;
}
