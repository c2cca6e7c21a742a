import fs from 'node:fs';
import path from 'node:path';
import { tempConfig } from './cli.js';

/** A temporary Claude config folder and project folder, for hooks and teams. */
export interface HookWorld {
  root: string;
  config: string;
  project: string;
  /** The list folder of list `l` (the list used by these tests). */
  list: string;
}

/**
 * A config folder and a project folder. The project is trusted by default, as Claude Code
 * records it once someone accepts its trust dialog there (trustFolder); `trusted: false`
 * leaves it as a fresh clone would be.
 */
export function hookWorld(opts: { trusted?: boolean } = {}): HookWorld {
  const root = tempConfig();
  const config = path.join(root, 'config');
  const project = path.join(root, 'project');
  fs.mkdirSync(path.join(project, '.claude'), { recursive: true });
  fs.mkdirSync(config, { recursive: true });
  const world = { root, config, project, list: path.join(config, 'tasks', 'l') };
  if (opts.trusted !== false) trustFolder(world, project);
  return world;
}

/** What accepting Claude Code's trust dialog in `folder` writes: projects[folder].hasTrustDialogAccepted. */
export function trustFolder(world: HookWorld, folder: string): void {
  const file = path.join(world.config, '.claude.json');
  const current = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { projects?: Record<string, unknown> }) : {};
  const projects = { ...(current.projects ?? {}), [folder]: { allowedTools: [], hasTrustDialogAccepted: true } };
  fs.writeFileSync(file, JSON.stringify({ ...current, projects }, null, 2));
}

/** Managed (policy) settings, where the tests' TASKS_MANAGED_SETTINGS_DIR points. */
export function writeManagedSettings(world: HookWorld, content: unknown, dropIn?: string): void {
  const dir = path.join(world.config, 'managed');
  const file = dropIn === undefined ? path.join(dir, 'managed-settings.json') : path.join(dir, 'managed-settings.d', dropIn);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(content, null, 2));
}

/** Write an executable script into the project and return its path. */
export function script(world: HookWorld, name: string, body: string, mode = 0o755): string {
  const file = path.join(world.project, 'hooks', name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`);
  fs.chmodSync(file, mode);
  return file;
}

type Hook = { command: string; timeout?: number; async?: boolean };
export type HookMap = Partial<Record<'TaskCreated' | 'TaskCompleted', Hook[]>>;

/** `{"hooks": {Event: [{"hooks": [{type: "command", ...}]}]}}`, one group per hook. */
export function settingsWith(hooks: HookMap): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [event, list] of Object.entries(hooks)) out[event] = (list ?? []).map((h) => ({ hooks: [{ type: 'command', ...h }] }));
  return { hooks: out };
}

export function writeSettings(world: HookWorld, scope: 'user' | 'project' | 'local', content: unknown): void {
  const file =
    scope === 'user'
      ? path.join(world.config, 'settings.json')
      : path.join(world.project, '.claude', scope === 'project' ? 'settings.json' : 'settings.local.json');
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
}

export function writeTeam(world: HookWorld, name: string, members: string[]): void {
  const dir = path.join(world.config, 'teams', name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'config.json'),
    JSON.stringify(
      {
        name,
        leadAgentId: `team-lead@${name}`,
        members: members.map((m) => ({ name: m, agentId: `${m}@${name}`, agentType: 'general-purpose' })),
      },
      null,
      2,
    ),
  );
}

/** Lines a logging hook appended (one JSON document per line). */
export function logLines(file: string): unknown[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as unknown);
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function waitFor(check: () => boolean, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}
