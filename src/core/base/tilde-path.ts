/** A path under the home folder as `~/...`, as people read and type it; any other path as it is. */
export function tildePath(dir: string, home: string): string {
  // HOME=/home/me/ is the same folder as /home/me.
  const root = home.replace(/\/+$/, '');
  if (root === '') return dir;
  if (dir === root) return '~';
  return dir.startsWith(`${root}/`) ? `~${dir.slice(root.length)}` : dir;
}
