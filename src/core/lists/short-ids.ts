/**
 * Session UUIDs shown as git shows hashes: the shortest prefix, at least `min` characters,
 * that no other id shares. Names that are not UUIDs are shown whole.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function shortIds(ids: readonly string[], min = 8): Map<string, string> {
  const sorted = [...ids].sort();
  const short = new Map<string, string>();
  sorted.forEach((id, i) => {
    if (!UUID.test(id)) {
      short.set(id, id);
      return;
    }
    // Only the neighbours in sorted order can share the longest prefix with an id.
    const shared = Math.max(commonPrefix(id, sorted[i - 1]), commonPrefix(id, sorted[i + 1]));
    let length = Math.max(min, shared + 1);
    if (id[length - 1] === '-') length++; // never end on a dash
    short.set(id, id.slice(0, Math.min(length, id.length)));
  });
  return short;
}

function commonPrefix(a: string, b: string | undefined): number {
  if (b === undefined) return 0;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i;
}
