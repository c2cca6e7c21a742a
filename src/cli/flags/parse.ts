/** Option parsers: every flag value is checked here, before anything touches the disk. */

import { TasksError } from '../../core/base/errors.js';
import { holdsOnlyFiniteNumbers, inexactInteger, notKeptExactly, TOO_LARGE_FOR_JSON } from '../../core/base/finite-json.js';
import { setOwn } from '../../core/base/own-key.js';
import { parseTaskId } from '../../core/store/ids.js';
import type { Status } from '../../core/store/schema.js';
import { parseStatus } from '../../core/store/status-words.js';

/**
 * `--status pending,in_progress` or repeated flags. A value naming no status (`--if-status ""`,
 * an empty variable) is a usage error: as a filter or a precondition it would match nothing.
 */
export function parseStatusList(name: string, raw: readonly string[] | undefined): Status[] | undefined {
  if (!raw || raw.length === 0) return undefined;
  for (const value of raw) if (namesNone(value)) throw new TasksError('usage', `${name} needs at least one status`);
  return raw
    .flatMap((r) => r.split(','))
    .filter((s) => s.trim() !== '')
    .map(parseStatus);
}

/**
 * Task ids as given (`3 4`, `3,4`, `#3`), in order; an id given twice counts once: `delete 2 2`
 * deletes #2 and is done, not "not found" for the second.
 */
export function parseIds(raw: readonly string[] | undefined): string[] {
  const ids = (raw ?? [])
    .flatMap((r) => r.split(','))
    .filter((s) => s.trim() !== '')
    .map(parseTaskId);
  return [...new Set(ids)];
}

/**
 * The ids of an option that takes them (`--blocked-by 2,3`, repeatable). Each value given must
 * name at least one, and no empty one between its commas: `--blocked-by "$DEP"` with DEP
 * empty asked for a dependency and named none, so it is a usage error rather than a task
 * made or changed without it.
 */
export function parseIdOption(name: string, raw: readonly string[] | undefined, hint = ''): string[] | undefined {
  if (raw === undefined) return undefined;
  for (const value of raw) {
    if (namesNone(value)) throw new TasksError('usage', `${name} needs at least one task id${hint}`);
    // `"$A,$B"` with one of them empty names one dependency fewer than the script meant.
    if (value.split(',').some(blank))
      throw new TasksError('usage', `${name} ${JSON.stringify(value)} holds an empty id (an empty variable?)`);
  }
  return parseIds(raw);
}

/**
 * The task ids a command takes as arguments (`delete 3 4`, `release "$A,$B"`). An argument that
 * is empty, or holds an empty id between its commas, names fewer tasks than the script meant:
 * a usage error, as for the id options, rather than acting on the others (or, for `release
 * "$ID" --owner w`, on every task of w). `required`: given nothing at all (`delete ""`), the
 * command says it needs an id.
 */
export function parseIdArguments(command: string, raw: readonly string[], required = false): string[] {
  if (required && raw.every(namesNone)) throw new TasksError('usage', `${command} needs at least one task id`);
  for (const value of raw)
    if (value.split(',').some(blank))
      throw new TasksError('usage', `${command} ${JSON.stringify(value)} holds an empty id (an empty variable?)`);
  return parseIds(raw);
}

const blank = (item: string) => item.trim() === '';

/** A comma-separated value with nothing between its commas (`""`, `,`, an empty variable). */
const namesNone = (value: string) => value.split(',').every(blank);

/**
 * `--meta key=value` sets a string; `--meta key:=<json>` sets any JSON value
 * (`n:=3`, `tags:=["a","b"]`), as httpie does, so "1.10" never turns into 1.1.
 */
