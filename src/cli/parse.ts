import { TasksError } from '../core/base/errors.js';
import { parseTaskId } from '../core/store/ids.js';
import { STATUSES, type Status } from '../core/store/schema.js';
import { setOwn } from '../core/base/own-key.js';

/** Option parsers: every flag value is checked here, before anything touches the disk. */

const STATUS_ALIASES: Record<string, Status> = {
  pending: 'pending',
  todo: 'pending',
  in_progress: 'in_progress',
  'in-progress': 'in_progress',
  inprogress: 'in_progress',
  active: 'in_progress',
  completed: 'completed',
  done: 'completed',
};

export function parseStatus(raw: string): Status {
  const status = STATUS_ALIASES[raw.trim().toLowerCase()];
  if (!status) {
    throw new TasksError('usage', `invalid status "${raw}": expected one of ${STATUSES.join(', ')}`);
  }
  return status;
}

/** `--status pending,in_progress` or repeated flags. */
export function parseStatusList(raw: readonly string[] | undefined): Status[] | undefined {
  if (!raw || raw.length === 0) return undefined;
  return raw.flatMap((r) => r.split(',')).filter((s) => s.trim() !== '').map(parseStatus);
}

export function parseIds(raw: readonly string[] | undefined): string[] {
  return (raw ?? []).flatMap((r) => r.split(',')).filter((s) => s.trim() !== '').map(parseTaskId);
}

/**
 * `--meta key=value` sets a string; `--meta key:=<json>` sets any JSON value
 * (`n:=3`, `tags:=["a","b"]`), as httpie does, so "1.10" never turns into 1.1.
 */
export function parseMeta(raw: readonly string[] | undefined): Record<string, unknown> | undefined {
  if (!raw || raw.length === 0) return undefined;
  const out: Record<string, unknown> = {};
  for (const item of raw) {
    const json = /^([^=:]+):=(.*)$/s.exec(item);
    const plain = /^([^=]+)=(.*)$/s.exec(item);
    if (json) {
      const key = json[1]!.trim();
      try {
        setOwn(out, key, JSON.parse(json[2]!));
      } catch {
        throw new TasksError('usage', `invalid --meta "${item}": the value after ":=" must be JSON`);
      }
    } else if (plain && plain[1]!.trim() !== '') {
      setOwn(out, plain[1]!.trim(), plain[2]!);
    } else {
      throw new TasksError('usage', `invalid --meta "${item}": expected key=value or key:=<json>`);
    }
  }
  return out;
}

export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** A non-empty single-line text value (subjects, owners). */
export function requireText(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === '') throw new TasksError('usage', `${name} cannot be empty`);
  return value;
}
