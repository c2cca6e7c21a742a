import fs from 'node:fs';
import path from 'node:path';
import { lazySchemas } from '../base/zod.js';
import { MAX_CONFIG_BYTES, readBoundedText } from '../base/bounded-read.js';
import { errnoCode } from '../base/errors.js';

/**
 * The task hooks configured for Claude Code (spec section 7), read from the settings
 * files it reads: user `<config>/settings.json`, project `<project>/.claude/settings.json`,
 * local `<project>/.claude/settings.local.json`. Hooks of all three run; a broken file
 * is skipped with a warning, never fatal (a typo in settings must not stop a command).
 *
 * As Claude Code 2.1.328 does for these two events, a group's `matcher` is ignored:
 * every group runs (the events have nothing to match against).
 */

export const TASK_HOOK_EVENTS = ['TaskCreated', 'TaskCompleted'] as const;
export type TaskHookEvent = (typeof TASK_HOOK_EVENTS)[number];

/** Claude Code's default for a command hook without `timeout` (600 000 ms in 2.1.328). */
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 600;

export interface CommandHook {
  /** Run through `/bin/sh -c`, unless `args` is given (then spawned directly, no shell). */
  command: string;
  args?: string[] | undefined;
  timeoutSeconds: number;
  /** `async` / `asyncRewake`: started, never waited for, cannot block. */
  background: boolean;
  /** The settings file it came from. */
  source: string;
}

export interface TaskHookSettings {
  hooks: Record<TaskHookEvent, CommandHook[]>;
  /** One line each: files or entries that were skipped, and why. */
  warnings: string[];
  /** Set when a settings file says `"disableAllHooks": true`; no hook runs then. */
  disabledBy?: string | undefined;
}

export interface SettingsSource {
  scope: 'user' | 'project' | 'local';
  file: string;
}

export function settingsSources(configDir: string, projectDir: string | undefined): SettingsSource[] {
  const sources: SettingsSource[] = [{ scope: 'user', file: path.join(configDir, 'settings.json') }];
  if (projectDir !== undefined) {
    sources.push({ scope: 'project', file: path.join(projectDir, '.claude', 'settings.json') });
    sources.push({ scope: 'local', file: path.join(projectDir, '.claude', 'settings.local.json') });
  }
  return sources;
}

const schemas = lazySchemas((z) => ({
  Group: z.object({ matcher: z.string().optional(), hooks: z.array(z.unknown()) }).passthrough(),
  CommandHook: z
    .object({
      type: z.literal('command'),
      command: z.string().min(1),
      args: z.array(z.string()).optional(),
      timeout: z.number().positive().optional(),
      async: z.boolean().optional(),
      asyncRewake: z.boolean().optional(),
    })
    .passthrough(),
}));

/** Read every settings file; collect the command hooks of both task events, deduplicated. */
export function loadTaskHookSettings(configDir: string, projectDir: string | undefined): TaskHookSettings {
  const result: TaskHookSettings = { hooks: { TaskCreated: [], TaskCompleted: [] }, warnings: [] };
  const seenFiles = new Set<string>();
  for (const { file } of settingsSources(configDir, projectDir)) {
    const real = realOrSelf(file);
    // cwd = $HOME: the user file is also the project file; read it once.
    if (seenFiles.has(real)) continue;
    seenFiles.add(real);
    const settings = readSettingsFile(file, result.warnings);
    if (settings === undefined) continue;
    if (settings.disableAllHooks === true) result.disabledBy ??= file;
    collectHooks(settings.hooks, file, result);
  }
  if (result.disabledBy !== undefined) result.hooks = { TaskCreated: [], TaskCompleted: [] };
  return result;
}

function realOrSelf(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

function readSettingsFile(file: string, warnings: string[]): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readBoundedText(file, MAX_CONFIG_BYTES);
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    warnings.push(`ignoring ${file}: ${(err as Error).message}`);
    return undefined;
  }
  if (text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    warnings.push(`ignoring ${file}: not valid JSON (${(err as Error).message})`);
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    warnings.push(`ignoring ${file}: expected a JSON object`);
    return undefined;
  }
  return parsed as Record<string, unknown>;
}

function collectHooks(hooks: unknown, file: string, into: TaskHookSettings): void {
  if (hooks === undefined) return;
  if (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks)) {
    into.warnings.push(`ignoring "hooks" in ${file}: expected an object of events`);
    return;
  }
  for (const event of TASK_HOOK_EVENTS) {
    const groups = (hooks as Record<string, unknown>)[event];
    if (groups === undefined) continue;
    if (!Array.isArray(groups)) {
      into.warnings.push(`ignoring hooks.${event} in ${file}: expected an array of {"hooks": [...]} groups`);
      continue;
    }
    groups.forEach((group, g) => {
      const parsedGroup = schemas().Group.safeParse(group);
      if (!parsedGroup.success) {
        into.warnings.push(`ignoring hooks.${event}[${g}] in ${file}: expected {"hooks": [...]}`);
        return;
      }
      parsedGroup.data.hooks.forEach((hook, h) => {
        const where = `hooks.${event}[${g}].hooks[${h}] in ${file}`;
        const type = typeof hook === 'object' && hook !== null ? (hook as { type?: unknown }).type : undefined;
        if (type !== 'command' && typeof type === 'string') {
          into.warnings.push(`skipping ${where}: a "${type}" hook; tasks runs command hooks only`);
          return;
        }
        const parsed = schemas().CommandHook.safeParse(hook);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          into.warnings.push(`ignoring ${where}: ${issue ? `${issue.path.join('.') || 'hook'}: ${issue.message}` : 'invalid'}`);
          return;
        }
        const candidate: CommandHook = {
          command: parsed.data.command,
          args: parsed.data.args,
          timeoutSeconds: parsed.data.timeout ?? DEFAULT_HOOK_TIMEOUT_SECONDS,
          background: parsed.data.async === true || parsed.data.asyncRewake === true,
          source: file,
        };
        // Claude Code runs identical commands once, wherever they are configured.
        const key = JSON.stringify([candidate.command, candidate.args ?? null]);
        if (!into.hooks[event].some((other) => JSON.stringify([other.command, other.args ?? null]) === key)) {
          into.hooks[event].push(candidate);
        }
      });
    });
  }
}