export function parseMeta(raw: readonly string[] | undefined): Record<string, unknown> | undefined {
  if (!raw || raw.length === 0) return undefined;
  const out: Record<string, unknown> = {};
  // One key given two values (`--meta k=1 --meta k=2`): which was meant cannot be told (the same value twice is one).
  const set = (key: string, value: unknown) => {
    if (Object.hasOwn(out, key) && JSON.stringify(out[key]) !== JSON.stringify(value))
      throw new TasksError('usage', `--meta ${key} given twice (${JSON.stringify(out[key])}, then ${JSON.stringify(value)}): give it once`);
    setOwn(out, key, value);
  };
  for (const item of raw) {
    // The key ends at the first `:=` before any `=`: `a:b:=1` is a:b, `url=http://h:=x` a string.
    const json = /^([^=]*?):=(.*)$/s.exec(item);
    const plain = /^([^=]+)=(.*)$/s.exec(item);
    // A blank key (`--meta " :=1"`, `--meta :=1`): none is set, in either form.
    if (json && json[1]!.trim() === '') throw new TasksError('usage', `invalid --meta "${item}": expected key=value or key:=<json>`);
    if (json) {
      const key = json[1]!.trim();
      let value: unknown;
      try {
        value = JSON.parse(json[2]!);
      } catch {
        throw new TasksError('usage', `invalid --meta "${item}": the value after ":=" must be JSON`);
      }
      // `n:=1e999` parses as Infinity, which a file holds as null: a key removed, not the number asked for.
      if (!holdsOnlyFiniteNumbers(value)) throw new TasksError('usage', `invalid --meta "${item}": ${TOO_LARGE_FOR_JSON}`);
      // `issue:=9007199254740993` would be written as 9007199254740992: another number, without a word.
      const inexact = inexactInteger(json[2]!);
      if (inexact) {
        const text = typeof value === 'number' ? `; for text, give ${key}=${json[2]!.trim()}` : '';
        throw new TasksError('usage', `invalid --meta "${item}": ${notKeptExactly(inexact)}${text}`);
      }
      set(key, value);
    } else if (plain && plain[1]!.trim() !== '') {
      set(plain[1]!.trim(), plain[2]!);
    } else {
      throw new TasksError('usage', `invalid --meta "${item}": expected key=value or key:=<json>`);
    }
  }
  return out;
}

/** `--meta key=value` as a filter: the value as text; `key:=<json>` compares JSON texts. */
export function parseMetaFilter(raw: readonly string[] | undefined): Record<string, string> | undefined {
  const parsed = parseMeta(raw);
  if (parsed === undefined) return undefined;
  return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
}

/** A positive whole number: `--limit 20`. */
export function parsePositiveInt(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = /^[0-9]+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!(Number.isSafeInteger(n) && n > 0)) throw new TasksError('usage', `invalid ${name} "${raw}": expected a whole number above 0`);
  return n;
}

/** A TCP port to listen on: `--port 8080`; 0 means any free one. */
export function parsePort(name: string, raw: string | undefined): number {
  if (raw === undefined) return 0;
  const port = /^[0-9]{1,5}$/.test(raw) ? Number(raw) : NaN;
  if (!(port >= 0 && port <= 65535))
    throw new TasksError('usage', `invalid ${name} "${raw}": expected a number from 0 to 65535 (0: any free port)`);
  return port;
}

/**
 * An address to listen on: `--host 127.0.0.1`, `--host ::1` (or `[::1]`), a name of this
 * machine. Empty (which would listen on every interface) or holding spaces or control
 * characters: a usage error. Undefined: `fallback`.
 */
export function parseListenAddress(name: string, raw: string | undefined, fallback: string): string {
  if (raw === undefined) return fallback;
  const address = /^\[([^\]]*)\]$/.exec(raw)?.[1] ?? raw;
  if (address === '' || /[\s\p{Cc}/]/u.test(address))
    throw new TasksError(
      'usage',
      `invalid ${name} ${JSON.stringify(raw)}: expected an address of this machine to listen on (default: 127.0.0.1)`,
    );
  return address;
}

export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Who `@me` is: the person running tasks (the run's context knows, by login name). */
export interface Me {
  readonly person: string | undefined;
}

/** An owner or agent name; `@me` is the user's login name, as in gh (`--owner @me`). */
export function requireOwner(name: string, value: string | undefined, me: Me): string | undefined {
  const text = requireText(name, value);
  if (text?.trim() !== '@me') return text;
  const login = me.person;
  if (!login) throw new TasksError('usage', `${name} @me: cannot tell your login name ($USER is not set)`);
  return login;
}

/** A non-empty single-line text value (subjects, owners). */
export function requireText(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === '') throw new TasksError('usage', `${name} cannot be empty`);
  return value;
}
