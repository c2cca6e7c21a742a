import { isObject } from './import-todowrite.js';
import type { StreamEvent } from './stream-events.js';

/**
 * The main agent's TodoWrite snapshots in a stream, as Claude Code itself recovers them
 * (it takes the last main-thread TodoWrite input): every TodoWrite input of the main
 * agent, less those whose result was an error, plus `newTodos` of results whose call is
 * not in the stream. Subagents keep todo lists of their own; theirs are only counted.
 */
export interface TodoCandidate {
  line: number;
  toolUseId?: string;
  /** Unvalidated: what the call or the result held under `todos` / `newTodos`. */
  todos: unknown;
  from: 'input' | 'result';
}

export interface TodoScan {
  candidates: TodoCandidate[];
  subagentSnapshots: number;
}

export function scanTodoSnapshots(events: readonly StreamEvent[]): TodoScan {
  const candidates: TodoCandidate[] = [];
  let subagentSnapshots = 0;
  for (const event of events) {
    if (event.kind === 'call') {
      if (event.call.name !== 'TodoWrite') continue;
      if (!event.call.main) {
        subagentSnapshots++;
        continue;
      }
      const input = event.call.input;
      candidates.push({ line: event.call.line, toolUseId: event.call.id, todos: isObject(input) ? input.todos : input, from: 'input' });
      continue;
    }
    const { call, result, toolUseId } = event;
    const data = isObject(result.data) ? result.data : undefined;
    if (call && call.name !== 'TodoWrite') continue;
    if (!call && !(data && Array.isArray(data.newTodos) && 'oldTodos' in data)) continue;
    if (call ? !call.main : !result.main) continue;
    if (result.isError) {
      // Refused (invalid input, denied): the agent's list did not change.
      const i = candidates.findIndex((c) => c.toolUseId === toolUseId);
      if (i >= 0) candidates.splice(i, 1);
      continue;
    }
    if (!call && data) candidates.push({ line: result.line, toolUseId, todos: data.newTodos, from: 'result' });
  }
  return { candidates, subagentSnapshots };
}
