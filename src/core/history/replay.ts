import type { TimelineEvent } from './events.js';

/**
 * A replay of the timeline: each task's fields as the record tells them, change after
 * change. A field missing from a task's state is one no record tells; `null` is an absent
 * field. An agent's change is applied as its tool applies it (docs/task-store.md section
 * 6): metadata merged key by key (a null value removes the key), an added edge written on
 * both tasks, a deleted task's id removed from every other task's edges.
 */
export type KnownState = Map<string, Record<string, unknown>>;

const EDGE_FIELDS = { addBlockedBy: 'blockedBy', addBlocks: 'blocks' } as const;
const MIRROR = { blockedBy: 'blocks', blocks: 'blockedBy' } as const;

function mergeMetadata(known: unknown, patch: unknown): unknown {
  const base = typeof known === 'object' && known !== null ? { ...(known as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries((patch ?? {}) as Record<string, unknown>)) {
    if (v === null) delete base[k];
    else base[k] = v;
  }
  return Object.keys(base).length === 0 ? null : base;
}

/**
 * Fill in old values the transcripts do not state, turn an agent's edge additions into
 * the lists they made, and return each task's state as the record leaves it. Mutates the
 * events' `changes`.
 */
export function replay(events: readonly TimelineEvent[]): KnownState {
  const state: KnownState = new Map();
  const addEdge = (id: string, field: 'blocks' | 'blockedBy', other: string) => {
    const known = state.get(id);
    if (known === undefined || !Array.isArray(known[field])) return;
    if (!(known[field] as string[]).includes(other)) known[field] = [...(known[field] as string[]), other];
  };
  for (const e of events) {
    if (e.task === null || e.op === 'unrecorded' || e.op === 'mark' || e.op === 'removed') continue;
    const id = e.task;
    if (e.op === 'delete' || e.op === 'aside') {
      state.delete(id);
      // The agents' delete removes the id from every other task's edges, and so does ours.
      for (const known of state.values()) {
        for (const field of ['blocks', 'blockedBy'] as const) {
          if (Array.isArray(known[field])) known[field] = (known[field] as string[]).filter((x) => x !== id);
        }
      }
      continue;
    }
    if (e.op === 'create') {
      // Created within the record: every field is known from here on (null: absent).
      const created: Record<string, unknown> = { activeForm: null, owner: null, metadata: null, blocks: [], blockedBy: [] };
      for (const [k, v] of Object.entries(e.changes)) created[k] = v.new ?? null;
      state.set(id, created);
      continue;
    }
    const known = state.get(id) ?? {};
    state.set(id, known);
    for (const [key, change] of Object.entries({ ...e.changes })) {
      if (key === 'addBlockedBy' || key === 'addBlocks') {
        const field = EDGE_FIELDS[key];
        const before = Array.isArray(known[field]) ? (known[field] as string[]) : undefined;
        const added = (Array.isArray(change.new) ? (change.new as unknown[]) : []).filter(
          (x): x is string => typeof x === 'string' && !before?.includes(x),
        );
        delete e.changes[key];
        e.changes[field] = before === undefined ? { added } : { old: before, new: [...before, ...added] };
        if (before === undefined) delete known[field];
        else known[field] = [...before, ...added];
        for (const other of added) addEdge(other, MIRROR[field], id);
        continue;
      }
      if (key === 'metadata' && e.source === 'transcript') {
        if (!('metadata' in known)) {
          delete known.metadata;
          continue;
        }
        const merged = mergeMetadata(known.metadata, change.new);
        e.changes.metadata = { old: known.metadata, new: merged };
        known.metadata = merged;
        continue;
      }
      if (!('old' in change) && key in known) e.changes[key] = { old: known[key], new: change.new };
      known[key] = 'new' in change ? (change.new ?? null) : null;
    }
  }
  return state;
}
