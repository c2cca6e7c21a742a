/**
 * Binding: which list the Claude Code sessions started in a directory use because a
 * settings file says so. `tasks use <list>` sets `env.CLAUDE_CODE_TASK_LIST_ID` in the
 * local settings Claude Code reads there (`.claude/settings.local.json`, per user and not
 * committed), so that every new session started there, and `tasks` itself, share that
 * list (docs/task-store.md sections 1 and 11). This folder reads the binding exactly as Claude Code
 * does (settings-files.ts: which files, in which precedence; this file: the value) and
 * writes it without disturbing anything else in the file (binding-write.ts).
 */
import { readBoundedText, SETTINGS_MAX_BYTES } from '../base/bounded-read.js';
import { errnoCode } from '../base/errors.js';
import { sanitizeListId } from '../store/paths.js';
import { type SettingsFile, type SettingsFlag, type SettingsPlaces, type SettingsScope, settingsFilesFor } from './settings-files.js';

export const LIST_ID_VARIABLE = 'CLAUDE_CODE_TASK_LIST_ID';

export interface Binding {
  /** The list sessions started here use; undefined when the setting is empty (each session then uses its own). */
  listId: string | undefined;
  /** The value as the file holds it, made a string as Claude Code makes it. */
  value: string;
  file: string;
  scope: SettingsScope;
}

export interface BindingRead {
  binding?: Binding | undefined;
  /** Settings files that could not be read as settings (Claude Code skips them too), one line each. */
  problems: string[];
}

/**
 * The list id a variable's value names, as Claude Code takes it: made a string, trimmed;
 * empty means none. Sanitized as every list id is (`my.team/x` -> `my-team-x`).
 */
export function listIdOfValue(value: string): string | undefined {
  const trimmed = value.trim();
  return trimmed === '' ? undefined : sanitizeListId(trimmed);
}

/**
 * The binding in effect for sessions started in `cwd` (and started with `flag`, for a
 * running session whose command line has `--settings`): the first settings file, by
 * precedence, whose `env` has the variable. A file that is missing, unreadable, over 2
 * MiB or not a JSON object is passed over, as Claude Code passes over it.
 */
export function readBinding(cwd: string, places: SettingsPlaces, flag?: SettingsFlag): BindingRead {
  return firstBinding(settingsFilesFor(cwd, places, flag));
}

/** The first of `sources` (highest precedence first) whose `env` has the variable. */
export function firstBinding(sources: readonly SettingsFile[]): BindingRead {
  const problems: string[] = [];
  const first = settingsWithVariable(sources, LIST_ID_VARIABLE, problems, 1)[0];
  if (first === undefined) return { problems };
  return { binding: { listId: listIdOfValue(first.value), value: first.value, file: first.file, scope: first.scope }, problems };
}

/** A settings file that sets a variable in its `env`, with the value as Claude Code makes it a string. */
export interface SettingsVariable {
  file: string;
  scope: SettingsScope;
  value: string;
}

/**
 * Every one of `sources` (highest precedence first) whose `env` sets `name`, in that
 * order: the first is the value Claude Code applies, the others are shadowed by it.
 * Files that cannot be read as settings are passed over, and said in `problems`.
 */
export function settingsWithVariable(
  sources: readonly SettingsFile[],
  name: string,
  problems: string[] = [],
  limit = Number.POSITIVE_INFINITY,
): SettingsVariable[] {
  const found: SettingsVariable[] = [];
  for (const source of sources) {
    if (found.length >= limit) break;
    const env = readEnv(source, problems);
    if (env === undefined || !Object.hasOwn(env, name)) continue;
    // Claude Code applies String(value): 123 is "123", null is "null".
    const value = asText(env[name]);
    if (value === undefined) {
      problems.push(`${source.file}: env.${name} nests too deep to be made text`);
      continue;
    }
    found.push({ file: source.file, scope: source.scope, value });
  }
  return found;
}

/** A settings file's `env` object; undefined when there is none or the file is not settings. */
function readEnv({ file, text: inline }: SettingsFile, problems: string[]): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = inline ?? readBoundedText(file, SETTINGS_MAX_BYTES);
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'EFBIG') problems.push(`${file} is over ${SETTINGS_MAX_BYTES} bytes, the most Claude Code reads of a settings file`);
    else if (code !== 'ENOENT' && code !== 'ENOTDIR') problems.push(`${file}: ${(err as Error).message}`);
    return undefined;
  }
  let settings: unknown;
  try {
    settings = JSON.parse(text);
  } catch (err) {
    problems.push(`${file} is not valid JSON (${(err as Error).message})`);
    return undefined;
  }
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) return undefined;
  const env = (settings as Record<string, unknown>).env;
  return typeof env === 'object' && env !== null && !Array.isArray(env) ? (env as Record<string, unknown>) : undefined;
}

/** String(value), or undefined when that cannot be done (an array nested thousands deep overflows the stack). */
function asText(value: unknown): string | undefined {
  try {
    return String(value);
  } catch (err) {
    if (err instanceof RangeError) return undefined;
    throw err;
  }
}
