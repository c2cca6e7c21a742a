import fs from 'node:fs';
import path from 'node:path';
import { settingsWithVariable } from '../binding/project-binding.js';
import { type SettingsPlaces, settingsFilesFor } from '../binding/settings-files.js';
import type { SessionInfo } from '../sessions/session-index.js';

/**
 * A variable as a session had it: from the settings Claude Code reads where it started
 * (they override the environment: docs/task-store.md section 11), else, while it runs,
 * from its process's environment (`/proc/<pid>/environ`, readable for one's own
 * processes). An ended session's environment is gone: then only settings can tell.
 */
export interface SessionVariable {
  value: string | undefined;
  /** The settings file that sets it, or `environment` (its running process's). */
  from?: string | undefined;
}

export function sessionVariable(
  session: Pick<SessionInfo, 'cwd' | 'pid' | 'state'>,
  name: string,
  places: SettingsPlaces,
  procRoot = '/proc',
): SessionVariable {
  if (session.cwd !== undefined) {
    const set = settingsWithVariable(settingsFilesFor(session.cwd, places), name, [], 1)[0];
    if (set !== undefined) return { value: set.value, from: set.file };
  }
  if (session.state === 'live' && session.pid !== undefined) {
    const value = processEnvironment(session.pid, procRoot)?.get(name);
    if (value !== undefined) return { value, from: 'environment' };
  }
  return { value: undefined };
}

/** A process's environment, or undefined when it cannot be read (gone, another user's). */
export function processEnvironment(pid: number, procRoot = '/proc'): Map<string, string> | undefined {
  let text: string;
  try {
    const fd = fs.openSync(path.join(procRoot, String(pid), 'environ'), 'r');
    try {
      const buffer = Buffer.allocUnsafe(256 * 1024);
      text = buffer.toString('utf8', 0, fs.readSync(fd, buffer, 0, buffer.length, null));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const vars = new Map<string, string>();
  for (const kv of text.split('\0')) {
    const eq = kv.indexOf('=');
    if (eq > 0) vars.set(kv.slice(0, eq), kv.slice(eq + 1));
  }
  return vars;
}
