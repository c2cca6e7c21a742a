/**
 * A task's free-form parts (metadata, unknown keys) may nest without limit in a file,
 * but printing or rewriting a value nested thousands deep overflows the stack
 * (JSON.stringify recurses). Such a file is refused like any other invalid one.
 */
export const MAX_JSON_DEPTH = 100;

/** Depth of nesting below `value`, counted without recursion; stops once past `limit`. */
export function nestingExceeds(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  const stack: Array<{ v: unknown; depth: number }> = [{ v: value, depth: 0 }];
  while (stack.length > 0) {
    const { v, depth } = stack.pop() as { v: unknown; depth: number };
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push({ v: child, depth: depth + 1 });
    }
  }
  return false;
}
