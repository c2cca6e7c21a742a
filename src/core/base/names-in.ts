import fs from 'node:fs';

/** The names in a folder; none when it is missing or cannot be read (a folder that went is an empty one to the callers). */
export function namesIn(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
