import fs from 'node:fs';
import path from 'node:path';
import { errnoCode } from '../base/errors.js';

/**
 * What a symbolic link that leads to no folder is, in words: "a symbolic link to
 * /mnt/share/x, which does not exist" (a share not mounted, a folder removed), "a symbolic
 * link loop"; undefined for anything else (a folder, a link to one, nothing at all, a
 * link to a file: that is "not a folder"). A list reached through such a link cannot be
 * read or written by agents or by tasks, and saying only "does not exist" hides why.
 */
export function brokenLink(p: string): string | undefined {
  let target: string;
  try {
    if (!fs.lstatSync(p).isSymbolicLink()) return undefined;
    // Where it leads, as a path from anywhere: a relative link is relative to its own folder, not to the reader's.
    target = path.resolve(path.dirname(p), fs.readlinkSync(p));
  } catch {
    return undefined;
  }
  try {
    fs.statSync(p);
    return undefined;
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ELOOP') return 'a symbolic link loop';
    if (code === 'ENOENT') return `a symbolic link to ${target}, which does not exist`;
    return undefined;
  }
}
