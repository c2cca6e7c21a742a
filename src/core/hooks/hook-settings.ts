import fs from 'node:fs';
import path from 'node:path';
import { readBoundedText, SETTINGS_MAX_BYTES } from '../base/bounded-read.js';
import { errnoCode } from '../base/errors.js';
import { lazySchemas } from '../base/zod.js';
import { folderTrust, type TrustSources, type TrustVerdict } from './folder-trust.js';

/**
 * The task hooks configured for Claude Code (docs/task-store.md section 7), read from the
 * settings files it reads, with the same say over which of them run (checked against
 * 2.1.328):
 *
 * - managed settings (`/etc/claude-code/managed-settings.json`, then the files of
 *   `managed-settings.d/` in name order): their hooks always run; `"disableAllHooks":
 *   true` there turns every hook off, `"allowManagedHooksOnly": true` every other one;
 * - user `<config>/settings.json`;
 * - project `<project>/.claude/settings.json` and local `.claude/settings.local.json`:
 *   read only when Claude Code records the folder as trusted (folder-trust.ts): a freshly
 *   cloned repository's hooks are not run by merely standing in it;
 * - `"disableAllHooks": true` in user, project or local settings turns off their hooks
 *   (not managed ones, which only managed settings can turn off).
 *
 * A broken file is skipped with a warning, never fatal (a typo in settings must not stop
 * a command). As Claude Code does for these two events, a group's `matcher` is ignored:
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

/** Settings files whose task hooks do not run: the folder is not trusted, or managed settings allow only theirs. */
export interface HookSkip {
  reason: 'untrusted' | 'managed_only';
  files: string[];
  /** Each file's events, for the skips of one event (skipsOfEvent): a file of the other event's hooks alone is left out. */
  eventsByFile: Record<string, TaskHookEvent[]>;
  message: string;
  /** Why they were skipped: the message after the files it names (skipsOfEvent names fewer). */
  why: string;
  /** untrusted: the folder whose trust record would let them run, and the file that holds the records. */
  folder?: string | undefined;
  configFile?: string | undefined;
  /** managed_only: the managed settings file that says so. */
  managedFile?: string | undefined;
}

export interface TaskHookSettings {
  hooks: Record<TaskHookEvent, CommandHook[]>;
  /** One line each: files or entries that were skipped for being broken, and why. */
  warnings: string[];
  /** Files whose task hooks were skipped by policy or folder trust. */
  skipped: HookSkip[];
  /** Set when a settings file says `"disableAllHooks": true` (managed: no hook runs; others: theirs do not). */
  disabledBy?: string | undefined;
}

export interface SettingsSource {
  scope: 'managed' | 'user' | 'project' | 'local';
  file: string;
}

/**
 * What, beside the settings files, decides which hooks may run: where folder trust is
 * recorded and where managed settings live. Comes from the caller (environment, paths).
 */
export interface HookPolicySources extends TrustSources {
  /** The managed settings folder: /etc/claude-code on Linux. */
  managedDir: string;
}

function settingsSources(configDir: string, projectDir: string | undefined, managedDir?: string): SettingsSource[] {
  const sources: SettingsSource[] = managedDir === undefined ? [] : managedSources(managedDir);
  sources.push({ scope: 'user', file: path.join(configDir, 'settings.json') });
  if (projectDir !== undefined) {
    sources.push({ scope: 'project', file: path.join(projectDir, '.claude', 'settings.json') });
    sources.push({ scope: 'local', file: path.join(projectDir, '.claude', 'settings.local.json') });
  }
  return sources;
}

