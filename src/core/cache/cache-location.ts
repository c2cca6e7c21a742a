import path from 'node:path';
import { hashHex } from './persistent-cache.js';

/**
 * Where the persistent cache lives (the XDG base directory rule): `$XDG_CACHE_HOME/tasks`
 * when that is an absolute path, else `~/.cache/tasks`; undefined when neither can be
 * known (then a run keeps what it works out in memory only). Never inside Claude Code's
 * config folder: that is Claude Code's, and may be shared or synced.
 */
export function cacheRoot(where: { xdgCacheHome?: string | undefined; home?: string | undefined }): string | undefined {
  const xdg = where.xdgCacheHome;
  if (xdg !== undefined && xdg !== '' && path.isAbsolute(xdg)) return path.join(xdg, 'tasks');
  const home = where.home;
  return home !== undefined && home !== '' && path.isAbsolute(home) ? path.join(home, '.cache', 'tasks') : undefined;
}

/**
 * The folder of one Claude Code config folder's cache: its name (for a person looking)
 * and a hash of its path, so that several config folders on one machine
 * (CLAUDE_CONFIG_DIR) keep caches apart.
 */
export function ownerCacheDir(root: string, configDir: string): string {
  const resolved = path.resolve(configDir);
  const name = path
    .basename(resolved)
    .replace(/^\.+/, '')
    .replace(/[^A-Za-z0-9_.-]/g, '_')
    .slice(0, 40);
  return path.join(root, `${name}-${hashHex(resolved)}`);
}
