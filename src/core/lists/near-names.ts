/**
 * "Did you mean": the existing names within a small edit distance of a mistyped one,
 * closest first. A typo is one or two keystrokes; anything further is another name.
 */
export function nearNames(typed: string, names: readonly string[], maxDistance = 2): string[] {
  return names
    .map((name) => ({ name, d: distance(typed.toLowerCase(), name.toLowerCase(), maxDistance) }))
    .filter((x) => x.name !== typed && x.d <= maxDistance)
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name))
    .map((x) => x.name);
}

/** Levenshtein distance, giving up (maxDistance + 1) as soon as it must exceed the bound. */
function distance(a: string, b: string, maxDistance: number): number {
  if (Math.abs(a.length - b.length) > maxDistance) return maxDistance + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > maxDistance) return maxDistance + 1;
    previous = current;
  }
  return previous[b.length]!;
}
