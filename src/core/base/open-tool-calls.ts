/**
 * Tool calls in flight: an agent's `tool_use` whose `tool_result` has not come yet. While
 * one is (a Bash command running a test suite, a build, a subagent), the agent is at work
 * though it writes nothing: Claude Code records the call when it starts and its result
 * when it ends, and nothing in between. Read from a transcript's entries
 * (sessions/tool-calls.ts) or from a stream-json run's events (runs/run-watcher.ts),
 * which carry the same `message`s.
 */
export class OpenToolCalls {
  private readonly open = new Set<string>();

  /** Takes one entry or event into account, in order. */
  apply(entry: Record<string, unknown>): void {
    const type = entry.type;
    // The end of a run: nothing of it is in flight any more.
    if (type === 'result') {
      this.open.clear();
      return;
    }
    if (type !== 'assistant' && type !== 'user') return;
    const content = (entry.message as { content?: unknown } | undefined)?.content;
    const blocks = Array.isArray(content) ? (content as unknown[]) : [];
    let results = 0;
    for (const b of blocks) {
      if (typeof b !== 'object' || b === null) continue;
      const block = b as Record<string, unknown>;
      if (type === 'assistant' && block.type === 'tool_use' && typeof block.id === 'string') this.open.add(block.id);
      if (type === 'user' && block.type === 'tool_result' && typeof block.tool_use_id === 'string') {
        this.open.delete(block.tool_use_id);
        results++;
      }
    }
    // A new prompt of the main thread (not a subagent's): whatever was in flight ended unrecorded.
    const main = entry.isSidechain !== true && (entry.parent_tool_use_id === undefined || entry.parent_tool_use_id === null);
    if (type === 'user' && results === 0 && main && entry.isMeta !== true) this.open.clear();
  }

  get any(): boolean {
    return this.open.size > 0;
  }
}
