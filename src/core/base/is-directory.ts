import fs from 'node:fs';

/** A folder (or a symlink to one) is there; anything else, or nothing, is not. */
export function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
