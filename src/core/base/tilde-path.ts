/** A path under the home folder as `~/...`, as people read and type it; any other path as it is. */
export function tildePath(dir: string, home: string): string {
  if (home === '' || home === '/') return dir;
  if (dir === home) return '~';
  return dir.startsWith(`${home}/`) ? `~${dir.slice(home.length)}` : dir;
}
