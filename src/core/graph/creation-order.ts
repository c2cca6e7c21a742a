/**
 * A stable topological order: every item after the items it waits for, otherwise in
 * source order (Kahn's algorithm taking the earliest ready item each time). The ready
 * items are kept in a binary heap by source position: O(n log n), where re-sorting the
 * ready list at each step was quadratic (100,000 todos with no edges never finished).
 * Items caught in a cycle are left out (callers refuse cycles first).
 */
export function creationOrder(refs: readonly string[], blockersOf: (ref: string) => readonly string[]): string[] {
  const position = new Map<string, number>();
  refs.forEach((r, i) => {
    position.set(r, i);
  });
  const waiting = new Int32Array(refs.length);
  const dependents: number[][] = refs.map(() => []);
  refs.forEach((ref, i) => {
    for (const blocker of blockersOf(ref)) {
      const b = position.get(blocker);
      if (b === undefined) continue;
      waiting[i] = (waiting[i] ?? 0) + 1;
      (dependents[b] as number[]).push(i);
    }
  });
  const ready = new MinHeap();
  for (let i = 0; i < refs.length; i++) if (waiting[i] === 0) ready.push(i);
  const out: string[] = [];
  for (let next = ready.pop(); next !== undefined; next = ready.pop()) {
    out.push(refs[next] as string);
    for (const d of dependents[next] as number[]) {
      const left = (waiting[d] ?? 0) - 1;
      waiting[d] = left;
      if (left === 0) ready.push(d);
    }
  }
  return out;
}

/** A binary min-heap of numbers (source positions). */
class MinHeap {
  private readonly items: number[] = [];

  push(value: number): void {
    const items = this.items;
    let i = items.push(value) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((items[parent] as number) <= value) break;
      items[i] = items[parent] as number;
      i = parent;
    }
    items[i] = value;
  }

  pop(): number | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child = right < items.length && (items[right] as number) < (items[left] as number) ? right : left;
      if ((items[child] as number) >= last) break;
      items[i] = items[child] as number;
      i = child;
    }
    items[i] = last;
    return top;
  }
}
