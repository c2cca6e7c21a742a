import type { BoardStatus, BoardTask, TaskFacts } from '../board-protocol.js';

/**
 * The filters of `tasks list`, applied in the page to what the server sent: the
 * questions of the list's graph and sessions (blocked, ready, internal, stalled) are
 * answered by core on the server and arrive as facts; the rest is plain comparison with
 * core's own semantics (task-filter.ts: an owner exactly, search in subject and
 * description in any case, metadata by string value or by JSON text). A unit test holds
 * the two to the same answers.
 */
export interface PageFilter {
  statuses: readonly BoardStatus[];
  owner: string | undefined;
  unowned: boolean;
  ready: boolean;
  blocked: boolean;
  stalled: boolean;
  /** Include metadata._internal tasks. */
  all: boolean;
  search: string;
  /** key=value pairs (key:=json for a JSON value), as `--meta` takes them. */
  meta: ReadonlyArray<readonly [string, string]>;
}

export const NO_FILTER: PageFilter = {
  statuses: [],
  owner: undefined,
  unowned: false,
  ready: false,
  blocked: false,
  stalled: false,
  all: false,
  search: '',
  meta: [],
};

/** `key=value` (a string) or `key:=<json>` (compared as JSON text), as `--meta` parses. */
export function parseMetaTerm(term: string): readonly [string, string] | undefined {
  const json = /^([^=:]+):=(.*)$/.exec(term);
  if (json) {
    try {
      const value: unknown = JSON.parse(json[2] as string);
      return [json[1] as string, typeof value === 'string' ? value : JSON.stringify(value)];
    } catch {
      return undefined;
    }
  }
  const plain = /^([^=]+)=(.*)$/.exec(term);
  return plain ? [plain[1] as string, plain[2] as string] : undefined;
}

export function matchesPageFilter(task: BoardTask, facts: TaskFacts | undefined, f: PageFilter): boolean {
  if (!f.all && facts?.internal) return false;
  if (f.statuses.length > 0 && !f.statuses.includes(task.status)) return false;
  if (f.owner !== undefined && task.owner !== f.owner) return false;
  if (f.unowned && task.owner) return false;
  if (f.ready && !facts?.ready) return false;
  if (f.blocked && !facts?.blocked) return false;
  // Stalled, or its agent gone (whatever its age or the list's sessions): what `--stalled` shows (core's stalledOrGone).
  if (f.stalled && facts?.stalledMs === undefined && facts?.agentGone === undefined) return false;
  if (f.search !== '') {
    const needle = f.search.toLowerCase();
    if (!task.subject.toLowerCase().includes(needle) && !task.description.toLowerCase().includes(needle)) return false;
  }
  for (const [key, want] of f.meta) {
    const data = task.metadata ?? {};
    if (!Object.hasOwn(data, key)) return false;
    const value = data[key];
    if (typeof value === 'string' ? value !== want : JSON.stringify(value) !== want) return false;
  }
  return true;
}