/** `managed-settings.json`, then `managed-settings.d/*.json` in name order (later ones refine). */
function managedSources(managedDir: string): SettingsSource[] {
  const sources: SettingsSource[] = [{ scope: 'managed', file: path.join(managedDir, 'managed-settings.json') }];
  const dropIns = path.join(managedDir, 'managed-settings.d');
  let names: string[] = [];
  try {
    names = fs
      .readdirSync(dropIns)
      .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
      .sort();
  } catch {
    // none
  }
  for (const name of names) sources.push({ scope: 'managed', file: path.join(dropIns, name) });
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

/**
 * Read every settings file whose hooks may run; collect the command hooks of both task
 * events, deduplicated. Without `policy` (tests of the format), every file is read as
 * trusted and there are no managed settings.
 */
export function loadTaskHookSettings(configDir: string, projectDir: string | undefined, policy?: HookPolicySources): TaskHookSettings {
  const result: TaskHookSettings = { hooks: { TaskCreated: [], TaskCompleted: [] }, warnings: [], skipped: [] };
  const managed: TaskHookSettings = { hooks: { TaskCreated: [], TaskCompleted: [] }, warnings: result.warnings, skipped: result.skipped };
  const seenFiles = new Set<string>();
  let managedOnly: string | undefined;
  const untrusted: string[] = [];
  const untrustedEvents: Record<string, TaskHookEvent[]> = {};
  // Decided once, and only if a project or local settings file exists.
  let trust: TrustVerdict | undefined;
  const projectTrust = (dir: string) => (trust ??= policy === undefined ? { trusted: true, by: 'caller' } : folderTrust(dir, policy));
  for (const { scope, file } of settingsSources(configDir, projectDir, policy?.managedDir)) {
    const real = realOrSelf(file);
    // cwd = $HOME: the user file is also the project file; read it once.
    if (seenFiles.has(real)) continue;
    seenFiles.add(real);
    const settings = readSettingsFile(file, result.warnings);
    if (settings === undefined) continue;
    if (scope === 'managed') {
      if (settings.disableAllHooks === true)
        return { hooks: { TaskCreated: [], TaskCompleted: [] }, warnings: result.warnings, skipped: result.skipped, disabledBy: file };
      if (settings.allowManagedHooksOnly === true) managedOnly ??= file;
      collectHooks(settings.hooks, file, managed);
      continue;
    }
    if (managedOnly !== undefined) {
      if (hasTaskHooks(settings.hooks)) {
        const why = `managed settings allow only managed hooks (allowManagedHooksOnly in ${managedOnly})`;
        result.skipped.push({
          reason: 'managed_only',
          files: [file],
          eventsByFile: { [file]: taskHookEvents(settings.hooks) },
          managedFile: managedOnly,
          message: skipMessage([file], why),
          why,
        });
      }
      continue;
    }
    if ((scope === 'project' || scope === 'local') && projectDir !== undefined && !projectTrust(projectDir).trusted) {
      if (hasTaskHooks(settings.hooks)) {
        untrusted.push(file);
        untrustedEvents[file] = taskHookEvents(settings.hooks);
      }
      continue;
    }
    if (settings.disableAllHooks === true) result.disabledBy ??= file;
    collectHooks(settings.hooks, file, result);
  }
  if (untrusted.length > 0 && trust !== undefined && !trust.trusted && projectDir !== undefined) {
    const why = `this folder is not trusted in Claude Code; to trust it, run tasks trust in ${trust.recordKey} (or claude there, and accept its trust dialog), or set projects[${JSON.stringify(trust.recordKey)}].hasTrustDialogAccepted to true in ${trust.configFile}`;
    result.skipped.push({
      reason: 'untrusted',
      files: untrusted,
      eventsByFile: untrustedEvents,
      folder: trust.recordKey,
      configFile: trust.configFile,
      message: skipMessage(untrusted, why),
      why,
    });
  }
  const own = result.disabledBy === undefined ? result.hooks : { TaskCreated: [], TaskCompleted: [] };
  const merged: Record<TaskHookEvent, CommandHook[]> = { TaskCreated: [], TaskCompleted: [] };
  for (const event of TASK_HOOK_EVENTS) {
    // Managed hooks first; an identical command elsewhere runs once, as Claude Code runs it.
    merged[event] = [...managed.hooks[event]];
    for (const hook of own[event]) if (!merged[event].some((m) => sameCommand(m, hook))) merged[event].push(hook);
  }
  result.hooks = merged;
  return result;
}

/**
 * The skips a change that runs `event` is told of: of each skip, only the files that hold
 * hooks of that event (a file of TaskCompleted hooks alone kept nothing of a create from
 * running), its message naming those files alone.
 */
export function skipsOfEvent(skipped: readonly HookSkip[], event: TaskHookEvent): HookSkip[] {
  const out: HookSkip[] = [];
  for (const skip of skipped) {
    const files = skip.files.filter((file) => skip.eventsByFile[file]?.includes(event));
    if (files.length === 0) continue;
    if (files.length === skip.files.length) {
      out.push(skip);
      continue;
    }
    const eventsByFile = Object.fromEntries(files.map((file) => [file, skip.eventsByFile[file] ?? []]));
    out.push({ ...skip, files, eventsByFile, message: skipMessage(files, skip.why) });
  }
  return out;
}

/** `skipped the hooks in <file> and <file>: <why>`. */
function skipMessage(files: readonly string[], why: string): string {
  return `skipped the hooks in ${files.join(' and ')}: ${why}`;
}

/** Does a settings file's `hooks` hold any TaskCreated or TaskCompleted group? */
export function hasTaskHooks(hooks: unknown): boolean {
  return taskHookEvents(hooks).length > 0;
}

/** The task events a settings file's `hooks` holds groups for. */
function taskHookEvents(hooks: unknown): TaskHookEvent[] {
  if (typeof hooks !== 'object' || hooks === null) return [];
  return TASK_HOOK_EVENTS.filter((event) => {
    const groups = (hooks as Record<string, unknown>)[event];
    // A group with no hook in it (`[{}]`) would run nothing: nothing of it is skipped either.
    return Array.isArray(groups) && groups.some((g) => hasAHook(g));
  });
}

function hasAHook(group: unknown): boolean {
  const list = typeof group === 'object' && group !== null ? (group as { hooks?: unknown }).hooks : undefined;
  return Array.isArray(list) && list.some((h) => typeof h === 'object' && h !== null);
}

function sameCommand(a: CommandHook, b: CommandHook): boolean {
  return a.command === b.command && JSON.stringify(a.args ?? null) === JSON.stringify(b.args ?? null);
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
    text = readBoundedText(file, SETTINGS_MAX_BYTES);
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
