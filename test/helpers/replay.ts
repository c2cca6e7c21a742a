/**
 * What a consumer of `watch --json` does: start from the snapshot event and apply each
 * event. Updates are applied field by field from `changes` (not by taking `task`), so a
 * wrong `changes` shows up as a wrong final state.
 */
export type TaskRecord = Record<string, unknown> & { id: string };

export interface StreamEvent {
  event: string;
  at: string;
  task?: TaskRecord;
  tasks?: TaskRecord[];
  changes?: Record<string, { old?: unknown; new?: unknown }>;
  [key: string]: unknown;
}

export function parseNdjson(text: string): StreamEvent[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as StreamEvent);
}

export function replay(events: readonly StreamEvent[]): Map<string, TaskRecord> {
  const first = events[0];
  if (first?.event !== 'snapshot') throw new Error(`the stream must start with a snapshot, not ${first?.event}`);
  const state = new Map<string, TaskRecord>((first.tasks ?? []).map((t) => [t.id, t]));
  for (const e of events.slice(1)) {
    switch (e.event) {
      case 'created': {
        const t = e.task as TaskRecord;
        if (state.has(t.id)) throw new Error(`created #${t.id}, which exists`);
        state.set(t.id, t);
        break;
      }
      case 'deleted': {
        const t = e.task as TaskRecord;
        if (!state.has(t.id)) throw new Error(`deleted #${t.id}, which does not exist`);
        state.delete(t.id);
        break;
      }
      case 'updated': {
        const t = e.task as TaskRecord;
        const old = state.get(t.id);
        if (!old) throw new Error(`updated #${t.id}, which does not exist`);
        const next: Record<string, unknown> = { ...old };
        for (const [key, change] of Object.entries(e.changes ?? {})) {
          if (JSON.stringify(old[key]) !== JSON.stringify(change.old)) {
            throw new Error(`#${t.id}.${key}: old ${JSON.stringify(change.old)} but the state has ${JSON.stringify(old[key])}`);
          }
          if ('new' in change) next[key] = change.new;
          else delete next[key];
        }
        state.set(t.id, next as TaskRecord);
        break;
      }
      case 'list-cleared':
        state.clear();
        break;
      case 'end':
        break;
      default:
        throw new Error(`unknown event ${e.event}`);
    }
  }
  return state;
}

/** Key order means nothing to readers: compare by content (the file's, without the change time output adds). */
export function normalize(tasks: Iterable<TaskRecord>): Record<string, unknown> {
  const sortKeys = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sortKeys);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  const out: Record<string, unknown> = {};
  for (const t of [...tasks].sort((a, b) => Number(a.id) - Number(b.id))) {
    const { updatedAt: _, ...content } = t as TaskRecord & { updatedAt?: unknown };
    out[t.id] = sortKeys(content);
  }
  return out;
}
