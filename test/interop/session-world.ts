/**
 * What the interop scenarios on sessions share: a world (a config folder and a home with
 * project folders), a gate the mock model waits on before a turn (the session stays alive
 * meanwhile), polling, and the live-session files Claude Code keeps.
 */
import fs from 'node:fs';
import path from 'node:path';
import { runAsync, tempConfig } from '../helpers/cli.js';

export function gate() {
  let open!: () => void;
  let reached!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const arrived = new Promise<void>((r) => (reached = r));
  return {
    open,
    arrived,
    wait: async () => {
      reached();
      await opened;
    },
  };
}

export async function waitFor<T>(what: string, fn: () => T | undefined, ms = 60_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The live-session files, by pid. */
export function liveFiles(config: string): Array<{ file: string; pid: number; sessionId: string; cwd: string }> {
  const dir = path.join(config, 'sessions');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((n) => /^\d+\.json$/.test(n))
    .map((n) => ({
      file: path.join(dir, n),
      ...(JSON.parse(fs.readFileSync(path.join(dir, n), 'utf8')) as { pid: number; sessionId: string; cwd: string }),
    }));
}

export function world() {
  const config = tempConfig();
  const home = path.join(config, 'home');
  const dir = (rel: string) => {
    const d = path.join(home, rel);
    fs.mkdirSync(d, { recursive: true });
    return d;
  };
  // `env`: more of tasks' environment (undefined removes a variable).
  const tasks = (cwd: string, args: string[], env: Record<string, string | undefined> = {}) =>
    runAsync(config, args, { cwd, env: { HOME: home, ...env } });
  return { config, home, dir, tasks };
}
