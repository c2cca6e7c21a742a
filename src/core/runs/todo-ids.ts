/**
 * TodoWrite items have no ids: the agent rewrites the whole list each time. To follow a
 * list as it changes, an item keeps the id it was given while its text stays the same
 * (wherever it moves in the list); new text gets the next id, and ids are never reused,
 * as in a task list. Pure.
 */
export interface TodoIdState {
  /** The last list's texts with their ids, in its order. */
  entries: ReadonlyArray<{ content: string; id: string }>;
  /** The next id to give. */
  next: number;
}

export const NO_TODO_IDS: TodoIdState = { entries: [], next: 1 };

export function assignTodoIds(state: TodoIdState, contents: readonly string[]): { ids: string[]; state: TodoIdState } {
  const free = new Map<string, string[]>();
  for (const e of state.entries) free.set(e.content, [...(free.get(e.content) ?? []), e.id]);
  let next = state.next;
  const ids = contents.map((content) => {
    const reused = free.get(content)?.shift();
    return reused ?? String(next++);
  });
  return { ids, state: { entries: contents.map((content, i) => ({ content, id: ids[i] as string })), next } };
}
